// The sandbox control commands (pay, card, extend, clock, fault, keys, reset) run
// in-process, against a running sandbox found by --port or --base-url and against the
// embedded state file, with --json and the usual exit codes.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, sandboxExtraCredentials, sandboxKeys, startSandbox } from '../../src/sandbox/index.js';
import { TestHome, runCommand } from '../helpers/cli.js';

const NOW = new Date('2026-11-20T18:00:00Z');
const FROM = '2026-12-01T10:00';
const TO = '2026-12-04T10:00';

let sb: RunningSandbox;
let port: string;
let home: TestHome;
beforeAll(async () => {
  sb = await startSandbox({ now: () => NOW, quiet: true });
  port = new URL(sb.baseUrl).port;
});
afterAll(() => sb.close());
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCommand(args, { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, CARRENTAL_SANDBOX_NOW: NOW.toISOString(), ...extra }) });
const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(sb.baseUrl + path, { ...init, headers: { Authorization: `Bearer ${sb.keys.booking_write}`, 'Content-Type': 'application/json', ...init.headers } });
  return (await res.json()) as any;
};

async function newReservation(): Promise<string> {
  const cars = (await (await fetch(`${sb.baseUrl}/cars?city=la&limit=200&date_from=${FROM}&date_to=${TO}`)).json()) as any;
  const car = cars.data.cars.find((c: any) => c.is_available);
  const body = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO, options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } };
  return (await api('/my/reservation', { method: 'POST', body: JSON.stringify(body), headers: { 'Idempotency-Key': crypto.randomUUID() } })).data;
}

describe('sandbox pay', () => {
  it('pays the rent and holds the deposit of a running sandbox (--port), after which the trip is settled', async () => {
    const uuid = await newReservation();
    const rent = await cli(['sandbox', 'pay', uuid, '--port', port, '--json']);
    expect(rent.code, rent.stderr).toBe(0);
    expect(JSON.parse(rent.stdout)).toMatchObject({ reservation: uuid, type: 'rent', paid_cents: expect.any(Number) });
    const deposit = await cli(['sandbox', 'pay', uuid, '--type', 'deposit', '--port', port]);
    expect(deposit.code, deposit.stderr).toBe(0);
    expect(deposit.stdout).toMatch(/deposit held\t\d+\.\d\d\n/);
    const trip = (await api(`/my/reservation/${uuid}`)).data;
    expect(trip.payment_status.type).toBe('settled');
    expect(trip.is_booked).toBe(true);
    // nothing left to pay: the sandbox's 409, exit 5
    const again = await cli(['sandbox', 'pay', uuid, '--port', port]);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('nothing_to_pay');
  });

  it('checks its input before any request, and says when no sandbox answers', async () => {
    expect((await cli(['sandbox', 'pay', 'not-a-uuid', '--port', port])).code).toBe(2);
    expect((await cli(['sandbox', 'pay', crypto.randomUUID(), '--type', 'tip', '--port', port])).code).toBe(2);
    expect((await cli(['--base-url', 'https://api.example.com/v1', 'sandbox', 'pay', crypto.randomUUID()])).code).toBe(2);
    const unknown = await cli(['sandbox', 'pay', crypto.randomUUID(), '--base-url', sb.baseUrl]);
    expect(unknown.code).toBe(4);
    // a port where nothing listens (the sandbox's own, once closed, is not reusable here)
    const closed = await startSandbox({ quiet: true });
    const deadPort = new URL(closed.baseUrl).port;
    await closed.close();
    const dead = await cli(['sandbox', 'keys', '--port', deadPort]);
    expect(dead.code).toBe(6);
    expect(dead.stderr).toContain(`no sandbox answers at http://127.0.0.1:${deadPort}`);
  });
});

