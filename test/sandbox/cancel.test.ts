import { describe, expect } from 'vitest';
import { Trip, TripsList } from '../../src/api/schemas.js';
import { availableCar, expectError, newKey, reserve, test as harnessTest, tripBody } from './harness.js';


// Now is 2026-03-10 11:00 in Los Angeles.
const EARLY = ['2026-04-14T10:00', '2026-04-17T10:00'] as const;
const LATE = ['2026-03-11T20:00', '2026-03-13T20:00'] as const; // 33 hours away: inside the 48-hour window

const test = harnessTest
  .extend('detail', async ({ h, key }) => async (uuid: string) => Trip.parse((await h.call('GET', `/my/reservation/${uuid}`, { key })).json.data))
  .extend('cancel', async ({ h, key }) => (uuid: string, k = key) => h.call('DELETE', `/my/reservation/${uuid}`, { key: k, idempotencyKey: newKey() }))
  /** A reservation for the dates, with these payments made, and its detail before the test. */
  .extend('booked', async ({ h, key, detail }) => async ([from, to]: readonly [string, string], pay: ('rent' | 'deposit')[]) => {
    const car = await availableCar(h, from, to);
    const uuid = await reserve(h, key, tripBody(car.car_alias, from, to));
    for (const payment_type of pay) expect((await h.admin('POST', '/pay', { reservation_uuid: uuid, payment_type })).status).toBe(200);
    return { uuid, car, before: await detail(uuid) };
  });

describe('DELETE /my/reservation/{uuid}', () => {
  test('cancels an unpaid trip early for free: nothing to release or refund', async ({ h, key, detail, cancel, booked }) => {
    const { uuid } = await booked(EARLY, []);
    const res = await cancel(uuid);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: 'OK' });
    const d = await detail(uuid);
    expect(d.status).toBe('cancelled');
    expect(d.cancellation_outcome).toEqual({ status: 'cancelled', hold_release: { status: 'not_required' }, refund_review: { status: 'not_required' }, refunds: [] });
    expect(d.payment_status).toEqual({ type: 'settled' });
    expect(d.financial_summary!.trip_total_cents).toBe(0);
    expect(d.balance_cents).toBe(0);
    expect(d.invoices!.every((i) => i.billing_status === 'CANCELLED')).toBe(true);
    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    expect(trips.history.some((t) => t.uuid === uuid)).toBe(true);
    expect(trips.active.some((t) => t.uuid === uuid)).toBe(false);
  });

  test('cancels a paid trip with a deposit hold early: hold released, refund recorded and awaiting review', async ({ h, detail, cancel, booked }) => {
    const { uuid, before } = await booked(EARLY, ['rent', 'deposit']);
    const paid = before.invoices!.find((i) => i.type === 'RENT')!.amount;
    expect((await cancel(uuid)).status).toBe(200);
    const d = await detail(uuid);
    expect(d.cancellation_outcome).toMatchObject({
      status: 'cancelled',
      hold_release: { status: 'released' },
      refund_review: { status: 'pending' },
      refunds: [{ amount_cents: paid, status: 'recorded_unconfirmed', confirmed_at: null }],
    });
    expect(d.cancellation_outcome!.refunds![0].id).toMatch(/^rfd_/);
    // 2026-03-10 car-local plus the 7 refund days.
    expect(d.payment_status).toEqual({ type: 'refund', amount: paid, date: '2026-03-17' });
    expect(d.financial_summary).toEqual({ currency: 'USD', trip_total_cents: null, deposit_cents: before.financial_summary!.deposit_cents });
    expect(d.invoices!.find((i) => i.type === 'DEPOSIT')!.billing_status).toBe('CANCELLED');
    expect(d.invoices!.find((i) => i.type === 'REFUND')).toMatchObject({ amount: -paid, billing_status: 'ISSUED' });
    expect(d.is_booked).toBe(false);

    expect((await h.admin('POST', '/refunds/confirm', { reservation_uuid: uuid })).json).toEqual({ confirmed: 1 });
    const after = await detail(uuid);
    expect(after.cancellation_outcome).toMatchObject({ refund_review: { status: 'closed' }, refunds: [{ status: 'confirmed', confirmed_at: '2026-03-10T18:00' }] });
    expect(after.payment_status).toEqual({ type: 'settled' });
  });

  test('charges one day of rent when an unpaid trip is cancelled late, which is then owed', async ({ detail, cancel, booked }) => {
    const { uuid, before } = await booked(LATE, []);
    expect((await cancel(uuid)).status).toBe(200);
    const d = await detail(uuid);
    const fee = d.invoices!.find((i) => i.type === 'FEE_RENT')!;
    // One day's rent: the day rate, as the 2-day trip has no duration discount.
    expect(fee.amount).toBe(before.car!.blended_day_rate_cents);
    expect(fee.billing_status).toBe('ISSUED');
    expect(d.payment_status).toMatchObject({ type: 'to_pay', amount: fee.amount });
    expect(d.financial_summary!.trip_total_cents).toBe(fee.amount);
    expect(d.cancellation_outcome).toMatchObject({ hold_release: { status: 'not_required' }, refund_review: { status: 'not_required' } });
  });

  test('keeps the fee out of the refund when a paid trip is cancelled late', async ({ detail, cancel, booked }) => {
    const { uuid, before } = await booked(LATE, ['rent']);
    const paid = before.invoices!.find((i) => i.type === 'RENT')!.amount;
    expect((await cancel(uuid)).status).toBe(200);
    const d = await detail(uuid);
    const fee = d.invoices!.find((i) => i.type === 'FEE_RENT')!;
    expect(fee.billing_status).toBe('PAID');
    expect(d.cancellation_outcome!.refunds).toEqual([expect.objectContaining({ amount_cents: paid - fee.amount })]);
    expect(d.payment_status).toMatchObject({ type: 'refund', amount: paid - fee.amount });
  });

  test('refuses to cancel what cannot be cancelled with 400 reservation_not_cancellable', async ({ h, key, cancel, booked }) => {
    const { uuid } = await booked(EARLY, []);
    expect((await cancel(uuid)).status).toBe(200);
    expectError(await cancel(uuid), 400, 'reservation_not_cancellable');

    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    for (const t of trips.history.filter((t) => t.uuid !== uuid)) expectError(await cancel(t.uuid!), 400, 'reservation_not_cancellable');

    const started = await booked(LATE, []);
    await h.admin('POST', '/clock', { advance_seconds: 2 * 86_400 });
    expectError(await cancel(started.uuid), 400, 'reservation_not_cancellable');
  });

  test('answers 404 for an unknown or foreign reservation whatever its status', async ({ h, key, cancel }) => {
    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    for (const t of [...trips.active, ...trips.history]) expectError(await cancel(t.uuid!, h.sb.keys.other_customer), 404, 'reservation_not_found');
    expectError(await cancel('2b0c7d3e-0000-4000-8000-000000000000'), 404, 'reservation_not_found');
  });
});
