// `reserve` in-process against the stateful fake: validation before any request, the
// quote with the key, the body, the journal around the create, retries under one key.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { runCommand } from '../helpers/cli.js';
import { ALIAS, FAKE_NOW, KEYS, test as fakeTest } from './fake-api.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DATES = ['--from', '2026-12-01T10:00', '--to', '2026-12-04 10:00'];

const test = fakeTest
  /** What the command slept, in ms (its sleeps return at once). */
  .extend('sleeps', async () => [] as number[])
  .extend('reserve', async ({ fake, home, sleeps }) => (args: string[], opts: { key?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal; tty?: boolean } = {}) =>
    runCommand(['--base-url', fake.baseUrl, 'reserve', ...args], {
      now: FAKE_NOW,
      env: home.env({ CARRENTAL_API_KEY: opts.key ?? KEYS.write, CARRENTAL_WRITE_RETRIES: '3', ...opts.env }),
      sleep: async (ms) => void sleeps.push(ms),
      signal: opts.signal,
      tty: opts.tty,
    }),
  )
  .extend('journal', async ({ home }) => () => new Journal({ path: join(home.dir, 'state', 'journal.json') }))
  /** Entries whose outcome is unknown (done ones are kept for the replay window). */
  .extend('unfinished', async ({ journal }) => async () => (await journal().list()).filter((e) => e.state === 'pending'));

