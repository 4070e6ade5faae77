// `api <METHOD> <path>`, in-process against the sandbox: the body as received, exit codes
// from the status, one credential header (or none), and input checked before sending.
import { describe, expect, it } from 'vitest';
import { runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { rawGet } from '../helpers/raw-api.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';
import { StubServer } from '../helpers/stub-server.js';

let sb: TestSandbox;
let home: TestHome;

const run = (argv: string[], opts: RunOpts & { key?: string | null } = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...argv], {
    // the CLI's clock is the sandbox's: its check-ins stay ahead whatever day the suite runs
    now: () => SANDBOX_NOW,
    sleep: async () => {},
    ...opts,
    env: home.env(opts.key === null ? {} : { CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write }),
  });

sandboxPerTest((started) => (sb = started), (fresh) => (home = fresh));

describe('api', () => {
  it('GET prints the body exactly as received, with one credential header', async () => {
    const r = await run(['api', 'GET', '/my/profile']);
    expect(r.code).toBe(0);
    const text = await (await fetch(`${sb.baseUrl}/my/profile`, { headers: { authorization: `Bearer ${sb.keys.booking_write}` } })).text();
    expect(r.stdout).toBe(`${text}\n`);
    expect(r.stderr).toBe('');
    const [req] = await sb.requests();
    expect(req).toMatchObject({ method: 'GET', operation: 'getProfile', status: 200, credentials: 'authorization' });
  });

  it('prints the bare invoice array as is, and accepts a lower-case method and a path without a slash', async () => {
    const uuid = (await rawGet(sb.baseUrl, '/my/trips', sb.keys.booking_write)).body.data.history[0].uuid;
    const r = await run(['api', 'get', `my/reservation/${uuid}/invoices`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual((await rawGet(sb.baseUrl, `/my/reservation/${uuid}/invoices`, sb.keys.booking_write)).body);
  });

  it('--anonymous sends no credential; a 401 exits 3 with the body on stdout and one error line', async () => {
    const r = await run(['api', 'GET', '/my/profile', '--anonymous']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ error_code: 'invalid_credentials' });
    expect(r.stderr).toMatch(/^error: .*\(invalid_credentials, request req_[0-9a-f]+\)\n/);
    expect((await sb.requests())[0].credentials).toBe('none');
  });

  it('maps statuses to exit codes like every command: 404 → 4', async () => {
    const r = await run(['api', 'GET', '/my/reservation/00000000-0000-4000-8000-000000000000']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).error_code).toBe('reservation_not_found');
  });

  it('POST with --body sends it unchanged', async () => {
    const car = (await sb.api<{ cars: Array<{ car_alias: string }> }>('/cars?limit=1')).cars[0].car_alias;
    const body = JSON.stringify({ car_alias: car, date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-04T10:00' });
    const r = await run(['api', 'POST', '/reservation/quote', '--anonymous', '--body', body]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data.final_total).toEqual(expect.any(Number));
  });

  it('--body - reads the body from stdin', async () => {
    const r = await run(['api', 'POST', '/my/billing/reservation/00000000-0000-4000-8000-000000000000/extension/price', '--body', '-'], {
      stdin: '{"modification_type":"extend","new_checkout_date_time_local":"2026-12-10T10:00"}',
    });
    expect(r.code).toBe(4);
    expect((await sb.requests())[0]).toMatchObject({ method: 'POST', operation: 'extensionPrice' });
  });

  it('refuses invalid JSON before sending anything (exit 2)', async () => {
    for (const argv of [['--body', '{"a":'], ['--body', '-']]) {
      const r = await run(['api', 'POST', '/reservation/quote', ...argv], { stdin: 'not json' });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: --body is not valid JSON/);
    }
    expect(await sb.requests()).toEqual([]);
  });

  it('refuses a credential header and a full URL before sending anything (exit 2)', async () => {
    for (const argv of [
      ['api', 'GET', '/my/profile', '-H', `Authorization: Bearer ${sb.keys.read_only}`],
      ['api', 'GET', '/my/profile', '--header', 'X-API-Key: svc_abcdefgh'],
      ['api', 'GET', 'http://example.com/v1/my/profile'],
      ['api', 'FETCH', '/my/profile'],
    ]) {
      const r = await run(argv);
      expect({ argv: argv.join(' '), code: r.code }).toEqual({ argv: argv.join(' '), code: 2 });
      expect(r.stderr).not.toContain(sb.keys.read_only);
    }
    expect(await sb.requests()).toEqual([]);
  });

  it('-H adds headers; -i prints the status line and headers on stderr', async () => {
    const r = await run(['api', 'POST', '/my/billing/cards/add-link', '-H', 'X-Agent-Client: my-script/2', '-i']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^HTTP 200\n/);
    expect(r.stderr).toMatch(/^x-request-id: req_[0-9a-f]+$/m);
    expect(JSON.parse(r.stdout).data.action).toBe('add_payment_card');
    const flows = (await sb.admin<{ flows: any[] }>('GET', '/agent-flows?customer=dana')).flows;
    expect(flows.pop().agent_client).toBe('my-script/2');
  });

  it('without a key sends none and says so', async () => {
    const r = await run(['api', 'GET', '/my/profile'], { key: null });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no API key configured');
    expect((await sb.requests())[0].credentials).toBe('none');
  });

  it('sends no key to the operations the spec marks anonymous, even with one configured', async () => {
    const cars = await run(['api', 'GET', '/cars?limit=1']);
    expect(cars.code).toBe(0);
    expect(cars.stderr).toBe('');
    expect(JSON.parse(cars.stdout).data.cars).toHaveLength(1);
    const alias = JSON.parse(cars.stdout).data.cars[0].car_alias;
    expect((await run(['api', 'GET', `/cars/${alias}`])).code).toBe(0);
    expect((await run(['api', 'GET', '/my/profile'])).code).toBe(0);
    expect((await sb.requests()).map((r) => [r.operation, r.credentials])).toEqual([
      ['listCars', 'none'],
      ['getCar', 'none'],
      ['getProfile', 'authorization'],
    ]);
  });

  it('a 403 api_key_operation_not_enabled exits 3 with the explanation', async () => {
    await sb.fault({ kind: 'operation_not_enabled', operation: 'listCards', times: 1 });
    const r = await run(['api', 'GET', '/my/billing/cards']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('opens to API keys');
  });

  it('indents JSON on a terminal', async () => {
    const r = await run(['api', 'GET', '/my/billing/cards'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\{\n {2}"data": \[/);
  });

  it('masks the key when a server echoes it back, in the body, the headers and the error', async () => {
    const stub = await StubServer.start((req) => ({
      status: 400,
      headers: { 'x-echo': String(req.headers.authorization) },
      json: { error: `bad ${req.headers.authorization}`, echoed: req.headers.authorization },
    }));
    try {
      const r = await runCommand(['--base-url', stub.baseUrl, 'api', 'GET', '/my/profile', '-i'], {
        env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }),
      });
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain(sb.keys.booking_write);
      expect(r.stdout).toContain(`svc_…${sb.keys.booking_write.slice(-4)}`);
      expect(stub.requests[0].headers.authorization).toBe(`Bearer ${sb.keys.booking_write}`);
    } finally {
      await stub.close();
    }
  });
});

describe('api --paginate', () => {
  it('follows offset until has_more is false, one page after the other, and prints one merged document', async () => {
    const total = (await sb.api<{ total: number }>('/cars?city=la&limit=1')).total;
    await sb.clearRequests();
    const r = await run(['api', 'GET', '/cars?city=la&limit=30', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.data.cars).toHaveLength(total);
    expect(doc.data).toMatchObject({ total, has_more: false });
    expect(new Set(doc.data.cars.map((c: { car_alias: string }) => c.car_alias)).size).toBe(total);
    const log = await sb.requests();
    expect(log).toHaveLength(Math.ceil(total / 30));
    expect(log.every((q) => q.credentials === 'none')).toBe(true);
  });

  it('--jq on the merged document; a list that is not paged is a usage error', async () => {
    const total = (await sb.api<{ total: number }>('/cars?limit=1')).total;
    const r = await run(['api', 'GET', '/cars?limit=200', '--paginate', '--jq', '.data.cars | length']);
    expect(r.stdout).toBe(`${total}\n`);
    const p = await run(['api', 'GET', '/my/profile', '--paginate']);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('not a paged list');
    expect((await run(['api', 'POST', '/reservation/quote', '--paginate'])).code).toBe(2);
  });
});

describe('api create and cancel are journaled like reserve and cancel', () => {
  const FROM = '2026-12-20T10:00';
  const TO = '2026-12-23T10:00';
  const createBody = (alias: string, extras: string[]) =>
    JSON.stringify({ car_alias: alias, date_checkin: FROM, date_checkout: TO, options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' }, extras });
  const activeCount = async () => (await rawGet(sb.baseUrl, '/my/trips', sb.keys.booking_write)).body.data.active.length;

  it('POST /my/reservation gets an Idempotency-Key; after an unknown outcome the rerun reuses it: one reservation', async () => {
    await sb.admin('POST', '/reset');
    const alias = (await sb.api<{ cars: Array<{ car_alias: string; prices: { extras: Array<{ item_type: string }> } }> }>('/cars?city=la&limit=1')).cars[0];
    const before = await activeCount();
    await sb.fault({ kind: 'drop', operation: 'createReservation', when: 'after_commit', times: 5 });
    const env = { CARRENTAL_WRITE_RETRIES: '0' };
    const first = await runCommand(['--base-url', sb.baseUrl, 'api', 'POST', '/my/reservation', '--body', createBody(alias.car_alias, [])], {
      sleep: async () => {},
      env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, ...env }),
    });
    expect(first.code).toBe(6);
    expect(first.stderr).toContain('reuses idempotency key');
    await sb.admin('DELETE', '/faults');
    const again = await run(['api', 'POST', '/my/reservation', '--body', createBody(alias.car_alias, [])]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming a pending reserve');
    expect(JSON.parse(again.stdout).data).toMatch(/^[0-9a-f-]{36}$/);
    expect(await activeCount()).toBe(before + 1);
    const creates = (await sb.requests()).filter((q) => q.operation === 'createReservation');
    expect(creates.length).toBeGreaterThanOrEqual(2);
  });

  it('a --jq that fails after the raw create: exit 7 naming the reservation, nothing pending', async () => {
    await sb.admin('POST', '/reset');
    const alias = (await sb.api<{ cars: Array<{ car_alias: string }> }>('/cars?city=la&limit=1')).cars[0];
    const r = await run(['api', 'POST', '/my/reservation', '--body', createBody(alias.car_alias, []), '--jq', '.data | .x']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/error: reserved [0-9a-f-]{36}, but printing the result failed: --jq: /);
    const pending = await run(['pending', '--json']);
    expect(JSON.parse(pending.stdout)).toEqual([]);
  });

  it('a raw create and a `reserve` of the same booking are one command (extras in any order)', async () => {
    await sb.admin('POST', '/reset');
    const car = (await sb.api<{ cars: Array<{ car_alias: string; prices: { extras: Array<{ item_type: string }> } }> }>('/cars?city=la&limit=5')).cars.find((c) => c.prices.extras.length >= 2)!;
    const extras = car.prices.extras.slice(0, 2).map((e) => e.item_type);
    const before = await activeCount();
    await sb.fault({ kind: 'drop', operation: 'createReservation', when: 'after_commit', times: 5 });
    const raw = await runCommand(['--base-url', sb.baseUrl, 'api', 'POST', '/my/reservation', '--body', createBody(car.car_alias, [...extras].reverse())], {
      sleep: async () => {},
      env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, CARRENTAL_WRITE_RETRIES: '0' }),
    });
    expect(raw.code).toBe(6);
    await sb.admin('DELETE', '/faults');
    const reserve = await run(['reserve', car.car_alias, '--from', FROM, '--to', TO, ...extras.flatMap((e) => ['--extra', e]), '-y']);
    expect(reserve.code, reserve.stderr).toBe(0);
    expect(reserve.stderr).toContain('resuming a pending reserve');
    expect(await activeCount()).toBe(before + 1);
  });

  it('DELETE /my/reservation/{uuid} sends a key, and a user-given Idempotency-Key is used as is', async () => {
    await sb.admin('POST', '/reset');
    const uuid = (await rawGet(sb.baseUrl, '/my/trips', sb.keys.booking_write)).body.data.active[0].uuid;
    const key = 'my-own-key-0123456789';
    const r = await run(['api', 'DELETE', `/my/reservation/${uuid}`, '-H', `Idempotency-Key: ${key}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ data: 'OK' });
    // the same raw cancel again, within the replay window: the journal replays the same key,
    // and the server answers with the original result
    const again = await run(['api', 'DELETE', `/my/reservation/${uuid}`]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ data: 'OK' });
    const cancels = (await sb.requests()).filter((q) => q.operation === 'cancelReservation');
    expect(cancels).toHaveLength(2);
    expect(new Set(cancels.map((q) => q.idempotency_key))).toEqual(new Set([key]));
  });
});
