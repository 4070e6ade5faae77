// Keys and output against a hostile server, in-process: a loopback server whose every error
// field carries terminal escapes, C1 controls, bidi overrides and the caller's own key must
// not get any of them printed, by any command, in plain, --debug or --json mode. Plus the
// doors a key could leave by (the command line, plain http) and the numbers and response
// sizes that are refused. Every case checks that nothing was sent when it should not be.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
/** A key of another shape: the rules hold for the active key, whatever it looks like. */
const ODD_KEY = 'tok-live-ZYXWVUTSRQ987654';
const UUID = '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10';
const ESC = '\u001b';
const now = () => new Date('2026-11-01T12:00:00Z');

/** Raw characters that must never reach a terminal (tab and newline aside, and the progress line’s own erase). */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function hostileError(key: string) {
  return {
    error: `Denied ${ESC}]0;owned\u0007${ESC}[31mred${ESC}[0m \u009b2J \u202eevil\u2066 ${key}`,
    error_code: `bad_thing${ESC}[2J${key}`,
    request_id: `req_${key}\u009b1m\u202e`,
    description: `see ${ESC}[5m${key}\u200f\u2028next`,
  };
}

let stub: StubServer;
let home: TestHome;

beforeAll(async () => {
  stub = await StubServer.start();
});
afterAll(async () => {
  await stub.close();
});
beforeEach(() => {
  home = new TestHome();
  stub.requests.length = 0;
});
afterEach(() => home.cleanup());

const run = (argv: string[], opts: RunOpts & { key?: string } = {}) =>
  runCommand(['--base-url', stub.baseUrl, ...argv], { sleep: async () => {}, now, ...opts, env: home.env({ CARRENTAL_API_KEY: opts.key ?? KEY, ...(opts.env ?? {}) }) });

const DATES = ['--from', '2026-12-01T10:00', '--to', '2026-12-04T10:00'];
const COMMANDS: string[][] = [
  ['cars'],
  ['car', 'kia-soul-1'],
  ['quote', 'kia-soul-1', ...DATES],
  ['trips'],
  ['trips', UUID],
  ['profile'],
  ['verification'],
  ['cards'],
  ['card-link'],
  ['invoices', UUID],
  ['invoice', UUID],
  ['pay-link', UUID],
  ['extend-link', UUID],
  ['cancel', UUID, '-y'],
  ['reserve', 'kia-soul-1', ...DATES, '-y'],
  ['api', 'GET', '/my/profile'],
];

function expectSafe(text: string, key: string) {
  expect(text).not.toMatch(UNSAFE);
  expect(text).not.toContain(key);
  // not even most of it: the mask shows the last four characters only
  expect(text).not.toContain(key.slice(4, -4));
}

