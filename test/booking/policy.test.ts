// The pure rules behind the booking commands: which failures are retried under the same
// key, which answers end a command, the retry bounds, the request body, the rerun line.
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { formatAge, isDefinitiveRefusal, isOutcomeUnknown, journalBaseUrl, writeRetryPolicy } from '../../src/booking/journaled-write.js';
import { rerunCommand, shellWord } from '../../src/commands/pending.js';
import { buildCreateRequest } from '../../src/booking/create-request.js';
import { parseReserveInput } from '../../src/commands/reserve.js';
import type { JournalEntry } from '../../src/store/journal.js';

const apiError = (status: number, error_code?: string) => new CliError('api', 'x', { api: { status, error_code } });

describe('isOutcomeUnknown (retried with the same key)', () => {
  it('retries network failures, 5xx, 429 and 409 operation_in_progress only', () => {
    expect(isOutcomeUnknown({ kind: 'network', timedOut: true })).toBe(true);
    expect(isOutcomeUnknown({ kind: 'network', timedOut: false, code: 'ECONNRESET' })).toBe(true);
    for (const status of [500, 502, 503, 504, 429]) expect(isOutcomeUnknown({ kind: 'status', status })).toBe(true);
    expect(isOutcomeUnknown({ kind: 'status', status: 503, errorCode: 'operation_outcome_unknown' })).toBe(true);
    expect(isOutcomeUnknown({ kind: 'status', status: 409, errorCode: 'operation_in_progress' })).toBe(true);
    expect(isOutcomeUnknown({ kind: 'status', status: 409, errorCode: 'idempotency_mismatch' })).toBe(false);
    expect(isOutcomeUnknown({ kind: 'status', status: 400 })).toBe(false);
    expect(isOutcomeUnknown({ kind: 'status', status: 403, errorCode: 'api_key_write_upgrade_required' })).toBe(false);
  });
});

describe('isDefinitiveRefusal (settles the journal)', () => {
  it('is a 4xx other than 429 and 409 operation_in_progress', () => {
    expect(isDefinitiveRefusal(apiError(400))).toBe(true);
    expect(isDefinitiveRefusal(apiError(403, 'api_key_write_upgrade_required'))).toBe(true);
    expect(isDefinitiveRefusal(apiError(409, 'active_reservation_exists'))).toBe(true);
    expect(isDefinitiveRefusal(apiError(409, 'idempotency_mismatch'))).toBe(true);
    expect(isDefinitiveRefusal(apiError(409, 'operation_in_progress'))).toBe(false);
    expect(isDefinitiveRefusal(apiError(429, 'rate_limited'))).toBe(false);
    expect(isDefinitiveRefusal(apiError(503, 'operation_outcome_unknown'))).toBe(false);
  });

  it('keeps the entry for a malformed 2xx, a network failure and Ctrl-C', () => {
    expect(isDefinitiveRefusal(new CliError('api', 'malformed response'))).toBe(false);
    expect(isDefinitiveRefusal(new CliError('unavailable', 'connection reset'))).toBe(false);
    expect(isDefinitiveRefusal(new CliError('interrupted', 'interrupted'))).toBe(false);
    expect(isDefinitiveRefusal(new Error('boom'))).toBe(false);
  });
});

describe('writeRetryPolicy', () => {
  it('defaults to 5 attempts within 60 s, overridable by the hidden env vars', () => {
    expect(writeRetryPolicy({})).toMatchObject({ maxAttempts: 5, maxTotalMs: 60_000 });
    expect(writeRetryPolicy({ CARRENTAL_WRITE_RETRIES: '0', CARRENTAL_WRITE_RETRY_SECONDS: '5' })).toMatchObject({ maxAttempts: 1, maxTotalMs: 5_000 });
    expect(() => writeRetryPolicy({ CARRENTAL_WRITE_RETRIES: '-1' })).toThrow(/whole number/);
    expect(() => writeRetryPolicy({ CARRENTAL_WRITE_RETRY_SECONDS: '1e9' })).toThrow(/whole number/);
  });
});

