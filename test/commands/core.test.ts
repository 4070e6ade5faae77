// The command tree, global options and the error path, in-process, against a scripted
// loopback server that records every request (so "no request was sent" is checked).
import { describe, expect } from 'vitest';
import { runCommand } from '../helpers/cli.js';
import { stubCar, test as stubTest } from '../helpers/stub-server.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const noSleep = async () => {};

// The commands' clock: the stub's trips (2026-12) stay ahead whatever day the suite runs.
const STUB_NOW = () => new Date('2026-11-20T18:00:00Z');

const test = stubTest
  // one car, unless a test scripts another answer
  .extend('oneCar', { auto: true }, async ({ stub }) => {
    stub.handler = () => ({ json: { data: { cars: [stubCar('car-1')], total: 1, has_more: false } } });
  })
  .extend('run', async ({ home }) => (argv: string[], opts: { env?: NodeJS.ProcessEnv; tty?: boolean } = {}) =>
    runCommand(argv, { env: home.env(opts.env), tty: opts.tty, now: STUB_NOW, sleep: noSleep }),
  );

describe('the command tree', () => {
  test('prints an overview when run alone', async ({ run }) => {
    const r = await run([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('carrental --sandbox cars --city la');
    expect(r.stderr).toBe('');
  });

  test('suggests the nearest command for a typo (exit 2)', async ({ run }) => {
    const r = await run(['carz']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'carz'\n(Did you mean one of car, cars?)\n");
    expect((await run(['qoute'])).stderr).toContain('(Did you mean quote?)');
    const sub = await run(['auth', 'statsu']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('(Did you mean status?)');
  });

  test('prints help on stdout with exit 0, global options included', async ({ run }) => {
    const r = await run(['cars', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--from <date>');
    expect(r.stdout).toContain('--timeout <seconds>');
    expect(r.stdout).toContain('carrental cars --city la');
  });

  test('prints the version', async ({ run }) => {
    const r = await run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('refuses an unknown option or a bad choice with exit 2 and no request', async ({ stub, run }) => {
    expect((await run(['--base-url', stub.baseUrl, 'cars', '--colour'])).code).toBe(2);
    const r = await run(['--base-url', stub.baseUrl, 'cars', '--city', 'paris']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: option '--city <city>' argument 'paris' is invalid. Allowed choices are la, miami.");
    expect(stub.requests).toHaveLength(0);
  });
});

describe('the API key is never an argument', () => {
  test.for([
    [['auth', 'login', KEY]],
    [['config', 'set', 'api_key', KEY]],
    [['cars', `--api-key=${KEY}`]],
  ])('refuses %j without echoing the key', async ([argv], { run }) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('an API key is never accepted as a command-line argument');
    expect(r.stderr).toContain('svc_…cdef');
    expect(r.stderr + r.stdout).not.toContain(KEY);
  });

  test('redacts a key-shaped token in commander’s own messages', async ({ run }) => {
    const r = await run(['cars', '--token=svc_abcd-1234']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('svc_abcd-1234');
  });
});

describe('global options and environment', () => {
  test('says how to configure a profile with no base URL (exit 2, nothing sent)', async ({ run }) => {
    const r = await run(['cars']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: no API base URL for profile "default"\n' +
        'hint: set one with `carrental config set base_url https://<host>/v1` (or --base-url, CARRENTAL_BASE_URL), or try the embedded sandbox: `carrental --sandbox cars`\n',
    );
    const named = await run(['--profile', 'work', 'cars']);
    // a profile that is not in the config at all: says so (a typo is likelier than an unconfigured profile)
    expect(named.stderr).toContain('error: profile "work" does not exist');
    expect((await run(['cars'], { env: { CARRENTAL_PROFILE: 'ci' } })).stderr).toContain('profile "ci"');
  });

  test('takes the base URL from --base-url or CARRENTAL_BASE_URL, flag first', async ({ stub, run }) => {
    expect((await run(['cars'], { env: { CARRENTAL_BASE_URL: stub.baseUrl } })).code).toBe(0);
    expect((await run(['--base-url', stub.baseUrl, 'cars'], { env: { CARRENTAL_BASE_URL: 'http://127.0.0.1:9/v1' } })).code).toBe(0);
    expect(stub.requests).toHaveLength(2);
    const bad = await run(['--base-url', 'https://api.example.com', 'cars']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('base_url must end with /v1');
  });

  test('validates --timeout and CARRENTAL_TIMEOUT before anything is sent', async ({ stub, run }) => {
    expect((await run(['--base-url', stub.baseUrl, '--timeout', 'soon', 'cars'])).code).toBe(2);
    expect((await run(['--base-url', stub.baseUrl, 'cars'], { env: { CARRENTAL_TIMEOUT: '-3' } })).code).toBe(2);
    expect(stub.requests).toHaveLength(0);
  });

  test('times a slow API out after --timeout / CARRENTAL_TIMEOUT (exit 6)', async ({ stub, run }) => {
    stub.handler = () => ({ delayMs: 1_500, json: { data: { cars: [], total: 0, has_more: false } } });
    const r = await run(['--base-url', stub.baseUrl, '--timeout', '0.2', 'cars']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('error: GET /cars timed out after 0.2 s');
    expect(r.stderr).toContain('hint: the outcome is unknown; rerunning the same command is safe');
    const env = await run(['--base-url', stub.baseUrl, 'cars'], { env: { CARRENTAL_TIMEOUT: '0.2' } });
    expect(env.code).toBe(6);
  });

  test('--debug and CARRENTAL_DEBUG trace to stderr, never the key', async ({ stub, run }) => {
    stub.handler = () => ({ json: { data: { rent_subtotal: 1, rent_discount_amount: 0, protection_total: 0, trip_fee_total: 0, final_total: 1, display_total: 1, display_trip_total: 1, display_mode: 'trip_total', blended_day_rate: 1, discounted_day_rate: 1, deposit_cents: 0 } } });
    const argv = ['--base-url', stub.baseUrl, 'quote', 'car-1', '--from', '2026-12-01T10:00', '--to', '2026-12-02T10:00'];
    const r = await run(['--debug', ...argv], { env: { CARRENTAL_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`> POST ${stub.baseUrl}/reservation/quote`);
    expect(r.stderr).toContain('> authorization: Bearer svc_…cdef');
    expect(r.stderr).toContain('< 200');
    expect(r.stderr + r.stdout).not.toContain(KEY);
    const env = await run(argv, { env: { CARRENTAL_API_KEY: KEY, CARRENTAL_DEBUG: '1' } });
    expect(env.stderr).toContain('> authorization: Bearer svc_…cdef');
    const quiet = await run(argv, { env: { CARRENTAL_API_KEY: KEY } });
    expect(quiet.stderr).not.toContain('> POST');
  });

  test('--json prints the payload only; errors also as the API error object on stderr', async ({ stub, run }) => {
    const ok = await run(['--base-url', stub.baseUrl, '--json', 'cars']);
    expect(JSON.parse(ok.stdout)).toEqual({ cars: [stubCar('car-1')], total: 1, has_more: false });
    stub.handler = () => ({ status: 400, json: { error: 'Invalid pagination', error_code: 'invalid_pagination', request_id: 'req_7' } });
    const bad = await run(['--base-url', stub.baseUrl, '--json', 'cars']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      'error: Invalid pagination (invalid_pagination, request req_7)\nhint: --limit takes 1..200; --all fetches every page\n{"error":"Invalid pagination","error_code":"invalid_pagination","request_id":"req_7"}\n',
    );
  });

  test('a response that breaks the schema is one line naming the field, exit 1', async ({ stub, run }) => {
    stub.handler = () => ({ json: { data: { cars: [{ car_alias: 'x', name: 'X' }], total: 1, has_more: false } } });
    const r = await run(['--base-url', stub.baseUrl, 'cars']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^error: unexpected response from GET \/cars: data\.cars\.0\.prices: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('retries', () => {
  const limited = { status: 429, headers: { 'retry-after': '1' }, json: { error: 'Rate limit exceeded', error_code: 'rate_limited' } };

  test('429 then success: progress on a terminal’s stderr, erased before the data', async ({ stub, run }) => {
    stub.handler = (_r, i) => (i === 0 ? limited : { json: { data: { cars: [stubCar('car-1')], total: 1, has_more: false } } });
    const r = await run(['--base-url', stub.baseUrl, 'cars'], { tty: true });
    expect(r.code).toBe(0);
    expect(stub.requests).toHaveLength(2);
    expect(r.stderr).toContain('HTTP 429 rate_limited: retrying in 1 s (attempt 2 of 4)');
    expect(r.stderr).toContain('\r\u001b[2K');
    expect(r.stdout).toContain('car-1');
  });

  test('no progress in a pipe; after the last attempt exit 6 with a hint', async ({ stub, run }) => {
    stub.handler = () => limited;
    const r = await run(['--base-url', stub.baseUrl, 'cars']);
    expect(r.code).toBe(6);
    expect(stub.requests).toHaveLength(4);
    expect(r.stderr).toBe('error: Rate limit exceeded (rate_limited)\nhint: wait 1 s, then rerun the same command\n');
  });
});