describe('a hostile server’s error fields reach no terminal raw, and never with the key', () => {
  describe.each([
    ['plain', [] as string[]],
    ['--debug', ['--debug']],
    ['--json', ['--json']],
  ])('%s', (mode, flags) => {
    it.each(COMMANDS.map((argv) => [argv.join(' '), argv]))('%s', async (_name, argv) => {
      stub.handler = () => ({ status: 400, json: hostileError(KEY) });
      const r = await run([...flags, ...(argv as string[])]);
      expect(r.code).toBe(1);
      expect(stub.requests.length).toBeGreaterThan(0);
      expectSafe(r.stderr, KEY);
      // `api` prints the body it received on stdout as data: the JSON output's rules apply there
      if ((argv as string[])[0] !== 'api') expectSafe(r.stdout, KEY);
      // the server's description follows the error, cleaned and masked the same way
      expect(r.stderr).toContain('error: Denied red  evil svc_…cdef: see svc_…cdef next (bad_thingsvc_…cdef, request req_svc_…cdef)\n');
      if (mode === '--debug') expect(r.stderr).toMatch(/^> (GET|POST|DELETE) /m);
      if (mode === '--json') {
        const objects = r.stderr.split('\n').filter((l) => l.startsWith('{'));
        expect(objects.length).toBeGreaterThan(0);
        const last = objects[objects.length - 1];
        // C1 and bidi as \u escapes, still the same JSON value, the key masked
        expect(last).toContain('\\u202e');
        expect(last).toContain('\\u009b');
        expect(JSON.parse(last)).toMatchObject({ error_code: `bad_thing${ESC}[2Jsvc_…cdef`, request_id: 'req_svc_…cdef\u009b1m\u202e' });
      }
    });
  });

  it('the server’s description on the error line is cleaned and masked too', async () => {
    stub.handler = () => ({ status: 400, json: hostileError(KEY) });
    const r = await run(['profile']);
    expect(r.stderr).toContain(': see svc_…cdef next (');
    expect(r.stderr).not.toContain('hint: see');
  });

  it('masks an active key that is not shaped svc_..., in every field', async () => {
    stub.handler = () => ({ status: 403, json: hostileError(ODD_KEY) });
    for (const flags of [[], ['--debug'], ['--json']]) {
      const r = await run([...flags, 'profile'], { key: ODD_KEY });
      expect(r.code).toBe(3);
      expectSafe(r.stderr + r.stdout, ODD_KEY);
      expect(r.stderr).toContain('(bad_thing…7654, request req_…7654)');
    }
  });

  it('masks a key a server split with an escape sequence', async () => {
    stub.handler = () => ({ status: 404, json: { error: `no ${KEY.slice(0, 12)}${ESC}[0m${KEY.slice(12)}`, error_code: 'x' } });
    for (const flags of [[], ['--debug'], ['--json']]) {
      const r = await run([...flags, 'profile']);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('error: no svc_…cdef (x');
      expectSafe(r.stderr, KEY);
      expect(r.stderr).not.toContain(KEY.slice(12));
    }
  });
});

