// The smaller traps of issue 10, each as a user meets it: JSON usage errors, colour,
// case-insensitive enum values, a key typed after `auth login`, `config get` of an unset
// value, a profile that does not exist, the interrupt line on a terminal.
import { describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);
const cli = (argv: string[], opts: { env?: NodeJS.ProcessEnv; tty?: boolean; signal?: AbortSignal } = {}) =>
  runCommand(argv, { env: home.env(opts.env), tty: opts.tty, signal: opts.signal, sleep: async () => {} });

describe('usage errors under --json', () => {
  it("a parser error (an unknown choice) is also a JSON object on stderr", async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'cars', '--city', 'paris', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const [line, json] = r.stderr.trimEnd().split('\n');
    expect(line).toMatch(/^error: option '--city <city>' argument 'paris' is invalid/);
    expect(JSON.parse(json)).toMatchObject({ error: expect.stringContaining("argument 'paris' is invalid"), kind: 'usage', exit_code: 2 });
  });
  it("carrental's own usage error too, with its hint", async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'cars', '--limit', '0', '--json']);
    expect(r.code).toBe(2);
    const json = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!);
    expect(json).toMatchObject({ error: expect.stringContaining('--limit'), kind: 'usage', exit_code: 2 });
  });
  it('the API error object is still the one the API sent', async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'car', 'no-such-car-1', '--json']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!)).toMatchObject({ error_code: 'car_not_found' });
  });
});

describe('colour on a terminal', () => {
  it('error: is red like warning: is yellow; not with NO_COLOR, not in a pipe', async () => {
    const tty = await cli(['--base-url', sb.baseUrl, 'car', 'no-such-car-1'], { tty: true });
    expect(tty.stderr).toContain('\u001b[31merror:\u001b[39m Car not found');
    const plain = await cli(['--base-url', sb.baseUrl, 'car', 'no-such-car-1'], { tty: true, env: { NO_COLOR: '1' } });
    expect(plain.stderr).toContain('error: Car not found');
    expect(plain.stderr).not.toContain('\u001b[31m');
    const pipe = await cli(['--base-url', sb.baseUrl, 'car', 'no-such-car-1']);
    expect(pipe.stderr).toMatch(/^error: Car not found/);
  });
  it("a parser error is red too", async () => {
    const r = await cli(['cars', '--city', 'paris'], { tty: true });
    expect(r.stderr).toContain("\u001b[31merror:\u001b[39m option '--city <city>'");
  });
  it("doctor's verdict is green on a terminal", async () => {
    const r = await cli(['--sandbox', 'doctor'], { tty: true });
    expect(r.stderr).toContain('\u001b[32mdoctor: everything required works');
  });
});

describe('enum values ignore case', () => {
  it('--city LA and --sort PRICE_ASC are la and price_asc', async () => {
    const r = await cli(['--base-url', sb.baseUrl, 'cars', '--city', 'LA', '--sort', 'PRICE_ASC', '--limit', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).cars[0].city).toBe('la');
  });
});

describe('auth login with the key as an argument', () => {
  it('says how to give the key, and never echoes it', async () => {
    const r = await cli(['auth', 'login', 'my-secret-key-9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hint: the key is never an argument');
    expect(r.stderr).toContain('--with-key');
    expect(r.stderr).not.toContain('my-secret-key-9');
  });
});

describe('config get and profiles', () => {
  it('config get of an unset value prints nothing, exit 1', async () => {
    const r = await cli(['config', 'get', 'city']);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: '' });
  });
  it('--profile nosuch says the profile does not exist', async () => {
    await cli(['config', 'set', 'city', 'la', '--profile', 'work']);
    const get = await cli(['--profile', 'nosuch', 'config', 'get', 'city']);
    expect(get.code).toBe(2);
    expect(get.stderr).toContain('error: profile "nosuch" does not exist (profiles: work)');
    const trips = await cli(['--profile', 'nosuch', 'trips']);
    expect(trips.code).toBe(2);
    expect(trips.stderr).toContain('error: profile "nosuch" does not exist');
    // creating one is still allowed
    expect((await cli(['config', 'set', 'city', 'miami', '--profile', 'nosuch'])).code).toBe(0);
  });
});

describe('Ctrl-C on a terminal', () => {
  it('erases the progress line before the interrupt line, and says it once', async () => {
    await sb.fault({ kind: 'latency', operation: 'listCars', ms: 3000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 800);
    const r = await cli(['--base-url', sb.baseUrl, 'cars', '--city', 'la', '--all'], { tty: true, signal: controller.signal, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/\r\u001b\[2Kinterrupted\n$/);
    expect(r.stderr.match(/interrupted/g)).toHaveLength(1);
  });
});
