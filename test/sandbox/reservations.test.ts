import { describe, expect } from 'vitest';
import { Invoice, Quote, Trip, TripsList } from '../../src/api/schemas.js';
import { availableCar, expectError, newKey, reserve, test as harnessTest, tripBody } from './harness.js';


const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

const test = harnessTest.extend('quote', async ({ h }) => (body: unknown, k?: string) => h.call('POST', '/reservation/quote', { body, key: k }));

describe('one price everywhere', () => {
  test('car list total = quote final_total = reservation amounts, to the cent, with default options', async ({ h, key, quote }) => {
    const car = await availableCar(h, FROM, TO);
    const q = Quote.parse((await quote({ car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO })).json.data);
    expect(q.final_total).toBe(car.display_trip_total_cents);
    expect(q.rent_subtotal - q.rent_discount_amount).toBe(car.rent_trip_total_cents);
    expect(q.deposit_cents).toBe(car.prices.car.price_deposit);

    const uuid = await reserve(h, key, tripBody(car.car_alias, FROM, TO));
    const trip = Trip.parse((await h.call('GET', `/my/reservation/${uuid}`, { key })).json.data);
    const rent = trip.invoices!.find((i) => i.type === 'RENT')!;
    expect(rent.amount).toBe(q.final_total);
    expect(rent.items.reduce((s, i) => s + i.amount!, 0)).toBe(q.final_total);
    expect(trip.balance_cents).toBe(q.final_total);
    expect(trip.financial_summary).toEqual({ currency: 'USD', trip_total_cents: q.final_total, deposit_cents: q.deposit_cents });
    expect(trip.payment_status).toMatchObject({ type: 'to_pay', amount: q.final_total });
    expect(trip.days).toBe(3);
  });

  test('agrees with every option selected, a promo code and a duration discount', async ({ h, key, quote }) => {
    const from = '2026-05-01T09:00';
    const to = '2026-05-09T18:00';
    const list = (await h.call('GET', `/cars?city=la&limit=200&date_from=${from}&date_to=${to}`)).json.data.cars;
    const car = list.find((c: any) => c.is_available && c.prices.extras.length >= 2);
    const extras = car.prices.extras.slice(0, 2).map((e: any) => e.item_type);
    const body = {
      ...tripBody(car.car_alias, from, to, { extras, promo_code: 'save50' }),
      options: { protection_plan: 'standard', mileage_type: 'unlimited', delivery_type: 'delivery', delivery_address: '200 Main St' },
    };
    const q = Quote.parse((await quote(body, key)).json.data);
    const days = 9;
    expect(q.rent_subtotal).toBe(car.blended_day_rate_cents * days);
    expect(q.rent_discount_amount).toBe(Math.round(q.rent_subtotal * 0.1));
    expect(q.promo_discount_amount).toBe(5000);
    expect(q.protection_total).toBe(car.prices.protection.standard * days);
    expect(q.unlimited_mileage_total).toBe(car.prices.car.price_unlimited_mileage * days);
    expect(q.delivery_total).toBe(car.prices.car.price_delivery);
    expect(q.extras_total).toBe(car.prices.extras.slice(0, 2).reduce((s: number, e: any) => s + e.price_day * days, 0));
    expect(q.final_total).toBe(
      q.rent_subtotal - q.rent_discount_amount - q.promo_discount_amount! + q.protection_total + q.trip_fee_total + q.delivery_total! + q.extras_total! + q.unlimited_mileage_total!,
    );
    expect(q.discounted_day_rate).toBe(Math.round((q.rent_subtotal - q.rent_discount_amount) / days));

    const uuid = await reserve(h, key, body);
    const trip = Trip.parse((await h.call('GET', `/my/reservation/${uuid}`, { key })).json.data);
    expect(trip.financial_summary!.trip_total_cents).toBe(q.final_total);
    expect(trip.invoices!.find((i) => i.type === 'RENT')!.amount).toBe(q.final_total);
    expect(trip.payment_status!.amount).toBe(q.final_total);
  });
});