describe('usage errors do not echo the user’s own control characters', () => {
  it.each([
    [['cars', '--city', `l${ESC}[31ma`]],
    [['cars', `--colour${ESC}]0;x\u0007`]],
    [['cars', '--limit', `5${ESC}[2J`]],
    [['trips', `${UUID.slice(0, 8)}\u202e`]],
    [['--profile', `w${ESC}[1mork`, 'cars']],
    [['--base-url', `http://x${ESC}[2J/v1`, 'cars']],
    [['api', 'GET', `/my/${ESC}[2Jx`]],
  ])('%j', async (argv) => {
    const r = await runCommand(argv, { env: home.env(), now });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).not.toMatch(UNSAFE);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('the key is refused anywhere on the command line (exit 2, nothing sent)', () => {
  it.each([
    ['inside an api path', ['api', 'GET', `/my/${KEY}/profile`]],
    ['in a header value', ['api', 'GET', '/my/profile', '-H', `X-Note: key=${KEY}`]],
    ['in a body', ['api', 'POST', '/reservation/quote', '--body', JSON.stringify({ car_alias: 'x', note: KEY })]],
    ['deep in a long body', ['api', 'POST', '/reservation/quote', '--body', JSON.stringify({ car_alias: 'x'.repeat(300), note: KEY, more: 'y'.repeat(300) })]],
    ['in an option value', ['cars', '--body-type', `suv${KEY}`]],
    ['as a positional argument', ['car', `car-${KEY}`]],
    ['in --opt=value form', ['reserve', 'x', ...DATES, `--promo=${KEY}`]],
  ])('%s', async (_what, argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: an API key is never accepted as a command-line argument');
    // where in the argument it is: the mask is always shown, a long argument around it
    expect(r.stderr).toContain('svc_…cdef');
    expect(r.stderr.split('\n')[0].length).toBeLessThan(220);
    expect(r.stderr).toContain('hint: ');
    expect(r.stderr).not.toContain(KEY);
    expect(stub.requests).toHaveLength(0);
  });

  it('refuses the active key even when it is not key-shaped, from the environment or from the profile', async () => {
    const env = await run(['api', 'GET', `/my/profile?x=${ODD_KEY}`], { key: ODD_KEY });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('got /my/profile?x=…7654');
    expect(env.stderr).not.toContain(ODD_KEY);

    // a key stored in the profile is known only once the command resolves its target
    const noEnvKey = home.env();
    mkdirSync(noEnvKey.CARRENTAL_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(noEnvKey.CARRENTAL_CONFIG_DIR!, 'config.json'), JSON.stringify({ profiles: { default: { base_url: stub.baseUrl, api_key: ODD_KEY } } }), { mode: 0o600 });
    const r = await runCommand(['api', 'GET', '/my/profile', '-H', `X-Trace: ${ODD_KEY}`], { env: noEnvKey, now });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('an API key is never accepted as a command-line argument');
    expect(r.stderr).not.toContain(ODD_KEY);
    expect(stub.requests).toHaveLength(0);
  });

  it.each([
    ['percent-encoded in a query', `/my/profile?k=svc%5F${KEY.slice(4)}`],
    ['percent-encoded with lower-case hex', `/my/profile?k=svc%5f${KEY.slice(4)}`],
    ['every character percent-encoded', `/my/${[...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`],
    ['encoded twice', `/my/profile?k=svc%255F${KEY.slice(4)}`],
    ['in upper case', `/my/profile?k=${KEY.toUpperCase()}`],
    ['encoded and in mixed case', `/my/${KEY.slice(0, 10).toUpperCase().replace('_', '%5f')}${KEY.slice(10)}`],
  ])('refuses the key in an api path %s (issue 29)', async (_what, path) => {
    const r = await run(['api', 'GET', path]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('error: an API key is never accepted as a command-line argument');
    expect(r.stderr.toLowerCase()).not.toContain(KEY.slice(8, -4).toLowerCase());
    expect(stub.requests).toHaveLength(0);
  });

  it('refuses an active key of any shape percent-encoded or in another case (issue 29)', async () => {
    const encoded = [...ODD_KEY].map((c) => (/[a-z]/i.test(c) ? c : `%${c.charCodeAt(0).toString(16)}`)).join('');
    for (const path of [`/my/profile?x=${encoded}`, `/my/profile?x=${ODD_KEY.toLowerCase()}`]) {
      const r = await run(['api', 'GET', path], { key: ODD_KEY });
      expect(r.code, path).toBe(2);
      expect(r.stderr.toLowerCase()).not.toContain(ODD_KEY.slice(4, -4).toLowerCase());
      expect(r.stderr.toLowerCase()).not.toContain(encoded.slice(6, -6).toLowerCase());
    }
    expect(stub.requests).toHaveLength(0);
  });

  it('lets through arguments that merely look alike (no svc_ token, not the key)', async () => {
    stub.handler = () => ({ json: { data: stubCar('svc_abc') } });
    const r = await run(['car', 'svc_abc']);
    expect(r.code).toBe(0);
    expect(stub.requests[0].path).toBe('/cars/svc_abc');
  });
});

describe('the key is sent only over https or loopback http', () => {
  it('a keyed command against a remote http base URL is exit 2 with a hint, and sends nothing', async () => {
    const r = await run(['--base-url', 'http://192.0.2.1/v1', 'profile']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: refusing to send the API key to http://192.0.2.1: a key is sent only over https, or plain http to a loopback address\n' +
        'hint: use the https address of the API (`carrental config set base_url https://<host>/v1` or --base-url); anonymous commands (cars, car, quote --anonymous) still work over http\n',
    );
  });

  it.each([
    ['reserve', ['reserve', 'kia-soul-1', ...DATES, '-y']],
    ['cancel', ['cancel', UUID, '-y']],
    ['pay-link', ['pay-link', UUID]],
  ])('%s is refused before it journals anything', async (_name, argv) => {
    const r = await run(['--base-url', 'http://192.0.2.1/v1', '--timeout', '0.5', ...argv]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: refusing to send the API key to http://192.0.2.1');
    const state = home.env().CARRENTAL_STATE_DIR!;
    expect(existsSync(state) ? readdirSync(state) : []).toEqual([]);
  });

  it('a keyed command against loopback http sends the key', async () => {
    stub.handler = () => ({ json: { data: { uuid: UUID, first_name: 'Dana', is_approved_to_drive: true, payment_methods: [] } } });
    const r = await run(['profile']);
    expect(r.code).toBe(0);
    expect(stub.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('numbers out of range are usage errors before any request', () => {
  it.each([
    [['cars', '--offset', '100000000000000000000000'], '--offset must be at most 9007199254740991, got 100000000000000000000000'],
    [['cars', '--offset', '1e23'], '--offset must be a whole number, got "1e23"'],
    [['cars', '--limit', '1000000000'], '--limit must be 1..200, got 1000000000'],
    [['cars', '--limit', '0'], '--limit must be 1..200, got 0'],
    [['cars', '--make-id', '9007199254740993'], '--make-id must be at most 9007199254740991'],
    [['cars', '--model-id', '-1'], '--model-id must be at least 0, got -1'],
    [['--timeout', '1e30', 'cars'], '--timeout must be a number of seconds between 0 and 3600'],
    [['--timeout', 'Infinity', 'cars'], '--timeout must be a number of seconds between 0 and 3600'],
    [['trips', UUID, '--watch', '--interval', '1e12'], '--interval must be a number of seconds (at most 604800)'],
    [['pay-link', UUID, '--wait', '--wait-timeout', '99999999999'], '--wait-timeout must be a number of seconds (at most 604800)'],
  ])('%j', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(stub.requests).toHaveLength(0);
  });

  it('the largest allowed offset is sent as digits, never in exponent form', async () => {
    stub.handler = () => ({ json: { data: { cars: [], total: 0, has_more: false } } });
    const r = await run(['cars', '--offset', '9007199254740991']);
    expect(r.code).toBe(0);
    expect(stub.requests[0].query.get('offset')).toBe('9007199254740991');
  });
});

describe('response size cap', () => {
  it('a response above CARRENTAL_MAX_RESPONSE_BYTES ends the command with a clear error (exit 1)', async () => {
    stub.handler = () => ({ json: { data: { cars: Array.from({ length: 200 }, (_, i) => stubCar(`car-${i}`)), total: 200, has_more: false } } });
    const r = await run(['cars'], { env: { CARRENTAL_MAX_RESPONSE_BYTES: '4096' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: the response to GET /cars is larger than 4 KiB: stopped reading it\nhint: check the base URL; if the API really answers this much, raise CARRENTAL_MAX_RESPONSE_BYTES\n');
    expect((await run(['cars'])).code).toBe(0);
  });

  it('a malformed CARRENTAL_MAX_RESPONSE_BYTES is a usage error', async () => {
    const r = await run(['cars'], { env: { CARRENTAL_MAX_RESPONSE_BYTES: '16M' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CARRENTAL_MAX_RESPONSE_BYTES must be a whole number of bytes');
    expect(stub.requests).toHaveLength(0);
  });
});

describe('doctor on a terminal', () => {
  it('cleans the car alias its progress line shows (issue 11)', async () => {
    const alias = `kia${ESC}]0;owned\u0007${ESC}[2J\u202e-1`;
    stub.handler = (req) =>
      req.path === '/cars' ? { json: { data: { cars: [stubCar(alias)], total: 1, has_more: false } } } : { status: 400, json: { error: `Refused ${ESC}]0;x\u0007${KEY}\u202e`, error_code: `nope${ESC}[31m` } };
    const r = await run(['doctor'], { tty: true, env: { NO_COLOR: '1' } });
    // the progress line's own "erase the line" is the one escape sequence allowed
    const stderr = r.stderr.replaceAll('\r\u001b[2K', '');
    expect(stderr).toContain('probing GET /cars/kia-1…');
    expectSafe(stderr + r.stdout, KEY);
    expect(stub.requests.some((q) => q.path === `/cars/${encodeURIComponent(alias)}`)).toBe(true);
    // the report itself, in a pipe and as JSON: problems name the server's error, cleaned and masked
    for (const flags of [[], ['--json']]) {
      const piped = await run([...flags, 'doctor']);
      expect(piped.code).toBe(1);
      expectSafe(piped.stderr + piped.stdout, KEY);
      expect(piped.stderr).toContain('HTTP 400 nope: Refused svc_…cdef');
    }
  });
});