describe('formatAge and the journal identity of the sandbox', () => {
  it('formats ages for people', () => {
    expect([0, 12_000, 95_000, 3 * 3_600_000, 3 * 86_400_000].map(formatAge)).toEqual(['0 s', '12 s', '2 min', '3 h', '3 d']);
  });
  it('records the embedded sandbox as "sandbox", whatever its port', () => {
    expect(journalBaseUrl({ sandbox: true, baseUrl: 'http://127.0.0.1:41237/v1' })).toBe('sandbox');
    expect(journalBaseUrl({ sandbox: false, baseUrl: 'https://api.example.com/v1' })).toBe('https://api.example.com/v1');
  });
});

describe('the reservation request', () => {
  it('sends the three options always, extras as a sorted set, delivery only with an address', () => {
    const d = parseReserveInput({ alias: 'a', from: '2026-12-01 10:00', to: '2026-12-03T10:00', extra: ['gps', ' child_seat ', 'gps'] });
    expect(buildCreateRequest(d as Parameters<typeof buildCreateRequest>[0])).toEqual({
      car_alias: 'a',
      date_checkin: '2026-12-01T10:00',
      date_checkout: '2026-12-03T10:00',
      options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' },
      extras: ['child_seat', 'gps'],
    });
    const delivery = buildCreateRequest({ alias: 'a', from: 'x', to: 'y', deliveryAddress: '5 Ocean Ave', promo: 'P', protection: 'standard', mileage: 'unlimited' });
    expect(delivery.options).toEqual({ protection_plan: 'standard', mileage_type: 'unlimited', delivery_type: 'delivery', delivery_address: '5 Ocean Ave' });
    expect(delivery.promo_code).toBe('P');
  });

  it('spells what the server treats as equal one way: the same booking is the same command and the same body', () => {
    const build = (input: Parameters<typeof parseReserveInput>[0]) => buildCreateRequest(parseReserveInput(input) as Parameters<typeof buildCreateRequest>[0]);
    const plain = build({ alias: 'a', from: '2026-12-01T10:00', to: '2026-12-03T10:00', extra: ['child_seat', 'gps'], promo: 'SAVE10', deliveryAddress: '5 Ocean Ave' });
    const spelled = build({
      alias: 'a',
      from: '2026-12-01 10:00', // a space instead of T
      to: ' 2026-12-03T10:00 ',
      extra: [' gps', 'child_seat', 'gps'], // order and duplicates
      promo: ' save10 ', // letter case and spaces
      deliveryAddress: '  5 Ocean Ave ',
      protection: 'minimum', // the defaults, spelled out
      mileage: 'limited',
    });
    expect(spelled).toEqual(plain);
    expect(JSON.stringify(spelled)).toBe(JSON.stringify(plain));
    expect(plain.promo_code).toBe('SAVE10');
  });
});

describe('rerunCommand', () => {
  const entry = (over: Partial<JournalEntry>): JournalEntry => ({
    id: 'i',
    key: 'k',
    profile: 'default',
    baseUrl: 'https://api.example.com/v1',
    credential: 'c'.repeat(32),
    state: 'pending',
    operation: 'createReservation',
    target: 'a',
    request: {},
    createdAt: '2026-11-20T10:00:00Z',
    updatedAt: '2026-11-20T10:00:00Z',
    attempts: 1,
    ...over,
  });

  it('spells the same command back, quoting for the shell only where needed', () => {
    const request = buildCreateRequest({ alias: 'kia-soul-1277', from: '2026-12-01T10:00', to: '2026-12-04T10:00', deliveryAddress: "1 O'Hara St", extras: ['gps'], promo: 'SPRING' });
    expect(rerunCommand(entry({ request, profile: 'work' }))).toBe(
      "carrental --base-url https://api.example.com/v1 --profile work reserve kia-soul-1277 --from 2026-12-01T10:00 --to 2026-12-04T10:00 --delivery-address '1 O'\\''Hara St' --extra gps --promo SPRING",
    );
    expect(rerunCommand(entry({ baseUrl: 'sandbox', operation: 'cancelReservation', request: { uuid: 'u-1' } }))).toBe('carrental --sandbox cancel u-1');
    expect(shellWord('a b')).toBe("'a b'");
    expect(shellWord('plain-word_1.2')).toBe('plain-word_1.2');
  });
});
