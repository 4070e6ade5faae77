// A check-in in the past is refused before any request (exit 2) by cars, quote, reserve
// and extend-link, measured against the server's clock when it is a sandbox's (the embedded
// one, or a served one on loopback, moved with `sandbox clock`), and relative dates read
// against that same clock. The hint
// gives a date that works, never the one that failed.
import { afterEach, describe, expect, it } from 'vitest';
import { PROBE_TIMEOUT_MS, probeOrigin } from '../../src/cmdkit/server-clock.js';
import { addLocalDays, localNow } from '../../src/input/dates.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);

// the served sandbox and the command agree: 2026-11-01 19:00 UTC, 11:00 in LA, 14:00 in Miami
const cli = (args: string[]) =>
  runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }), now: () => SANDBOX_NOW, sleep: async () => {} });
const PAST = ['--from', '2020-01-01 10:00', '--days', '2'];
const anAlias = async () => (await sb.api<{ cars: Array<{ car_alias: string }> }>('/cars?city=la&limit=1')).cars[0].car_alias;

describe('a past check-in: exit 2, nothing sent', () => {
  it('cars, quote, reserve and extend-link', async () => {
    const alias = await anAlias();
    await sb.clearRequests();
    for (const args of [['cars', ...PAST], ['cars', '--city', 'la', ...PAST], ['quote', alias, ...PAST], ['reserve', alias, ...PAST, '-y']]) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('error: --from 2020-01-01 10:00 is in the past: it is 2026-11-01 11:00 in America/Los_Angeles now');
      expect(r.stderr).toContain('hint: give a later --from, for example --from "2026-11-02 10:00"');
    }
    const ext = await cli(['extend-link', '6f1c1d7e-1111-4222-8333-444455556666', '--to', '2026-10-01']);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toContain('error: --to 2026-10-01 10:00 is in the past');
    expect(await sb.requests()).toEqual([]);
  });

  it('in the car zone once it is known: 10:30 today is past in LA (11:00 there), not before', async () => {
    const alias = await anAlias();
    const la = await cli(['cars', '--city', 'la', '--from', '2026-11-01 10:30', '--days', '1']);
    expect(la.code).toBe(2);
    expect(la.stderr).toContain('it is 2026-11-01 11:00 in America/Los_Angeles now');
    // 12:00 is past in Miami (14:00) but not in LA: without a city it goes to the server
    const anywhere = await cli(['cars', '--from', '2026-11-01 12:00', '--days', '1', '--json']);
    expect(anywhere.code, anywhere.stderr).toBe(0);
    const r = await cli(['reserve', alias, '--from', 'today 9am', '--days', '1', '-y']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --from 2026-11-01 09:00 is in the past');
  });
});

describe('the embedded sandbox: its own clock', () => {
  const embedded = (args: string[]) => runCommand(['--sandbox', ...args], { env: home.env(), sleep: async () => {} });
  const LA = 'America/Los_Angeles';

  it('relative dates and the past check follow `sandbox clock advance`', async () => {
    const moved = await embedded(['sandbox', 'clock', 'advance', '40d']);
    expect(moved.code, moved.stderr).toBe(0);
    const before = new Date(Date.now() + 40 * 86_400_000);
    const r = await embedded(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '2', '--limit', '1', '--json']);
    const after = new Date(Date.now() + 40 * 86_400_000);
    expect(r.code, r.stderr).toBe(0);
    const expected = [before, after].map((t) => `dates: ${addLocalDays(`${localNow(LA, t).slice(0, 10)}T10:00`, 1).replace('T', ' ')}`);
    expect(expected.some((line) => r.stderr.includes(line)), r.stderr).toBe(true);
    // ten days from this machine's now is the sandbox's past
    const machine = addLocalDays(`${localNow(LA, new Date()).slice(0, 10)}T10:00`, 10);
    const alias = JSON.parse(r.stdout).cars[0].car_alias;
    const q = await embedded(['quote', alias, '--from', machine, '--days', '2']);
    expect(q.code).toBe(2);
    expect(q.stderr).toContain(`error: --from ${machine.replace('T', ' ')} is in the past`);
  });
});

