// The built CLI as a script sees it: plain tab-separated lines in a pipe (no colour, no
// headers, no prompt), --json that another program parses, --debug that never shows the
// key, and `sandbox serve` as a server that a parent starts, reads and stops.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';

interface Served {
  base_url: string;
  app_url: string;
  keys: Record<'booking_write' | 'read_only' | 'other_customer' | 'unverified' | 'no_card_payments', string>;
}

let home: TestHome;
// `sandbox serve` runs on real time here: dates a month ahead never rot
const ahead = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const FROM = `${ahead(30)}T10:00`;
const TO = `${ahead(33)}T10:00`;

/** `carrental sandbox serve --port 0 --json` as a child; resolves with its first stdout line. */
async function serve(extra: string[] = []): Promise<{ child: ChildProcessWithoutNullStreams; info: Served; firstLine: string; rest: () => string }> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--json', '--reset', '--state', `${home.dir}/serve-${Date.now()}.json`, ...extra], {
    env: home.env(),
  });
  let rest = '';
  const lines = createInterface({ input: child.stdout });
  const firstLine = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox serve exited with ${code}`)));
  });
  lines.on('line', (l) => (rest += `${l}\n`));
  return { child, info: JSON.parse(firstLine), firstLine, rest: () => rest };
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

let server: Awaited<ReturnType<typeof serve>>;
let alias: string;

beforeAll(async () => {
  home = new TestHome();
  server = await serve();
  const page = await runBin(['--base-url', server.info.base_url, '--json', 'cars', '--city', 'la', '--from', FROM, '--to', TO, '--limit', '200'], { env: home.env() });
  alias = (JSON.parse(page.stdout).cars as Array<{ car_alias: string; is_available: boolean }>).find((c) => c.is_available)!.car_alias;
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await exited(server.child);
  home.cleanup();
});

const cli = (argv: string[], extraEnv: NodeJS.ProcessEnv = {}) => runBin(['--base-url', server.info.base_url, ...argv], { env: home.env(extraEnv) });

describe('in a pipe', () => {
  it('cars: one tab-separated line per car, no header, no colour, nothing on stderr', async () => {
    const r = await cli(['cars', '--city', 'la', '--limit', '3'], { FORCE_COLOR: undefined });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.split('\t')).toHaveLength(7);
    expect(lines[0]).not.toMatch(/ALIAS/);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('car: label<TAB>value pairs with bare values, then plan, extra and blocked records', async () => {
    const r = await cli(['car', alias]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^car alias\\t${alias}\\n`));
    expect(r.stdout).toContain('city\tla\nzone\tAmerica/Los_Angeles\n');
    expect(r.stdout).toMatch(/^plan\tminimum\t\d+\.\d\d$/m);
    expect(r.stdout).not.toMatch(/^#/m);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('quote: the breakdown as lines a script can cut, the deposit apart', async () => {
    const r = await cli(['quote', alias, '--from', FROM.replace('T', ' '), '--to', TO.replace('T', ' '), '--protection', 'standard']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\ntotal\t\d+\.\d\d\n/);
    expect(r.stdout).toMatch(/\ndeposit\t\d+\.\d\d\n/);
    expect(r.stdout).toMatch(/^item\tProtection \(standard\)\t\d+\.\d\d$/m);
    const cut = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" --base-url ${server.info.base_url} quote ${alias} --from ${FROM} --to ${TO} | awk -F'\\t' '$1 == "total" { print $2 }'`], {
      env: home.env(),
      encoding: 'utf8',
    });
    expect(cut.stdout).toMatch(/^\d+\.\d\d\n$/);
  });

  it('--json is one document that another program parses', () => {
    const script = 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const p=JSON.parse(s);console.log(p.cars.length, p.total > 0, typeof p.has_more)})';
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" --base-url ${server.info.base_url} --json cars --city miami --limit 5 | "${process.execPath}" -e '${script}'`], {
      env: home.env(),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('5 true boolean\n');
  });

  it('never prompts: a missing key is a usage error at once, even with stdin open', async () => {
    const r = await runBin(['--base-url', server.info.base_url, 'auth', 'login'], { env: home.env(), timeoutMs: 10_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no terminal to prompt for the key on');
  });

  it('--with-key reads the key from the pipe, and auth status confirms it', async () => {
    const login = await runBin(['--base-url', server.info.base_url, 'auth', 'login', '--with-key'], { env: home.env(), input: server.info.keys.read_only });
    expect(login.code).toBe(0);
    const status = await runBin(['auth', 'status'], { env: home.env() });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^customer\t\S+$/m);
    expect(status.stdout + status.stderr + login.stdout + login.stderr).not.toContain(server.info.keys.read_only);
    expect((await runBin(['auth', 'logout'], { env: home.env() })).code).toBe(0);
  });

  it('--debug traces to stderr with the key redacted; stdout stays the data', async () => {
    const key = server.info.keys.booking_write;
    const r = await cli(['--debug', '--json', 'quote', alias, '--from', FROM, '--to', TO], { CARRENTAL_API_KEY: key });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).display_mode).toBe('trip_total');
    expect(r.stderr).toContain(`> authorization: Bearer svc_…${key.slice(-4)}`);
    expect(r.stderr).toMatch(/< 200 \(\d+ ms\)/);
    expect(r.stderr).not.toContain(key);
  });

  it('exit codes: 2 usage, 4 not found, 3 bad key', async () => {
    expect((await cli(['cars', '--limit', '0'])).code).toBe(2);
    expect((await cli(['car', 'no-such-car-1'])).code).toBe(4);
    expect((await cli(['quote', alias, '--from', FROM, '--to', TO], { CARRENTAL_API_KEY: 'svc_00000000000000000000000000000000' })).code).toBe(3);
  });
});

describe('sandbox serve as a server', () => {
  it('prints exactly one JSON line, serves, and stops cleanly on SIGTERM and on SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const s = await serve();
      expect(Object.keys(s.info)).toEqual(['base_url', 'app_url', 'keys']);
      const r = await runBin(['--base-url', s.info.base_url, 'cars', '--limit', '1'], { env: home.env() });
      expect(r.code).toBe(0);
      const done = exited(s.child);
      s.child.kill(signal);
      expect(await done).toEqual({ code: 0, signal: null });
      expect(s.rest()).toBe('');
    }
  });
});