describe('sandbox card, extend, keys', () => {
  it('removes and adds a customer card (the API sees it), on a running sandbox', async () => {
    const removed = await cli(['--base-url', sb.baseUrl, 'sandbox', 'card', 'remove', '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ customer: 'dana', removed: true });
    expect((await api('/my/billing/cards')).data).toEqual([]);
    const added = await cli(['sandbox', 'card', 'add', '--last4', '1881', '--exp', '07/2029', '--port', port, '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).card).toMatchObject({ card_brand: 'visa', last4: '1881', exp_month: 7, exp_year: 2029 });
    expect((await api('/my/billing/cards')).data).toMatchObject([{ last4: '1881' }]);
    expect((await cli(['sandbox', 'card', 'add', '--last4', '12', '--port', port])).code).toBe(2);
    expect((await cli(['sandbox', 'card', 'swap', '--port', port])).code).toBe(2);
  });

  it('extends a reservation to a new checkout', async () => {
    const uuid = await newReservation();
    const r = await cli(['sandbox', 'extend', uuid, '--to', '2026-12-06 10:00', '--port', port, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ reservation: uuid, current_checkout: TO, new_checkout: '2026-12-06T10:00', additional_days: 2 });
    expect((await api(`/my/reservation/${uuid}`)).data.date_checkout).toBe('2026-12-06T10:00');
    expect((await cli(['sandbox', 'extend', uuid, '--port', port])).code).toBe(2);
    expect((await cli(['sandbox', 'extend', uuid, '--to', '12/06/2026', '--port', port])).code).toBe(2);
  });

  it('extend takes a uuid prefix and every date form: a date alone (10:00), a relative one on the sandbox clock in the car zone; so does pay', async () => {
    const uuid = await newReservation();
    const day = await cli(['sandbox', 'extend', uuid.slice(0, 8), '--to', '2026-12-05', '--port', port, '--json']);
    expect(day.code, day.stderr).toBe(0);
    expect(JSON.parse(day.stdout)).toMatchObject({ reservation: uuid, new_checkout: '2026-12-05T10:00' });
    // the sandbox's now is 2026-11-20 10:00 in Los Angeles
    const rel = await cli(['sandbox', 'extend', uuid.slice(0, 8), '--to', '+16d 3pm', '--port', port, '--json']);
    expect(rel.code, rel.stderr).toBe(0);
    expect(JSON.parse(rel.stdout)).toMatchObject({ reservation: uuid, new_checkout: '2026-12-06T15:00' });
    // and pay, as every other command
    const r = await cli(['sandbox', 'pay', uuid.slice(0, 8), '--port', port, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ reservation: uuid, type: 'rent' });
    const none = await cli(['sandbox', 'pay', '0000000', '--port', port]);
    expect(none.code).toBe(4);
  });

  it('lists the demo keys, from a running sandbox or from the embedded state', async () => {
    const expected = { ...sandboxKeys(1), ...sandboxExtraCredentials(1) };
    const served = await cli(['sandbox', 'keys', '--port', port, '--json']);
    expect(JSON.parse(served.stdout)).toEqual(expected);
    const embedded = await cli(['sandbox', 'keys', '--json']);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(JSON.parse(embedded.stdout)).toEqual(expected);
  });
});

describe('sandbox clock', () => {
  it('moves the clock of the embedded state, and the next command sees it', async () => {
    const shown = await cli(['sandbox', 'clock', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ offset_ms: 0 });
    const advanced = await cli(['sandbox', 'clock', 'advance', '1d12h', '--json']);
    expect(JSON.parse(advanced.stdout).offset_ms).toBe(36 * 3600 * 1000);
    expect(JSON.parse((await cli(['sandbox', 'clock', 'show', '--json'])).stdout).offset_ms).toBe(36 * 3600 * 1000);
    const set = await cli(['sandbox', 'clock', 'set', '2026-12-24T17:00:00Z', '--json']);
    // the clock runs on from the instant it was set to
    expect(JSON.parse(set.stdout)).toMatchObject({ now: expect.stringMatching(/^2026-12-24T17:00:/), local: { la: '2026-12-24T09:00' } });
    for (const bad of [['set', '2026-12-24 17:00'], ['advance', 'tomorrow'], ['rewind', '1d']]) expect((await cli(['sandbox', 'clock', ...bad])).code, bad.join(' ')).toBe(2);
  });

  it('moves the clock of a running sandbox', async () => {
    const r = await cli(['sandbox', 'clock', 'advance', '2h', '--port', port, '--json']);
    expect(JSON.parse(r.stdout).offset_ms).toBe(2 * 3600 * 1000);
    // a negative duration after `--`, so that it is not read as an option
    expect(JSON.parse((await cli(['sandbox', 'clock', 'advance', '--port', port, '--json', '--', '-2h'])).stdout).offset_ms).toBe(0);
  });
});

describe('sandbox fault', () => {
  it('adds, lists and clears faults of a running sandbox, and they act on the API', async () => {
    const added = await cli(['sandbox', 'fault', 'add', 'error', '--operation', 'getProfile', '--code', 'authentication_unavailable', '--times', '1', '--port', port, '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ kind: 'error', operation: 'getProfile', code: 'authentication_unavailable', remaining: 1 });
    const listed = await cli(['sandbox', 'fault', 'list', '--port', port]);
    expect(listed.stdout).toMatch(/fault_\d+\s+getProfile\s+error code=authentication_unavailable\s+1/);
    const res = await fetch(`${sb.baseUrl}/my/profile`, { headers: { Authorization: `Bearer ${sb.keys.read_only}` } });
    expect(res.status).toBe(503);
    await cli(['sandbox', 'fault', 'add', 'latency', '--ms', '10', '--port', port]);
    expect(JSON.parse((await cli(['sandbox', 'fault', 'list', '--port', port, '--json'])).stdout)).toHaveLength(1);
    const cleared = await cli(['sandbox', 'fault', 'clear', '--port', port, '--json']);
    expect(JSON.parse(cleared.stdout)).toEqual([]);
  });

  it('refuses what cannot work before any request: the embedded state, a bad kind, operation or option', async () => {
    const embedded = await cli(['sandbox', 'fault', 'list']);
    expect(embedded.code).toBe(2);
    expect(embedded.stderr).toContain('faults live in a running sandbox');
    for (const args of [
      ['add', 'explode'],
      ['add', 'error', '--operation', 'bookEverything', '--code', 'internal_error'],
      ['add', 'latency'],
      ['add', 'drop', '--ms', '5'],
      ['add', 'error'],
      ['clear', 'all-of-them'],
    ]) {
      expect((await cli(['sandbox', 'fault', ...args, '--port', port])).code, args.join(' ')).toBe(2);
    }
    // what only the sandbox knows (an unknown error code) is its 400: still a usage error
    const code = await cli(['sandbox', 'fault', 'add', 'error', '--code', 'teapot', '--port', port]);
    expect(code.code).toBe(2);
    expect(JSON.parse((await cli(['sandbox', 'fault', 'list', '--port', port, '--json'])).stdout)).toEqual([]);
  });
});

describe('sandbox reset', () => {
  it('needs -y where nobody can answer, and then re-seeds the embedded state', async () => {
    await cli(['sandbox', 'clock', 'advance', '3d']);
    const refused = await cli(['sandbox', 'reset']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass -y');
    expect(JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout).offset_ms).toBe(3 * 86_400_000);
    const reset = await cli(['sandbox', 'reset', '-y', '--json']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout).offset_ms).toBe(0);
  });

  it('asks on a terminal and changes nothing when the answer is no', async () => {
    const { run } = await import('../../src/commands/sandbox-reset.js');
    await cli(['sandbox', 'clock', 'advance', '1d']);
    const asked: string[] = [];
    const prompter = { confirm: async (message: string) => (asked.push(message), false) } as any;
    const lines: string[] = [];
    const sink = { write: (s: string) => (lines.push(s), true), isTTY: true } as any;
    const ctx = {
      io: { stdin: { isTTY: true }, stdout: sink, stderr: sink },
      env: home.env(),
      globals: { json: false, yes: false, input: true, color: false, profile: 'default', sandbox: false, debug: false, timeoutMs: 30_000 },
      canPrompt: () => true,
      onCleanup: () => undefined,
      signal: new AbortController().signal,
    } as any;
    expect(await run({}, ctx, prompter)).toBe(1);
    expect(asked[0]).toMatch(/^Discard every reservation/);
    expect(lines.join('')).toContain('not reset: nothing changed');
    expect(JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout).offset_ms).toBe(86_400_000);
  });
});