describe('a served sandbox: its clock, asked for once on loopback', () => {
  const LA = 'America/Los_Angeles';
  const DAY = 86_400_000;
  // the machine's clock (no `now` given): only the sandbox's has moved
  const served = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCommand(args, { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, ...extra }), sleep: async () => {} });
  const moveSandboxClock = (ms: number) => sb.admin('POST', '/clock', { now: new Date(Date.now() + ms).toISOString() });
  afterEach(() => sb.admin('POST', '/clock', { offset_ms: 0 }));

  it('a date past by the sandbox clock but future by the machine: exit 2, no /v1 request', async () => {
    await moveSandboxClock(40 * DAY);
    const machineFuture = addLocalDays(`${localNow(LA, new Date()).slice(0, 10)}T10:00`, 10).replace('T', ' ');
    await sb.clearRequests();
    const r = await served(['--base-url', sb.baseUrl, 'cars', '--city', 'la', '--from', machineFuture, '--days', '2']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: --from ${machineFuture} is in the past`);
    expect(await sb.requests()).toEqual([]);
  });

  it('`tomorrow` is the sandbox tomorrow, with the base URL from a profile too', async () => {
    await moveSandboxClock(40 * DAY);
    expect((await served(['config', 'set', 'base_url', sb.baseUrl])).code).toBe(0);
    const before = new Date(Date.now() + 40 * DAY);
    const r = await served(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '2', '--limit', '1', '--json']);
    const after = new Date(Date.now() + 40 * DAY);
    expect(r.code, r.stderr).toBe(0);
    const expected = [before, after].map((t) => `dates: ${addLocalDays(`${localNow(LA, t).slice(0, 10)}T10:00`, 1).replace('T', ' ')}`);
    expect(expected.some((line) => r.stderr.includes(line)), r.stderr).toBe(true);
    const sent = (await sb.requests()).filter((q) => q.path.startsWith('/v1/cars'));
    expect(sent.length).toBe(1);
    // --debug shows the probe like any request
    const traced = await served(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '2', '--limit', '1', '--json', '--debug']);
    expect(traced.stderr).toContain(`> GET ${new URL(sb.baseUrl).origin}/__sandbox/clock\n* a sandbox: dates are read on its clock, `);
  });
});

describe('a loopback server that is not a sandbox: the machine clock', () => {
  const LA = 'America/Los_Angeles';
  const MACHINE_NOW = new Date('2027-03-10T19:00:00Z'); // 11:00 in LA
  let stub: StubServer;
  afterEach(() => stub?.close());

  const page = { json: { data: { cars: [stubCar('a-1')], total: 1, has_more: false } } };
  const run = (args: string[]) => runCommand(['--base-url', stub.baseUrl, ...args], { env: home.env(), now: () => MACHINE_NOW, sleep: async () => {} });

  it('`tomorrow` and the past check read this machine clock; the probe is one GET, then the API', async () => {
    stub = await StubServer.start((req) => (req.path === '/cars' ? page : { status: 404, json: { error: { code: 'not_found', message: 'no route' } } }));
    const r = await run(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('dates: 2027-03-11 10:00 to 2027-03-13 10:00');
    expect(stub.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /__sandbox/clock', 'GET /cars']);
    expect(stub.requests[0].headers['x-api-key'] ?? stub.requests[0].headers.authorization).toBeUndefined();
    expect(stub.requests[1].query.get('date_from')).toBe('2027-03-11T10:00');
    expect((await run(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '2', '--json', '--debug'])).stderr).toContain("* not a sandbox: dates are read on this machine's clock");
    stub.requests.length = 0;
    const past = await run(['cars', '--city', 'la', '--from', '2027-03-10 10:00', '--days', '2']);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('it is 2027-03-10 11:00 in America/Los_Angeles now');
    expect(stub.requests.map((q) => q.path)).toEqual(['/__sandbox/clock']);
  });

  it('a server that does not answer the probe costs at most its short timeout', async () => {
    stub = await StubServer.start((req) => (req.path === '/cars' ? page : { delayMs: 5_000, json: { now: '2030-01-01T00:00:00Z', offset_ms: 0 } }));
    const started = Date.now();
    const r = await run(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('dates: 2027-03-11 10:00');
    expect(Date.now() - started).toBeLessThan(PROBE_TIMEOUT_MS + 1_500);
  });

  it('a sandbox-like answer from a server that is not on loopback is never asked for', () => {
    expect(probeOrigin('https://api.example.com/v1')).toBeUndefined();
    expect(probeOrigin('http://192.168.1.4:8080/v1')).toBeUndefined();
    expect(probeOrigin('https://127.0.0.1:8443/v1')).toBeUndefined();
    expect(probeOrigin('http://127.0.0.1:4780/v1')).toBe('http://127.0.0.1:4780');
    expect(probeOrigin('http://[::1]:4780/v1')).toBe('http://[::1]:4780');
    expect(probeOrigin('http://localhost:4780/v1')).toBe('http://localhost:4780');
  });
});
