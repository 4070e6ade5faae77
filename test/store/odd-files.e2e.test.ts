// Issue 29: a FIFO, a socket or a device at one of carrental's file paths (the config, its
// lock, the journal, the journal's lock, the completion cache) is a clear one-line error
// within a second, never a hang. Spawned: a blocked read would hang an in-process test's
// whole worker, so the child is killed after 10 s instead.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';

let home: TestHome;
let servers: Server[] = [];
beforeEach(() => {
  home = new TestHome();
  servers = [];
});
afterEach(async () => {
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
  home.cleanup();
});

type Maker = (path: string) => Promise<void>;
const fifo: Maker = async (path) => {
  execFileSync('mkfifo', [path]);
};
const socket: Maker = async (path) => {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
};
const device: Maker = async (path) => symlinkSync('/dev/zero', path);

const KINDS: Array<[string, Maker, RegExp]> = [
  ['a FIFO', fifo, /is a FIFO \(named pipe\)/],
  ['a socket', socket, /is a socket/],
  ['a device', device, /is a character device/],
];

/** Runs, and says how long it took; a hang is killed at 10 s (signal SIGKILL). */
async function timed(argv: string[]) {
  const env = home.env({ CARRENTAL_API_KEY: 'svc_0123456789abcdef0123456789abcdef' });
  const t0 = Date.now();
  const r = await runBin(argv, { env, timeoutMs: 10_000 });
  return { ...r, ms: Date.now() - t0 };
}

describe.each(KINDS)('%s at a file path of carrental', (_kind, make, says) => {
  it('the config file: every command that reads it fails at once with a clear line', async () => {
    const dir = home.env().CARRENTAL_CONFIG_DIR!;
    mkdirSync(dir, { recursive: true });
    await make(join(dir, 'config.json'));
    for (const argv of [['config', 'list'], ['--base-url', 'http://127.0.0.1:9/v1', 'profile'], ['config', 'set', 'city', 'la']]) {
      const r = await timed(argv);
      expect(r.signal, argv.join(' ')).toBeNull();
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: the config file \\S+config\\.json ${says.source}, not a regular file\\n`));
      expect(r.ms).toBeLessThan(3000);
    }
  });

  it('the journal: cancel and pending fail at once, nothing sent', async () => {
    const dir = home.env().CARRENTAL_STATE_DIR!;
    mkdirSync(dir, { recursive: true });
    await make(join(dir, 'journal.json'));
    for (const argv of [['--base-url', 'http://127.0.0.1:9/v1', 'cancel', '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10', '-y'], ['pending']]) {
      const r = await timed(argv);
      expect(r.signal, argv.join(' ')).toBeNull();
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: the idempotency journal \\S+journal\\.json ${says.source}, not a regular file\\n`));
      expect(r.stderr).not.toContain('connection');
      expect(r.ms).toBeLessThan(3000);
    }
  });
});

describe('a FIFO where a lock directory goes', () => {
  it.each([
    ['the config lock', 'CARRENTAL_CONFIG_DIR', 'config.lock', ['config', 'set', 'city', 'la']],
    ['the idempotency journal lock', 'CARRENTAL_STATE_DIR', 'journal.json.lock', ['pending', 'clear', '--all']],
  ])('%s', async (what, variable, name, argv) => {
    const dir = home.env()[variable]!;
    mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, name)]);
    if (name === 'journal.json.lock') execFileSync('sh', ['-c', `printf '{"version":2,"entries":[]}' > '${join(dir, 'journal.json')}'`]);
    const r = await timed(argv);
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`error: ${what} ${join(dir, name)} is a FIFO (named pipe), not a lock directory\n`);
    expect(r.ms).toBeLessThan(3000);
  });
});

it('a FIFO as the completion cache is no cache, not a hang', async () => {
  const dir = home.env().CARRENTAL_STATE_DIR!;
  mkdirSync(dir, { recursive: true });
  execFileSync('mkfifo', [join(dir, 'completion-cache.json')]);
  const r = await timed(['__complete', 'car', '']);
  expect(r.signal).toBeNull();
  expect(r.ms).toBeLessThan(3000);
});

it('a FIFO as the MCP server\'s confirmation secret is a clear error at its start, not a hang', async () => {
  const dir = home.env().CARRENTAL_CONFIG_DIR!;
  mkdirSync(dir, { recursive: true });
  execFileSync('mkfifo', [join(dir, 'confirmation-secret')]);
  // the sandbox's own demo key (no CARRENTAL_API_KEY): it may book, so the secret is read
  const t0 = Date.now();
  const r = { ...(await runBin(['--sandbox', 'mcp', '--allow-booking'], { env: home.env(), timeoutMs: 10_000 })), ms: 0 };
  r.ms = Date.now() - t0;
  expect(r.signal).toBeNull();
  expect(r.stderr).toContain(`the confirmation secret ${join(dir, 'confirmation-secret')} is a FIFO (named pipe), not a regular file`);
  expect(r.ms).toBeLessThan(3000);
});
