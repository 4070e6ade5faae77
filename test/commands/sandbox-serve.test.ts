// `carrental sandbox serve` and `sandbox reset` in-process: the JSON line, the options,
// a clean stop on Ctrl-C, and the embedded state used by --sandbox.
import { createServer } from 'node:net';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CarsPage } from '../../src/api/schemas.js';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { MAX_RESERVATIONS } from '../../src/sandbox/json-store.js';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { FakeOut, runCommand, TestHome } from '../helpers/cli.js';

let home: TestHome;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

/** Starts `sandbox serve` in-process and waits for its first line. */
async function serve(args: string[], tty = false) {
  const stdout = new FakeOut(tty);
  const stderr = new FakeOut(tty);
  const stdin = new PassThrough() as unknown as InStream;
  const controller = new AbortController();
  const done = runCli(['sandbox', 'serve', ...args], { io: { stdin, stdout, stderr }, env: home.env(), signal: controller.signal });
  let settled: number | undefined;
  void done.then((code) => (settled = code));
  for (let i = 0; i < 200 && !stdout.text().includes('\n') && settled === undefined; i++) await new Promise((r) => setTimeout(r, 25));
  return {
    stdout,
    stderr,
    done,
    settled: () => settled,
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

describe('sandbox serve', () => {
  it('--json: exactly one JSON line with base URL, app URL and the five demo keys; Ctrl-C stops it with exit 0', async () => {
    const s = await serve(['--port', '0', '--json', '--state', join(home.dir, 'sb.json')]);
    const lines = s.stdout.text().split('\n');
    expect(lines).toHaveLength(2);
    const info = JSON.parse(lines[0]);
    expect(Object.keys(info)).toEqual(['base_url', 'app_url', 'keys']);
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(info.app_url).toBe(info.base_url.replace(/\/v1$/, '/app'));
    expect(Object.keys(info.keys).sort()).toEqual(['booking_write', 'no_card_payments', 'other_customer', 'read_only', 'unverified']);
    for (const key of Object.values(info.keys)) expect(key).toMatch(/^svc_[0-9a-f]{32}$/);

    // it really serves, to the CLI too
    const cars = await runCommand(['--base-url', info.base_url, 'cars', '--limit', '2'], { env: home.env() });
    expect(cars.code).toBe(0);
    expect(cars.stdout.split('\n')).toHaveLength(3);
    const status = await runCommand(['--base-url', info.base_url, 'auth', 'status'], { env: home.env({ CARRENTAL_API_KEY: info.keys.read_only }) });
    expect(status.stdout).toContain('first name\tDana\n');

    expect(s.settled()).toBeUndefined();
    expect(await s.stop()).toBe(0);
    expect(s.stdout.text()).toBe(lines.join('\n'));
    await expect(fetch(`${info.base_url}/cars`)).rejects.toThrow();
    expect(existsSync(join(home.dir, 'sb.json'))).toBe(true);
  });

  it('a terminal gets the addresses, the state file and the keys, and a way to try it', async () => {
    const s = await serve(['--state', join(home.dir, 'sb.json')], true);
    await new Promise((r) => setTimeout(r, 50));
    const plain = (text: string) => text.replace(/\u001b\[\d+m/g, '');
    expect(plain(s.stdout.text())).toMatch(/Base URL +http:\/\/127\.0\.0\.1:\d+\/v1\n/);
    expect(plain(s.stdout.text())).toMatch(/Key booking_write +svc_[0-9a-f]{32}\n/);
    expect(s.stdout.text()).toContain(`State`);
    expect(s.stderr.text()).toContain('Try: carrental --base-url http://127.0.0.1:');
    expect(await s.stop()).toBe(0);
    expect(s.stderr.text()).toContain('sandbox stopped');
  });

  it('on a Node without node:sqlite says once that Node 22+ gives the database store; on one with it, nothing', async () => {
    const s = await serve(['--port', '0', '--json', '--state', join(home.dir, 'sb.json')]);
    await new Promise((r) => setTimeout(r, 50));
    expect(await s.stop()).toBe(0);
    const notices = s.stderr.text().split('\n').filter((l) => l.includes('JSON document'));
    if (loadSqlite()) expect(notices).toEqual([]);
    // information, not a fault: no "warning:", what works now and what Node 22 adds
    else expect(notices).toEqual([`note: on Node ${process.versions.node} the sandbox keeps its state as one JSON document, written whole on each change: everything works up to ${MAX_RESERVATIONS.toLocaleString('en-US')} reservations (then a new booking is refused; \`carrental sandbox reset -y\` starts afresh). Node 22.13 or later keeps it in an SQLite database instead (one row per change, no such bound, rate limits shared between processes, readable with sqlite3).`]);
  });

  it('hidden --fleet-size, --seed and --no-rate-limit reach the sandbox; --reset re-seeds', async () => {
    const state = join(home.dir, 'big.json');
    const s = await serve(['--json', '--state', state, '--fleet-size', '1200', '--seed', '7', '--no-rate-limit']);
    const info = JSON.parse(s.stdout.text().split('\n')[0]);
    const page = (await getJson(`${info.base_url}/cars?limit=1`)).data as CarsPage;
    expect(page.total).toBe(1200);
    const admin = await getJson(info.base_url.replace('/v1', '/__sandbox'));
    expect(admin.seed).toBe(7);
    expect(admin.config.catalogRateLimitPerMinute).toBeGreaterThan(1e9);
    expect(await s.stop()).toBe(0);

    // the file keeps its fleet: another size needs --reset
    const clash = await runCommand(['sandbox', 'serve', '--state', state, '--fleet-size', '50'], { env: home.env() });
    expect(clash.code).toBe(1);
    // one line, with what to do
    expect(clash.stderr).toContain('it holds a fleet of 1200 cars, not 50; start it with --reset to discard the state, or point --state at another file\n');
    expect(clash.stderr.trim().split('\n')).toHaveLength(1);
    const reset = await serve(['--json', '--state', state, '--fleet-size', '50', '--reset']);
    const again = JSON.parse(reset.stdout.text().split('\n')[0]);
    expect(((await getJson(`${again.base_url}/cars?limit=1`)).data as CarsPage).total).toBe(50);
    expect(await reset.stop()).toBe(0);
  });

  it('a port in use is exit 1 with a hint; a bad port is exit 2', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCommand(['sandbox', 'serve', '--port', String(port), '--state', join(home.dir, 'sb.json')], { env: home.env() });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: port ${port} is already in use\nhint: choose another with --port, or --port 0 for a free one\n`);
    } finally {
      blocker.close();
    }
    const bad = await runCommand(['sandbox', 'serve', '--port', '70000'], { env: home.env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: --port must be 0..65535, got 70000\n');
  });
});

describe('the embedded sandbox (--sandbox) and sandbox reset', () => {
  const state = () => join(home.dir, 'data', 'sandbox-state.json');

  it('--sandbox and CARRENTAL_SANDBOX=1 keep their state in the data directory', async () => {
    const r = await runCommand(['--sandbox', 'cars', '--city', 'la', '--limit', '3'], { env: home.env() });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(4);
    expect(existsSync(state())).toBe(true);
    const env = await runCommand(['car', r.stdout.split('\t')[0], '--json'], { env: home.env({ CARRENTAL_SANDBOX: '1' }) });
    expect(env.code).toBe(0);
    expect(JSON.parse(env.stdout).city).toBe('la');
  });

  it('a profile whose base URL is "sandbox" uses it too', async () => {
    await runCommand(['config', 'set', 'base_url', 'sandbox', '--profile', 'demo'], { env: home.env() });
    const r = await runCommand(['--profile', 'demo', 'cars', '--limit', '1', '--json'], { env: home.env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).cars).toHaveLength(1);
  });

  it('a broken state file is explained, and `sandbox reset` repairs it', async () => {
    await runCommand(['--sandbox', 'cars', '--limit', '1'], { env: home.env() });
    writeFileSync(state(), '{ not json');
    const broken = await runCommand(['--sandbox', 'cars', '--limit', '1'], { env: home.env() });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('not valid JSON');
    // one line, with what to do
    expect(broken.stderr).toMatch(/^error: sandbox state file .*; run `carrental sandbox reset -y` to discard it and re-seed\n$/);
    // not a terminal: it destroys state, so it needs -y
    const refused = await runCommand(['sandbox', 'reset'], { env: home.env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/sandbox reset needs a confirmation.*pass -y/);
    const reset = await runCommand(['sandbox', 'reset', '-y'], { env: home.env() });
    expect(reset.code).toBe(0);
    expect(reset.stderr).toBe(`sandbox state reset: ${state()}\n`);
    expect((await runCommand(['--sandbox', 'cars', '--limit', '1'], { env: home.env() })).code).toBe(0);
  });

  it('`sandbox reset -y` of a symlinked state file writes through to its target and keeps the link', async () => {
    const target = join(home.dir, 'elsewhere', 'real-state');
    mkdirSync(join(home.dir, 'elsewhere'));
    mkdirSync(join(home.dir, 'data'), { recursive: true });
    writeFileSync(target, 'garbage');
    symlinkSync(target, state());
    expect((await runCommand(['--sandbox', 'cars', '--limit', '1'], { env: home.env() })).code).toBe(1);
    const reset = await runCommand(['sandbox', 'reset', '-y'], { env: home.env() });
    expect(reset.code, reset.stderr).toBe(0);
    expect(lstatSync(state()).isSymbolicLink()).toBe(true);
    expect(readlinkSync(state())).toBe(target);
    expect(readFileSync(target).subarray(0, 16).toString('latin1')).toMatch(loadSqlite() ? /^SQLite format 3/ : /^\{/);
    expect((await runCommand(['--sandbox', 'cars', '--limit', '1'], { env: home.env() })).code).toBe(0);
  });
});
