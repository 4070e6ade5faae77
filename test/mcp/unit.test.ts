// The pure parts of `carrental mcp`: money and dates made explicit from the schemas, the
// X-Agent-Client value, annotations from the operations table, and tool errors.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { OPERATIONS } from '../../src/api/operations.js';
import * as S from '../../src/api/schemas.js';
import { CliError, usageError } from '../../src/errors.js';
import { annotateSchema, annotateValue } from '../../src/mcp/annotate.js';
import { errorResult, okResult } from '../../src/mcp/results.js';
import { agentClientName, annotationsFor } from '../../src/mcp/server.js';

const trip = {
  uuid: '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10',
  status: 'new',
  date_checkin: '2026-12-01T10:00',
  date_checkout: '2026-12-04T10:00',
  days: 3,
  balance_cents: 123456,
  extra_field: 'kept',
  car: {
    car_alias: 'a',
    name: 'A',
    city: 'miami',
    insurance_coverage_usd: 25000,
    prices: { car: { miles_included: 200, min_age: 21, min_age_without_young_driver_fee: 25, price_delivery: 0, price_deposit: 20000, price_extra_mile: 45, price_unlimited_mileage: 1000 }, extras: [], protection: { minimum: 0 }, trip_fee: 3500 },
  },
  financial_summary: { currency: 'USD', trip_total_cents: null, deposit_cents: -500 },
  payment_status: { type: 'refund', date: '2026-12-10' },
  invoices: [{ id: '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e11', created_at: '2026-11-20T18:00', currency: 'USD', type: 'RENT', status: 'PAID', billing_status: 'PAID', amount: 15000, description: 'Rent', items: [] }],
};

describe('annotate', () => {
  const value = annotateValue(S.Trip.parse(trip), S.Trip) as any;

  it('adds dollars next to every cents field and keeps the raw integers', () => {
    expect(value.balance_cents).toBe(123456);
    expect(value.balance_cents_formatted).toBe('$1,234.56');
    expect(value.financial_summary.deposit_cents_formatted).toBe('-$5.00');
    expect(value.financial_summary.trip_total_cents_formatted).toBe('unknown');
    expect(value.car.prices.car.price_extra_mile_formatted).toBe('$0.45');
    expect(value.car.prices.protection_formatted).toEqual({ minimum: '$0.00' });
    expect(value.car.insurance_coverage_usd_formatted).toBe('$25,000');
    expect(value.invoices[0].amount_formatted).toBe('$150.00');
    // counts are not money
    expect(value.days_formatted).toBeUndefined();
    expect(value.car.prices.car.miles_included_formatted).toBeUndefined();
  });

  it("labels car-local dates with the car's zone, and invoice created_at with UTC", () => {
    expect(value.date_checkin_formatted).toBe('2026-12-01 10:00 America/New_York');
    expect(value.payment_status.date_formatted).toBe('2026-12-10 America/New_York');
    expect(value.invoices[0].created_at_formatted).toBe('2026-11-20 18:00 UTC');
    expect(value.extra_field).toBe('kept');
  });

  it('names no zone it does not know', () => {
    const v = annotateValue({ status: 'verified', is_approved_to_drive: true, drivers_license: { status: 'approved', expires_at: '2027-01-01', expired: false, expiring_soon: false } }, S.VerificationStatus) as any;
    expect(v.drivers_license.expires_at_formatted).toBeUndefined();
    expect(annotateValue({ date_checkin: '2026-12-01T10:00' }, z.object({ date_checkin: S.LocalDateTime }), 'la')).toEqual({
      date_checkin: '2026-12-01T10:00',
      date_checkin_formatted: '2026-12-01 10:00 America/Los_Angeles',
    });
  });

  it('the annotated schema accepts exactly what annotateValue builds', () => {
    const schema = annotateSchema(S.Trip) as unknown as z.ZodMiniType;
    expect(z.safeParse(schema, value).success).toBe(true);
    expect(z.safeParse(schema, { ...value, balance_cents_formatted: 5 }).success).toBe(false);
  });
});

describe('X-Agent-Client', () => {
  it('names the host, then carrental, in printable ASCII within 64 characters', () => {
    expect(agentClientName({ name: 'claude-ai', version: '0.1.0' }, '1.2.3')).toBe('claude-ai/0.1.0 carrental/1.2.3');
    expect(agentClientName({ name: 'Visual Studio Code', version: '1.99' }, '1.2.3')).toBe('Visual-Studio-Code/1.99 carrental/1.2.3');
    expect(agentClientName({ name: 'x'.repeat(80), version: '1' }, '1.2.3')).toBe('x'.repeat(64));
    for (const v of [agentClientName({ name: 'Höst\u0007', version: 'ü' }, '1'), agentClientName({ name: 'a'.repeat(60), version: '9' }, '1')]) {
      expect(v).toMatch(/^[\x20-\x7e]{1,64}$/);
    }
  });

  it('is carrental/<version> when the host reports no name', () => {
    expect(agentClientName(undefined, '1.2.3')).toBe('carrental/1.2.3');
    expect(agentClientName({ name: '  ', version: '1' }, '1.2.3')).toBe('carrental/1.2.3');
  });
});

describe('annotations', () => {
  it('reads are readOnlyHint; create is an idempotent non-destructive write, cancel a destructive one', () => {
    const op = (id: string) => OPERATIONS.find((o) => o.id === id)!;
    for (const o of OPERATIONS.filter((o) => o.capability !== 'booking_write')) expect(annotationsFor(o, 't').readOnlyHint).toBe(true);
    expect(annotationsFor(op('createReservation'), 't')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(annotationsFor(op('cancelReservation'), 't')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });
});

describe('results', () => {
  const key = 'svc_abcdefghijklmnop1234';

  it('masks the key in structured content and text alike', () => {
    const r = okResult({ echoed: `key ${key}` }, [key]);
    expect(JSON.stringify(r)).not.toContain(key);
    expect((r.structuredContent as any).echoed).toBe('key svc_…1234');
  });

  it('a 429 says the wait and what to do, with the error_code and description', () => {
    const err = new CliError('unavailable', 'Too many requests', { api: { status: 429, error_code: 'rate_limited', description: `slow down ${key}`, retryAfter: 7, request_id: 'req_1' } });
    const r = errorResult(err, { secrets: [key] });
    expect(r.isError).toBe(true);
    const text = (r.content[0] as { text: string }).text;
    expect(text).toContain('error: Too many requests (rate_limited, request req_1)');
    expect(text).toContain('retry after: 7 s');
    expect(text).toContain('next step: wait 7 s, then call the tool again');
    expect(JSON.stringify(r)).not.toContain(key);
    expect(JSON.parse((r.content[1] as { text: string }).text).error).toMatchObject({ http_status: 429, retry_after_seconds: 7, error_code: 'rate_limited' });
  });

  it('a usage error says no request was sent; an unexpected failure is still a tool error', () => {
    expect((errorResult(usageError('date_checkin is wrong'), { secrets: [] }).content[0] as { text: string }).text).toMatch(/no request was sent/);
    const r = errorResult(new TypeError(`boom ${key}`), { secrets: [key] });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).not.toContain(key);
  });
});