describe('quote and create refuse what the rules refuse', () => {
  const cases: [string, (alias: string) => unknown, number, string][] = [
    ['a body that is not JSON', () => '{"car_alias":', 400, 'invalid_request_body'],
    ['a body that is not an object', () => [1, 2], 400, 'invalid_request_body'],
    ['a missing car_alias', () => ({ date_checkin: FROM, date_checkout: TO }), 400, 'invalid_request'],
    ['a malformed date', (a) => ({ car_alias: a, date_checkin: '2026-04-14 10:00', date_checkout: TO }), 400, 'invalid_date_format'],
    ['an impossible date', (a) => ({ car_alias: a, date_checkin: '2026-04-31T10:00', date_checkout: TO }), 400, 'invalid_date_format'],
    ['checkout before checkin', (a) => ({ car_alias: a, date_checkin: TO, date_checkout: FROM }), 400, 'invalid_date_range'],
    ['a checkin in the past', (a) => ({ car_alias: a, date_checkin: '2026-03-10T10:00', date_checkout: '2026-03-12T10:00' }), 400, 'date_in_past'],
    ['a pickup before opening', (a) => ({ car_alias: a, date_checkin: '2026-04-14T06:30', date_checkout: TO }), 400, 'outside_operating_hours'],
    ['a return after closing', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: '2026-04-17T22:30' }), 400, 'outside_operating_hours'],
    ['a trip under 24 hours', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: '2026-04-14T20:00' }), 400, 'trip_too_short'],
    ['a trip over 90 days', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: '2026-07-14T10:00' }), 400, 'trip_too_long'],
    ['an unknown protection plan', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: TO, options: { protection_plan: 'premium' } }), 400, 'invalid_protection_plan'],
    ['an unknown mileage type', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: TO, options: { mileage_type: 'some' } }), 400, 'invalid_options'],
    ['delivery without an address', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: TO, options: { delivery_type: 'delivery' } }), 400, 'delivery_address_required'],
    ['an unknown extra', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: TO, extras: ['jetpack'] }), 400, 'invalid_extra'],
    ['an unknown promo code', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: TO, promo_code: 'NOPE' }), 400, 'promo_code_not_found'],
    ['an expired promo code', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: TO, promo_code: 'SPRING20' }), 400, 'promo_code_invalid'],
    ['a promo code below its minimum days', (a) => ({ car_alias: a, date_checkin: FROM, date_checkout: '2026-04-16T10:00', promo_code: 'SAVE50' }), 400, 'promo_code_invalid'],
    ['an unknown car', () => ({ car_alias: 'no-such-car', date_checkin: FROM, date_checkout: TO }), 404, 'car_not_found'],
  ];

  test.for(cases)('quote refuses %s', async ([_name, body, status, code], { h, quote }) => {
    const car = await availableCar(h, FROM, TO);
    expectError(await quote(body(car.car_alias)), status, code);
  });

  // Creation lists no 404: an unknown car there is invalid input (a sandbox choice).
  const createCases = cases.map(([name, body, status, code]) =>
    code === 'car_not_found' ? ([name, body, 400, 'invalid_request'] as (typeof cases)[number]) : ([name, body, status, code] as (typeof cases)[number]),
  );

  test.for(createCases)('create refuses %s with the code the spec allows there', async ([_name, body, status, code], { h, key }) => {
    const car = await availableCar(h, FROM, TO);
    const b = body(car.car_alias);
    const defaults = { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' };
    const withOptions = b && typeof b === 'object' && !Array.isArray(b) ? { ...b, options: { ...defaults, ...(b as any).options } } : b;
    expectError(await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: withOptions }), status, code);
  });

  test('refuses null where the spec gives a type (options, extras, promo_code, an option), on quote and create', async ({ h, key, quote }) => {
    const car = await availableCar(h, FROM, TO);
    const full = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO, options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } };
    for (const [body, code] of [
      [{ ...full, options: null }, 'invalid_options'],
      [{ ...full, extras: null }, 'invalid_request'],
      [{ ...full, promo_code: null }, 'invalid_request'],
      [{ ...full, options: { ...full.options, mileage_type: null } }, 'invalid_options'],
    ] as const) {
      expectError(await quote(body), 400, code);
      expectError(await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body }), 400, code);
    }
    // delivery_address is nullable in the spec's schema
    expect((await quote({ ...full, options: { ...full.options, delivery_address: null } })).status).toBe(200);
  });

  test('refuses a body that is not sent as JSON (text/plain is what a cross-site form sends)', async ({ h, key, quote }) => {
    const car = await availableCar(h, FROM, TO);
    const body = JSON.stringify({ car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expectError(await h.call('POST', '/reservation/quote', { body, headers: { 'Content-Type': type } }), 400, 'invalid_request_body');
    }
    expect((await h.call('POST', '/reservation/quote', { body, headers: { 'Content-Type': 'application/json; charset=utf-8' } })).status).toBe(200);
    expectError(await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: JSON.stringify({ ...JSON.parse(body), options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } }), headers: { 'Content-Type': 'text/plain' } }), 400, 'invalid_request_body');
  });

  test('requires options and their three choices on create, not on quote', async ({ h, key, quote }) => {
    const car = await availableCar(h, FROM, TO);
    const bare = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO };
    expect((await quote(bare)).status).toBe(200);
    expectError(await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: bare }), 400, 'invalid_options');
    const partial = { ...bare, options: { protection_plan: 'minimum', mileage_type: 'limited' } };
    expectError(await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: partial }), 400, 'invalid_options');
  });

  test('refuses dates overlapping a block with 409 car_not_available', async ({ h, key, quote }) => {
    const list = (await h.call('GET', '/cars?limit=200')).json.data.cars;
    const c = list.find((x: any) => x.date_next_block !== null && x.date_next_block.slice(0, 10) > '2026-03-12');
    const day = c.date_next_block.slice(0, 10);
    const dayBefore = new Date(Date.parse(`${day}T00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const overlap = tripBody(c.car_alias, `${dayBefore}T12:00`, `${day}T21:00`);
    expectError(await quote(overlap), 409, 'car_not_available');
    expectError(await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: overlap }), 409, 'car_not_available');
  });
});

describe('promo codes', () => {
  test('checks one-time use only when the customer is known', async ({ h, key, quote }) => {
    const car = await availableCar(h, FROM, TO);
    const body = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO, promo_code: 'FIRSTRIDE' };
    const anon = Quote.parse((await quote(body)).json.data);
    expect(anon.promo_discount_amount).toBe(Math.round((anon.rent_subtotal - anon.rent_discount_amount) * 0.15));
    expectError(await quote(body, key), 400, 'promo_already_used');
    expectError(await quote(body, h.sb.keys.read_only), 400, 'promo_already_used');
    expect((await quote(body, h.sb.keys.other_customer)).status).toBe(200);
    expectError(await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: tripBody(car.car_alias, FROM, TO, { promo_code: 'FIRSTRIDE' }) }), 400, 'promo_already_used');
  });

  test('marks a one-time code used when a reservation is created with it', async ({ h, key, quote }) => {
    const car = await availableCar(h, FROM, TO);
    const q = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO, promo_code: 'WELCOME10' };
    expect((await quote(q, key)).json.data.promo_discount_amount).toBe(Math.round(car.rent_trip_total_cents * 0.1));
    await reserve(h, key, tripBody(car.car_alias, FROM, TO, { promo_code: 'WELCOME10' }));
    expectError(await quote(q, key), 400, 'promo_already_used');
    expect((await quote(q)).status).toBe(200);
  });

  test('answers promo_codes_disabled when promo codes are switched off', async ({ h, quote }) => {
    const car = await availableCar(h, FROM, TO);
    expect((await h.admin('PATCH', '/config', { promoCodesEnabled: false })).json.promoCodesEnabled).toBe(false);
    expectError(await quote({ car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO, promo_code: 'SAVE50' }), 400, 'promo_codes_disabled');
    expect((await quote({ car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO })).status).toBe(200);
  });
});

describe('booking rules on create', () => {
  test('refuses a driver who is not approved: licence pending or expired', async ({ h }) => {
    const car = await availableCar(h, FROM, TO);
    for (const k of [h.sb.keys.unverified, h.extra.expired_licence]) {
      expectError(await h.call('POST', '/my/reservation', { key: k, idempotencyKey: newKey(), body: tripBody(car.car_alias, FROM, TO) }), 409, 'driver_not_approved');
    }
  });

  test('refuses more than the maximum of active reservations with 409 active_reservation_exists', async ({ h, key }) => {
    await h.admin('PATCH', '/config', { maxActiveReservations: 3 });
    const car = await availableCar(h, FROM, TO);
    // Dana starts with two active trips.
    await reserve(h, key, tripBody(car.car_alias, FROM, TO));
    const res = await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: tripBody(car.car_alias, FROM, TO) });
    expectError(res, 409, 'active_reservation_exists');
    // Another customer is not affected.
    expect((await h.call('POST', '/my/reservation', { key: h.sb.keys.other_customer, idempotencyKey: newKey(), body: tripBody(car.car_alias, FROM, TO) })).status).toBe(200);
  });

  test('creates an unpaid reservation that holds no calendar slot; payment books the car', async ({ h, key, quote }) => {
    const car = await availableCar(h, FROM, TO);
    const a = await reserve(h, key, tripBody(car.car_alias, FROM, TO));
    const b = await reserve(h, h.sb.keys.other_customer, tripBody(car.car_alias, FROM, TO));
    // read before the payment: the car's detail must not be kept past it
    const before = (await h.call('GET', `/cars/${car.car_alias}`)).json.data;
    expect(before.blocked_ranges).not.toContainEqual({ from: FROM, to: TO, kind: 'booked' });
    const trip = Trip.parse((await h.call('GET', `/my/reservation/${a}`, { key })).json.data);
    expect(trip).toMatchObject({ status: 'new', is_booked: false, cancellation_outcome: { status: 'not_cancelled' } });
    expect(trip.car!.car_alias).toBe(car.car_alias);

    const paid = await h.admin('POST', '/pay', { reservation_uuid: a, payment_type: 'rent' });
    expect(paid.status).toBe(200);
    const after = Trip.parse((await h.call('GET', `/my/reservation/${a}`, { key })).json.data);
    expect(after).toMatchObject({ is_booked: true, balance_cents: 0, payment_status: { type: 'settled' } });
    const listed = (await h.call('GET', `/cars?city=la&limit=200&date_from=${FROM}&date_to=${TO}`)).json.data.cars;
    expect(listed.find((c: any) => c.car_alias === car.car_alias).is_available).toBe(false);
    const detail = (await h.call('GET', `/cars/${car.car_alias}`)).json.data;
    expect(detail.blocked_ranges).toContainEqual({ from: FROM, to: TO, kind: 'booked' });
    // Paying the other, overlapping reservation now fails: the car is taken.
    expectError(await h.admin('POST', '/pay', { reservation_uuid: b, payment_type: 'rent' }), 409, 'car_not_available');
    expectError(await h.call('POST', '/reservation/quote', { body: { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO } }), 409, 'car_not_available');
  });

  test('lists trips: active holds new ones, history the complete and cancelled', async ({ h, key }) => {
    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    expect(trips.active.map((t) => t.status)).toEqual(['new', 'new']);
    expect(new Set(trips.history.map((t) => t.status))).toEqual(new Set(['complete', 'cancelled']));
    expect(trips.history).toHaveLength(6);
    for (const t of [...trips.active, ...trips.history]) {
      expect(t).not.toHaveProperty('payment_status');
      expect(t.financial_summary!.currency).toBe('USD');
    }
    expect(trips.active[0].date_checkin! < trips.active[1].date_checkin!).toBe(true);
  });

  test('reads a new trip as complete once its checkout has passed', async ({ h, key }) => {
    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    const first = trips.active[0];
    await h.admin('POST', '/clock', { now: '2026-04-30T00:00:00Z' });
    const later = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    expect(later.active).toHaveLength(0);
    expect(later.history.find((t) => t.uuid === first.uuid)!.status).toBe('complete');
  });
});

describe('the debt invoice (side effect of reading a reservation)', () => {
  test('is created by reading the detail, refreshed in place, and never by reading invoices', async ({ h, key }) => {
    const car = await availableCar(h, FROM, TO);
    const uuid = await reserve(h, key, tripBody(car.car_alias, FROM, TO));
    const before = (await h.call('GET', `/my/reservation/${uuid}/invoices`, { key })).json;
    expect(Array.isArray(before)).toBe(true);
    expect(before.map((i: any) => i.type).sort()).toEqual(['DEPOSIT', 'RENT']);
    expect((await h.call('GET', `/my/reservation/${uuid}/invoices`, { key })).json).toEqual(before);

    const detail = Trip.parse((await h.call('GET', `/my/reservation/${uuid}`, { key })).json.data);
    expect(detail.payment_status!.type).toBe('to_pay');
    const debtId = detail.payment_status!.invoice_id!;
    const invoices = (await h.call('GET', `/my/reservation/${uuid}/invoices`, { key })).json.map((i: unknown) => Invoice.parse(i));
    const debt = invoices.find((i: any) => i.id === debtId)!;
    expect(debt).toMatchObject({ type: 'DEBT', billing_status: 'ISSUED', amount: detail.balance_cents });
    expect(debt.created_at).toBe('2026-03-10T18:00');
    expect(Invoice.parse((await h.call('GET', `/my/billing/invoice/${debtId}`, { key })).json.data).id).toBe(debtId);

    const again = Trip.parse((await h.call('GET', `/my/reservation/${uuid}`, { key })).json.data);
    expect(again.payment_status!.invoice_id).toBe(debtId);

    // An extension adds to what is owed: the same debt invoice is refreshed.
    const ext = await h.admin('POST', '/extend', { reservation_uuid: uuid, checkout: '2026-04-18T10:00' });
    expect(ext.status).toBe(200);
    const extended = Trip.parse((await h.call('GET', `/my/reservation/${uuid}`, { key })).json.data);
    expect(extended.payment_status).toEqual({ type: 'to_pay', amount: detail.balance_cents + ext.json.total_amount, invoice_id: debtId });
    expect(extended.days).toBe(4);
    expect(extended.date_checkout).toBe('2026-04-18T10:00');
  });

  test('shows a deposit HOLD as PAID on the detail and as HOLD elsewhere', async ({ h, key }) => {
    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    const paid = trips.active.find((t) => t.balance_cents === 0)!;
    const detail = Trip.parse((await h.call('GET', `/my/reservation/${paid.uuid}`, { key })).json.data);
    expect(detail.payment_status).toEqual({ type: 'settled' });
    expect(detail.is_booked).toBe(true);
    const deposit = detail.invoices!.find((i) => i.type === 'DEPOSIT')!;
    expect([deposit.status, deposit.billing_status]).toEqual(['PAID', 'HOLD']);
    const listed = (await h.call('GET', `/my/reservation/${paid.uuid}/invoices`, { key })).json.find((i: any) => i.id === deposit.id);
    expect([listed.status, listed.billing_status]).toEqual(['HOLD', 'HOLD']);
    const single = (await h.call('GET', `/my/billing/invoice/${deposit.id}`, { key })).json.data;
    expect(single.status).toBe('HOLD');
  });
});

describe('fixture trips of the demo customer', () => {
  test('cover every state with the financial summary the records support', async ({ h, key }) => {
    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data);
    const details = await Promise.all(
      [...trips.active, ...trips.history].map(async (t) => Trip.parse((await h.call('GET', `/my/reservation/${t.uuid}`, { key })).json.data)),
    );
    const byOutcome = (s: string) => details.filter((d) => d.cancellation_outcome!.status === s);
    expect(byOutcome('unknown')).toHaveLength(1);
    expect(byOutcome('unknown')[0].financial_summary!.trip_total_cents).toBeNull();
    const cancelled = byOutcome('cancelled');
    expect(cancelled).toHaveLength(2);
    const closed = cancelled.find((d) => d.cancellation_outcome!.refund_review!.status === 'closed')!;
    expect(closed.cancellation_outcome).toMatchObject({ hold_release: { status: 'released' }, refunds: [{ status: 'confirmed', confirmed_at: expect.any(String) }] });
    expect(closed.payment_status).toEqual({ type: 'settled' });
    const pending = cancelled.find((d) => d.cancellation_outcome!.refund_review!.status === 'pending')!;
    expect(pending.payment_status).toMatchObject({ type: 'refund', date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(pending.cancellation_outcome!.refunds).toEqual([expect.objectContaining({ status: 'recorded_unconfirmed', confirmed_at: null })]);
    expect(pending.financial_summary!.trip_total_cents).toBeNull();
    const complete = details.filter((d) => d.status === 'complete');
    expect(complete).toHaveLength(3);
    expect(complete.filter((d) => d.financial_summary!.trip_total_cents === null)).toHaveLength(1);
    for (const d of complete.filter((d) => d.financial_summary!.trip_total_cents !== null)) {
      const charged = d.invoices!.filter((i) => ['RENT', 'EXTEND'].includes(i.type)).reduce((s, i) => s + i.amount, 0);
      expect(d.financial_summary!.trip_total_cents).toBe(charged);
      expect(d.invoices!.filter((i) => i.type === 'RENT').every((i) => i.billing_status === 'PAID')).toBe(true);
    }
    expect(details.filter((d) => d.payment_status!.type === 'to_pay')).toHaveLength(1);
  });
});
