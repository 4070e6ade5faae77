// Every row of the spec's Errors table, triggered over HTTP, with the status rules:
// 429 and 503 carry Retry-After (integer seconds, at least 1), 409 operation_in_progress
// carries Retry-After 2.
import { describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { type CallResult, type Harness, availableCar, expectError, newKey, reserve, startHarness, tripBody } from './harness.js';

const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

interface Row {
  code: string;
  status: number;
  retryAfter?: string;
  options?: SandboxOptions;
  trigger(h: Harness): Promise<CallResult>;
}

const dana = (h: Harness) => h.sb.keys.booking_write;
const firstNew = async (h: Harness) => (await h.admin('GET', '/reservations?customer=dana&status=new')).json.uuids[0] as string;
const quoteBody = async (h: Harness, extra: Record<string, unknown> = {}) => ({
  car_alias: (await availableCar(h, FROM, TO)).car_alias,
  date_checkin: FROM,
  date_checkout: TO,
  ...extra,
});
const fault = (spec: Record<string, unknown>): SandboxOptions => ({ faults: [spec as never] });

const ROWS: Row[] = [
  {
    code: 'rate_limited',
    status: 429,
    retryAfter: '60',
    options: { config: { catalogRateLimitPerMinute: 1 } },
    trigger: async (h) => {
      await h.call('GET', '/cars');
      return h.call('GET', '/cars');
    },
  },
  { code: 'invalid_credentials', status: 401, trigger: (h) => h.call('GET', '/my/trips', { key: 'svc_deadbeefdeadbeefdeadbeefdeadbeef' }) },
  { code: 'conflicting_credentials', status: 401, trigger: (h) => h.call('GET', '/my/trips', { key: dana(h), headers: { 'X-API-Key': dana(h) } }) },
  {
    code: 'api_key_operation_not_enabled',
    status: 403,
    options: fault({ kind: 'operation_not_enabled', operation: 'listTrips' }),
    trigger: (h) => h.call('GET', '/my/trips', { key: dana(h) }),
  },
  {
    code: 'api_key_write_upgrade_required',
    status: 403,
    trigger: async (h) => h.call('POST', '/my/reservation', { key: h.sb.keys.read_only, idempotencyKey: newKey(), body: tripBody('any', FROM, TO) }),
  },
  { code: 'card_payments_not_enabled', status: 403, trigger: (h) => h.call('POST', '/my/billing/cards/add-link', { key: h.sb.keys.no_card_payments }) },
  {
    code: 'authentication_unavailable',
    status: 503,
    retryAfter: '1',
    options: fault({ kind: 'error', operation: 'getProfile', code: 'authentication_unavailable' }),
    trigger: (h) => h.call('GET', '/my/profile', { key: dana(h) }),
  },
  {
    code: 'rate_limit_unavailable',
    status: 503,
    retryAfter: '1',
    options: fault({ kind: 'error', operation: 'listTrips', code: 'rate_limit_unavailable' }),
    trigger: (h) => h.call('GET', '/my/trips', { key: dana(h) }),
  },
  {
    code: 'manual_action_unavailable',
    status: 503,
    retryAfter: '1',
    options: fault({ kind: 'error', operation: 'extensionLink', code: 'manual_action_unavailable' }),
    trigger: async (h) => h.call('POST', `/my/reservation/${await firstNew(h)}/extension-link`, { key: dana(h) }),
  },
  {
    code: 'operation_outcome_unknown',
    status: 503,
    retryAfter: '1',
    options: fault({ kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true }),
    trigger: async (h) => h.call('POST', '/my/reservation', { key: dana(h), idempotencyKey: newKey(), body: tripBody((await availableCar(h, FROM, TO)).car_alias, FROM, TO) }),
  },
  { code: 'invalid_pagination', status: 400, trigger: (h) => h.call('GET', '/cars?limit=500') },
  { code: 'date_range_incomplete', status: 400, trigger: (h) => h.call('GET', `/cars?date_to=${TO}`) },
  { code: 'invalid_date_format', status: 400, trigger: (h) => h.call('GET', `/cars?date_from=14/04/2026&date_to=${TO}`) },
  { code: 'invalid_date_range', status: 400, trigger: (h) => h.call('GET', `/cars?date_from=${TO}&date_to=${FROM}`) },
  {
    code: 'promo_codes_disabled',
    status: 400,
    options: { config: { promoCodesEnabled: false } },
    trigger: async (h) => h.call('POST', '/reservation/quote', { body: await quoteBody(h, { promo_code: 'WELCOME10' }) }),
  },
  { code: 'promo_code_not_found', status: 400, trigger: async (h) => h.call('POST', '/reservation/quote', { body: await quoteBody(h, { promo_code: 'FREECAR' }) }) },
  { code: 'promo_code_invalid', status: 400, trigger: async (h) => h.call('POST', '/reservation/quote', { body: await quoteBody(h, { promo_code: 'SPRING20' }) }) },
  {
    code: 'promo_already_used',
    status: 400,
    trigger: async (h) => h.call('POST', '/reservation/quote', { key: dana(h), body: await quoteBody(h, { promo_code: 'FIRSTRIDE' }) }),
  },
  {
    code: 'active_reservation_exists',
    status: 409,
    options: { config: { maxActiveReservations: 2 } },
    trigger: async (h) => h.call('POST', '/my/reservation', { key: dana(h), idempotencyKey: newKey(), body: tripBody((await availableCar(h, FROM, TO)).car_alias, FROM, TO) }),
  },
  { code: 'reservation_not_found', status: 404, trigger: (h) => h.call('GET', '/my/reservation/6f1c2b1e-1111-4222-8333-944445555666', { key: dana(h) }) },
  { code: 'invalid_reservation_id', status: 400, trigger: (h) => h.call('POST', '/my/reservation/42/payment-link', { key: dana(h), body: { payment_type: 'rent' } }) },
  {
    code: 'invalid_request_body',
    status: 400,
    trigger: async (h) => h.call('POST', `/my/reservation/${await firstNew(h)}/payment-link`, { key: dana(h), body: 'payment_type=rent' }),
  },
  {
    code: 'invalid_payment_type',
    status: 400,
    trigger: async (h) => h.call('POST', `/my/reservation/${await firstNew(h)}/payment-link`, { key: dana(h), body: { payment_type: 'cash' } }),
  },
  {
    code: 'nothing_to_pay',
    status: 409,
    trigger: async (h) => {
      const uuid = await firstNew(h);
      await h.admin('POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
      return h.call('POST', `/my/reservation/${uuid}/payment-link`, { key: dana(h), body: { payment_type: 'rent' } });
    },
  },
  {
    code: 'reservation_cancelled',
    status: 409,
    trigger: async (h) => {
      const uuid = await firstNew(h);
      await h.call('DELETE', `/my/reservation/${uuid}`, { key: dana(h), idempotencyKey: newKey() });
      return h.call('POST', `/my/reservation/${uuid}/payment-link`, { key: dana(h), body: { payment_type: 'deposit' } });
    },
  },
  {
    code: 'reservation_not_active',
    status: 400,
    trigger: async (h) => {
      const uuid = await firstNew(h);
      await h.call('DELETE', `/my/reservation/${uuid}`, { key: dana(h), idempotencyKey: newKey() });
      return h.call('POST', `/my/reservation/${uuid}/extension-link`, { key: dana(h) });
    },
  },
  {
    code: 'invalid_checkout',
    status: 400,
    trigger: async (h) => h.call('POST', `/my/reservation/${await firstNew(h)}/extension-link`, { key: dana(h), body: { checkout: '2026-03-01T10:00' } }),
  },
  { code: 'idempotency_key_required', status: 400, trigger: async (h) => h.call('DELETE', `/my/reservation/${await firstNew(h)}`, { key: dana(h) }) },
  {
    code: 'idempotency_key_invalid',
    status: 400,
    trigger: async (h) => h.call('DELETE', `/my/reservation/${await firstNew(h)}`, { key: dana(h), idempotencyKey: 'too-short' }),
  },
  {
    code: 'idempotency_mismatch',
    status: 409,
    trigger: async (h) => {
      const k = newKey();
      const car = await availableCar(h, FROM, TO);
      await reserve(h, dana(h), tripBody(car.car_alias, FROM, TO));
      await h.call('POST', '/my/reservation', { key: dana(h), idempotencyKey: k, body: tripBody(car.car_alias, FROM, TO) });
      return h.call('POST', '/my/reservation', { key: dana(h), idempotencyKey: k, body: tripBody(car.car_alias, FROM, '2026-04-16T10:00') });
    },
  },
  {
    code: 'operation_in_progress',
    status: 409,
    retryAfter: '2',
    options: fault({ kind: 'latency', operation: 'cancelReservation', ms: 400, times: 1 }),
    trigger: async (h) => {
      const uuid = await firstNew(h);
      const k = newKey();
      const first = h.call('DELETE', `/my/reservation/${uuid}`, { key: dana(h), idempotencyKey: k });
      await new Promise((r) => setTimeout(r, 100));
      const second = await h.call('DELETE', `/my/reservation/${uuid}`, { key: dana(h), idempotencyKey: k });
      expect((await first).status).toBe(200);
      return second;
    },
  },
];

describe('the Errors table', () => {
  it('has a row here for each of its 31 codes', () => {
    expect(new Set(ROWS.map((r) => r.code)).size).toBe(31);
  });

  it.each(ROWS.map((r) => [r.code, r] as const))('%s', async (_code, row) => {
    const h = await startHarness(row.options);
    try {
      const res = await row.trigger(h);
      expectError(res, row.status, row.code);
      expect(res.headers.get('retry-after')).toBe(row.retryAfter ?? null);
    } finally {
      await h.close();
    }
  });
});

describe('status rules 4 to 6: the codes the sandbox chose', () => {
  it('reservation_not_cancellable, date_in_past, outside_operating_hours, invalid_protection_plan, car_not_available, driver_not_approved', async () => {
    const h = await startHarness();
    try {
      const key = dana(h);
      const history = (await h.call('GET', '/my/trips', { key })).json.data.history;
      expectError(await h.call('DELETE', `/my/reservation/${history[0].uuid}`, { key, idempotencyKey: newKey() }), 400, 'reservation_not_cancellable');
      const body = await quoteBody(h);
      expectError(await h.call('POST', '/reservation/quote', { body: { ...body, date_checkin: '2026-03-09T10:00' } }), 400, 'date_in_past');
      expectError(await h.call('POST', '/reservation/quote', { body: { ...body, date_checkin: '2026-04-14T23:00' } }), 400, 'outside_operating_hours');
      expectError(await h.call('POST', '/reservation/quote', { body: { ...body, options: { protection_plan: 'gold' } } }), 400, 'invalid_protection_plan');
      const car = body.car_alias;
      const uuid = await reserve(h, key, tripBody(car, FROM, TO));
      await h.admin('POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });
      expectError(await h.call('POST', '/reservation/quote', { body }), 409, 'car_not_available');
      expectError(await h.call('POST', '/my/reservation', { key: h.sb.keys.unverified, idempotencyKey: newKey(), body: tripBody(car, '2026-05-14T10:00', '2026-05-16T10:00') }), 409, 'driver_not_approved');
    } finally {
      await h.close();
    }
  });
});