describe('reserve: before anything is sent', () => {
  test('refuses to book in a pipe without -y: exit 2 and no request at all', async ({ fake, reserve, unfinished }) => {
    const r = await reserve([ALIAS, ...DATES]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs a confirmation.*not a terminal.*-y/);
    expect(r.stderr).toContain('hint: nothing was sent');
    expect(fake.requests).toHaveLength(0);
    expect(await unfinished()).toEqual([]);
  });

  test('refuses with --no-input and with CI set, even on a terminal', async ({ fake, home, reserve }) => {
    for (const extra of [{ args: ['--no-input'], env: {} }, { args: [], env: { CI: 'true' } }]) {
      const r = await runCommand(['--base-url', fake.baseUrl, ...extra.args, 'reserve', ALIAS, ...DATES], { now: FAKE_NOW,
        env: home.env({ CARRENTAL_API_KEY: KEYS.write, ...extra.env }),
        tty: true,
        stdinTty: true,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/prompts are off/);
    }
    expect(fake.requests).toHaveLength(0);
  });

  test('asks for nothing in a script: missing alias or dates is a usage error', async ({ fake, reserve }) => {
    const r = await reserve(['-y', '--from', '2026-12-01T10:00']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing a car alias, --to');
    expect(fake.requests).toHaveLength(0);
  });

  test('validates dates, options and the idempotency key locally', async ({ fake, reserve }) => {
    const cases: Array<[string[], RegExp]> = [
      [[ALIAS, '--from', '2026-12-04T10:00', '--to', '2026-12-01T10:00', '-y'], /must be after --from/],
      [[ALIAS, '--from', '2026-02-30T10:00', '--to', '2026-03-04T10:00', '-y'], /not a real date/],
      [[ALIAS, ...DATES, '--delivery-address', '  ', '-y'], /--delivery-address is empty/],
      [[ALIAS, ...DATES, '--promo', '', '-y'], /--promo is empty/],
      [[ALIAS, ...DATES, '--idempotency-key', 'short', '-y'], /--idempotency-key must be 16 to 128/],
      [[ALIAS, ...DATES, '--idempotency-key', ' leading-space-key-123', '-y'], /--idempotency-key must be 16 to 128/],
    ];
    for (const [args, message] of cases) {
      const r = await reserve(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const bad = await reserve([ALIAS, ...DATES, '--protection', 'gold', '-y']);
    expect(bad.code).toBe(2);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('reserve: the booking', () => {
  test('quotes with the key, creates with every field, prints the uuid alone in a pipe and the next step on stderr', async ({ fake, reserve, unfinished }) => {
    const r = await reserve([ALIAS, ...DATES, '--protection', 'standard', '--mileage', 'unlimited', '--delivery-address', ' 5 Ocean Ave ', '--extra', 'gps', '--extra', 'child_seat', '--extra', 'gps', '--promo', 'WELCOME10', '-y']);
    expect(r.code, r.stderr).toBe(0);
    const [uuid] = [...fake.reservations.keys()];
    expect(r.stdout).toBe(`${uuid}\n`);
    expect(r.stderr).toContain(`next: pay the rent with \`carrental pay-link ${uuid}\``);
    expect(r.stderr).toContain('$340.99');
    expect(r.stderr).toMatch(/\$250\.00 \(not included in the total; held separately\)/);

    const [quote] = fake.requestsOf('quote');
    expect(quote.headers.authorization).toBe(`Bearer ${KEYS.write}`);
    const [create] = fake.requestsOf('create');
    const expected = {
      car_alias: ALIAS,
      date_checkin: '2026-12-01T10:00',
      date_checkout: '2026-12-04T10:00',
      options: { protection_plan: 'standard', mileage_type: 'unlimited', delivery_type: 'delivery', delivery_address: '5 Ocean Ave' },
      extras: ['child_seat', 'gps'],
      promo_code: 'WELCOME10',
    };
    expect(JSON.parse(create.body)).toEqual(expected);
    expect(JSON.parse(quote.body)).toEqual(expected);
    expect(String(create.headers['idempotency-key'])).toMatch(UUID_V4);
    expect(create.headers['x-api-key']).toBeUndefined();
    expect(await unfinished()).toEqual([]);
  });

  test('always sends the three options, with the defaults, and no delivery address for pickup', async ({ fake, reserve }) => {
    const r = await reserve([ALIAS, ...DATES, '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(fake.requestsOf('create')[0].body)).toEqual({
      car_alias: ALIAS,
      date_checkin: '2026-12-01T10:00',
      date_checkout: '2026-12-04T10:00',
      options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' },
      extras: [],
    });
  });

  test('prints the uuid as a JSON string with --json, and a labelled block on a terminal', async ({ fake, reserve }) => {
    const json = await reserve([ALIAS, ...DATES, '-y', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).uuid).toMatch(UUID_V4);

    fake.reservations.clear();
    const tty = await reserve([ALIAS, ...DATES, '-y'], { tty: true, env: { NO_COLOR: '1' } });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toMatch(/reservation\s+[0-9a-f-]{36}/);
    expect(tty.stdout).toContain('unpaid');
  });

  test('a definitive refusal settles the journal: 409 car not available is exit 5 and nothing stays pending', async ({ fake, reserve, unfinished }) => {
    fake.seed();
    const r = await reserve([ALIAS, ...DATES, '-y']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('car_not_available');
    expect(await unfinished()).toEqual([]);
  });

  test('a read_only key gets the upgrade message with the settings page, exit 3, nothing pending', async ({ fake, reserve, unfinished }) => {
    const r = await reserve([ALIAS, ...DATES, '-y'], { key: KEYS.readOnly });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('api_key_write_upgrade_required');
    expect(r.stderr).toMatch(/hint: .*booking_write.*https:\/\/app\.example\.test\/settings\/api-keys/);
    expect(await unfinished()).toEqual([]);
    expect(fake.reservations.size).toBe(0);
  });

  test('needs a key before anything is sent', async ({ fake, home, reserve }) => {
    const r = await runCommand(['--base-url', fake.baseUrl, 'reserve', ALIAS, ...DATES, '-y'], { env: home.env() });
    expect(r.code).toBe(3);
    expect(fake.requests).toHaveLength(0);
  });

  test('after a success, the same command again replays the same key (the same uuid); --new is a new command with a new key', async ({ fake, reserve }) => {
    const first = await reserve([ALIAS, ...DATES, '-y']);
    expect(first.code).toBe(0);
    const replay = await reserve([ALIAS, ...DATES, '-y']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(first.stdout);
    expect(replay.stderr).toContain('already reserved by this same command');
    fake.reservations.clear(); // the car is free again, so only the key decides
    const second = await reserve([ALIAS, ...DATES, '-y', '--new']);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('resuming');
    const [a, b, c] = fake.requestsOf('create').map((q) => q.headers['idempotency-key']);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(second.stdout).not.toBe(first.stdout);
  });

  test('--new while an identical reserve is unfinished: exit 2 before any request', async ({ fake, reserve }) => {
    const down = { status: 503, json: { error: 'down' } };
    fake.fault('create', down, down, down, down);
    expect((await reserve([ALIAS, ...DATES, '-y'])).code).toBe(6);
    const before = fake.requests.length;
    const r = await reserve([ALIAS, ...DATES, '-y', '--new']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has not finished .*--new could book twice/);
    expect(fake.requests.slice(before).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  test('uses --idempotency-key as given', async ({ fake, reserve }) => {
    const key = 'script-supplied-key-0001';
    const r = await reserve([ALIAS, ...DATES, '-y', '--idempotency-key', key]);
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requestsOf('create')[0].headers['idempotency-key']).toBe(key);
  });
});

describe('reserve: unknown outcomes', () => {
  test('retries a dropped connection after the commit with the same key and gets the original uuid', async ({ fake, reserve, unfinished }) => {
    fake.fault('create', { after: true, destroy: true });
    const r = await reserve([ALIAS, ...DATES, '-y']);
    expect(r.code, r.stderr).toBe(0);
    const creates = fake.requestsOf('create');
    expect(creates).toHaveLength(2);
    expect(creates[1].headers['idempotency-key']).toBe(creates[0].headers['idempotency-key']);
    expect(fake.reservations.size).toBe(1);
    expect(r.stdout.trim()).toBe([...fake.reservations.keys()][0]);
    expect(await unfinished()).toEqual([]);
  });

  test('waits out 409 operation_in_progress (Retry-After 2) and then succeeds', async ({ fake, sleeps, reserve }) => {
    fake.fault('create', { status: 409, headers: { 'retry-after': '2' }, json: { error: 'Operation in progress', error_code: 'operation_in_progress' } });
    const r = await reserve([ALIAS, ...DATES, '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(sleeps.some((ms) => ms >= 2000)).toBe(true);
    const keys = new Set(fake.requestsOf('create').map((q) => q.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect(fake.reservations.size).toBe(1);
  });

  test('keeps waiting out operation_in_progress beyond the attempt count (an identical run is busy), within the time budget', async ({ fake, sleeps, reserve }) => {
    const busy = { status: 409, headers: { 'retry-after': '2' }, json: { error: 'Operation in progress', error_code: 'operation_in_progress' } };
    fake.fault('create', ...Array.from({ length: 9 }, () => busy)); // more than the 4 attempts CARRENTAL_WRITE_RETRIES=3 allows
    const r = await reserve([ALIAS, ...DATES, '-y']);
    expect(r.code, r.stderr).toBe(0);
    const creates = fake.requestsOf('create');
    expect(creates).toHaveLength(10);
    expect(new Set(creates.map((q) => q.headers['idempotency-key'])).size).toBe(1);
    expect(sleeps.filter((ms) => ms >= 2000).length).toBeGreaterThanOrEqual(9);
    expect(fake.reservations.size).toBe(1);
  });

  test('gives up on operation_in_progress once the time budget is spent: exit 6, the entry stays', async ({ fake, reserve, unfinished }) => {
    const busy = { status: 409, headers: { 'retry-after': '2' }, json: { error: 'Operation in progress', error_code: 'operation_in_progress' } };
    fake.fault('create', busy);
    const r = await reserve([ALIAS, ...DATES, '-y'], { env: { CARRENTAL_WRITE_RETRY_SECONDS: '1' } });
    expect(r.code).toBe(6);
    expect(fake.requestsOf('create')).toHaveLength(1); // a 2 s wait does not fit a 1 s budget
    expect(r.stderr).toContain('rerunning the same command is safe');
    expect(await unfinished()).toHaveLength(1);
  });

  test('503 operation_outcome_unknown until retries run out: exit 6, entry kept, the rerun finishes with the same key', async ({ fake, reserve, unfinished }) => {
    const unknown = { status: 503, headers: { 'retry-after': '1' }, json: { error: 'The outcome of the operation is unknown', error_code: 'operation_outcome_unknown' } };
    fake.fault('create', { ...unknown, after: true }, unknown, unknown, unknown);
    const r = await reserve([ALIAS, ...DATES, '-y']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the outcome of this reserve is unknown');
    expect(r.stderr).toMatch(/hint: rerunning the same command is safe: it reuses idempotency key [0-9a-f-]{36}/);
    expect(fake.requestsOf('create')).toHaveLength(4); // CARRENTAL_WRITE_RETRIES=3
    const [entry] = await unfinished();
    expect(entry).toMatchObject({ operation: 'createReservation', target: ALIAS, attempts: 4 });
    expect(fake.requestsOf('create')[0].headers['idempotency-key']).toBe(entry.key);

    const quotesBefore = fake.requestsOf('quote').length;
    const again = await reserve([ALIAS, ...DATES, '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming a pending reserve from \d+ s ago with the same idempotency key/);
    // no fresh quote: the car is taken by this very reservation
    expect(fake.requestsOf('quote').length).toBe(quotesBefore);
    expect(fake.requestsOf('create').at(-1)!.headers['idempotency-key']).toBe(entry.key);
    expect(again.stdout.trim()).toBe([...fake.reservations.keys()][0]);
    expect(fake.reservations.size).toBe(1);
    expect(await unfinished()).toEqual([]);
  });

  test('does not reuse a journaled key for different options', async ({ fake, reserve, unfinished }) => {
    fake.fault('create', { status: 503, json: { error: 'down' } }, { status: 503, json: { error: 'down' } }, { status: 503, json: { error: 'down' } }, { status: 503, json: { error: 'down' } });
    expect((await reserve([ALIAS, ...DATES, '-y'])).code).toBe(6);
    const other = await reserve([ALIAS, ...DATES, '--protection', 'standard', '-y']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).not.toContain('resuming');
    const keys = fake.requestsOf('create').map((q) => q.headers['idempotency-key']);
    expect(keys.at(-1)).not.toBe(keys[0]);
    expect(await unfinished()).toHaveLength(1);
  });

  test('Ctrl-C while the request is in flight: exit 130, the entry stays, the message says a rerun is safe', async ({ fake, reserve, unfinished }) => {
    const controller = new AbortController();
    fake.fault('create', { after: true, delayMs: 300 });
    const pending = reserve([ALIAS, ...DATES, '-y'], { signal: controller.signal });
    while (fake.requestsOf('create').length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const r = await pending;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted: the outcome of this reserve is unknown; rerunning the same command is safe/);
    // said once, not a second bare `interrupted` line after it
    expect(r.stderr.match(/^interrupted\b/gm)).toHaveLength(1);
    expect(await unfinished()).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 350));
    const again = await reserve([ALIAS, ...DATES, '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(fake.reservations.size).toBe(1);
    expect(again.stdout.trim()).toBe([...fake.reservations.keys()][0]);
  });

  test('bounds the retries by CARRENTAL_WRITE_RETRIES and rejects a malformed value', async ({ fake, reserve }) => {
    fake.fault('create', { status: 500, json: { error: 'boom' } });
    const r = await reserve([ALIAS, ...DATES, '-y'], { env: { CARRENTAL_WRITE_RETRIES: '0' } });
    expect(r.code).toBe(6);
    expect(fake.requestsOf('create')).toHaveLength(1);
    const bad = await reserve([ALIAS, ...DATES, '-y'], { env: { CARRENTAL_WRITE_RETRIES: 'many' } });
    expect(bad.code).toBe(2);
  });
});
