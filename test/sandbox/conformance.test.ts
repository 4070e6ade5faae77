// Conformance to the spec, to the letter, where the other sandbox tests leave a gap: the
// decisions of docs/sandbox.md that make the sandbox strict (credentials on anonymous
// operations, query parameters and body fields the spec does not define), fields present
// per type, the client's side of "never a credential on anonymous calls", and the pricing
// rule "quotes, car-list totals and reservation amounts agree to the cent" as a property
// over many cars, dates and options.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { hintForApiError } from '../../src/cmdkit/hints.js';
import { Api } from '../../src/api/endpoints.js';
import { Car, CarsPage, Invoice, InvoiceList, Quote, Trip, TripsList, Uri } from '../../src/api/schemas.js';
import { openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, type Harness, availableCar, expectError, newKey, reserve, startHarness, tempDir, tripBody } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    config: { maxActiveReservations: 1000, keyRateLimitPerMinute: 100_000, catalogRateLimitPerMinute: 100_000, generalRateLimitPerMinute: 100_000 },
  });
});
afterAll(() => h.close());

const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const requests = async () => (await h.admin('GET', '/requests')).json.requests as Array<{ operation: string; credentials: string; status: number }>;

describe('anonymous operations take no credentials (Authentication rule 1)', () => {
  it('refuses any credential header on GET /cars and GET /cars/{alias} with 400 credentials_not_accepted', async () => {
    const alias = (await h.call('GET', '/cars?limit=1')).json.data.cars[0].car_alias;
    const { booking_write } = h.sb.keys;
    const sent: Array<[string, Record<string, string>]> = [
      ['a valid key as Bearer', { Authorization: `Bearer ${booking_write}` }],
      ['a valid key as X-API-Key', { 'X-API-Key': booking_write }],
      ['the application token', { Authorization: `Bearer ${h.extra.app_token}` }],
      ['an invalid key', { 'X-API-Key': 'svc_00000000000000000000000000000000' }],
      ['both headers', { Authorization: `Bearer ${booking_write}`, 'X-API-Key': booking_write }],
    ];
    for (const path of ['/cars?limit=1', `/cars/${alias}`]) {
      expect((await h.call('GET', path)).status, path).toBe(200);
      for (const [name, headers] of sent) {
        const res = await h.call('GET', path, { headers });
        expectError(res, 400, 'credentials_not_accepted');
        expect(res.text, `${path} with ${name}`).not.toContain(booking_write);
      }
    }
  });

  it('spends the budget the credential selects (Rate limiting rules 3 and 4), then refuses', async () => {
    const own = await startHarness({ config: { catalogRateLimitPerMinute: 1, generalRateLimitPerMinute: 1, keyRateLimitPerMinute: 1 } });
    try {
      const key = own.sb.keys.read_only;
      expectError(await own.call('GET', '/cars?limit=1', { key }), 400, 'credentials_not_accepted');
      expectError(await own.call('GET', '/my/profile', { key }), 429, 'rate_limited');
      expectError(await own.call('GET', '/cars?limit=1', { key: 'svc_00000000000000000000000000000000' }), 400, 'credentials_not_accepted');
      expectError(await own.call('GET', '/my/profile'), 429, 'rate_limited');
      // the credential-free catalog budget is untouched
      expect((await own.call('GET', '/cars?limit=1')).status).toBe(200);
    } finally {
      await own.close();
    }
    // typed with `carrental api` (the only way a key reaches an anonymous read): the hint says how to send none
    expect(hintForApiError('credentials_not_accepted', 400, undefined, undefined, { method: 'GET', path: '/cars', raw: true })).toContain('--anonymous');
  });

  it('still accepts a key on the quote, whose auth is optional', async () => {
    const car = await availableCar(h, FROM, TO);
    const body = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO };
    expect((await h.call('POST', '/reservation/quote', { body })).status).toBe(200);
    expect((await h.call('POST', '/reservation/quote', { body, key: h.sb.keys.read_only })).status).toBe(200);
  });

  it('the client sends none on an anonymous call, even when the caller passes one in', async () => {
    const client = new ApiClient({ baseUrl: h.sb.baseUrl, apiKey: h.sb.keys.booking_write, timeoutMs: 5_000, userAgent: 'carrental/test' });
    try {
      const api = new Api(client, 'carrental/test');
      await h.admin('DELETE', '/requests');
      const res = await api.listCars({ limit: 1 }, { headers: { Authorization: `Bearer ${h.sb.keys.booking_write}`, 'x-api-key': h.sb.keys.booking_write } });
      expect(res.status).toBe(200);
      // and exactly one on a keyed call, whatever was passed in
      await api.client.request({ method: 'GET', path: '/my/profile', auth: 'key', headers: { 'X-API-Key': h.sb.keys.read_only } });
      expect((await requests()).map((r) => [r.operation, r.credentials, r.status])).toEqual([
        ['listCars', 'none', 200],
        ['getProfile', 'authorization', 200],
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('api_key_operation_not_enabled concerns API keys only (Authentication rule 8)', () => {
  it('does not refuse an anonymous quote, nor is it used up by one', async () => {
    const car = await availableCar(h, FROM, TO);
    const body = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO };
    await h.admin('POST', '/faults', { kind: 'operation_not_enabled', operation: 'quote', times: 1 });
    try {
      expect((await h.call('POST', '/reservation/quote', { body })).status).toBe(200);
      expect((await h.call('POST', '/reservation/quote', { body, key: h.extra.app_token })).status).toBe(200);
      expectError(await h.call('POST', '/reservation/quote', { body, key: h.sb.keys.read_only }), 403, 'api_key_operation_not_enabled');
      expect((await h.call('POST', '/reservation/quote', { body, key: h.sb.keys.read_only })).status).toBe(200);
    } finally {
      await h.admin('DELETE', '/faults');
    }
  });
});

describe('what the spec does not define', () => {
  it('a query parameter an operation does not define is ignored (the spec lists no error for it)', async () => {
    const key = h.sb.keys.read_only;
    expect((await h.call('GET', `/cars?date_start=${FROM}&limit=1`)).status).toBe(200);
    const alias = (await h.call('GET', '/cars?limit=1')).json.data.cars[0].car_alias;
    expect((await h.call('GET', `/cars/${alias}?date_from=${FROM}&date_to=${TO}`)).text).toBe((await h.call('GET', `/cars/${alias}`)).text);
    expect((await h.call('GET', '/my/trips?status=new', { key })).status).toBe(200);
    // authentication still comes first
    expectError(await h.call('GET', '/my/trips?status=new'), 401, 'invalid_credentials');
    // a parameter the operation defines is still checked
    expectError(await h.call('GET', '/cars?city=paris'), 400, 'invalid_query_parameter');
  });

  it('a body field a request does not define: 400 invalid_request, and nothing is created', async () => {
    const key = h.sb.keys.booking_write;
    const car = await availableCar(h, FROM, TO);
    const quote = { car_alias: car.car_alias, date_checkin: FROM, date_checkout: TO };
    expectError(await h.call('POST', '/reservation/quote', { body: { ...quote, promocode: 'SAVE50' } }), 400, 'invalid_request');
    expectError(await h.call('POST', '/reservation/quote', { body: { ...quote, options: { protection: 'standard' } } }), 400, 'invalid_request');
    const count = async () => (await h.admin('GET', '/reservations?customer=dana')).json.count as number;
    const before = await count();
    const create = await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: tripBody(car.car_alias, FROM, TO, { promo: 'SAVE50' }) });
    expectError(create, 400, 'invalid_request');
    expect(create.json.description).toContain('promo');
    expect(await count()).toBe(before);

    const unpaid = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data).active.find((t) => t.balance_cents! > 0)!;
    expectError(await h.call('POST', `/my/reservation/${unpaid.uuid}/payment-link`, { key, body: { payment_type: 'rent', amount: 100 } }), 400, 'invalid_request');
    const target = `${unpaid.date_checkout!.slice(0, 10)}T18:00`;
    expectError(
      await h.call('POST', `/my/billing/reservation/${unpaid.uuid}/extension/price`, { key, body: { modification_type: 'extend', new_checkout_date_time_local: target, extras: [] } }),
      400,
      'invalid_request',
    );
    expectError(await h.call('POST', `/my/reservation/${unpaid.uuid}/extension-link`, { key, body: { target } }), 400, 'invalid_request');
    // the two names the spec gives the target are both accepted
    for (const field of ['checkout', 'date_checkout']) {
      expect((await h.call('POST', `/my/reservation/${unpaid.uuid}/extension-link`, { key, body: { [field]: target } })).status).toBe(200);
    }
  });
});

describe('resources field by field, across every seeded state', () => {
  it('trips and their details carry exactly the fields their type allows', async () => {
    let seen = { settled: 0, to_pay: 0, refund: 0, cancelled: 0, hold: 0 };
    for (const key of [h.sb.keys.booking_write, h.sb.keys.other_customer]) {
      const list = (await h.call('GET', '/my/trips', { key })).json.data;
      const trips = TripsList.parse(list);
      for (const t of [...list.active, ...list.history]) {
        // detail only
        for (const f of ['payment_status', 'invoices', 'cancellation_outcome', 'is_booked']) expect(t, f).not.toHaveProperty(f);
        for (const f of ['is_available', 'trip_days', 'display_trip_total_cents', 'blocked_ranges']) expect(t.car, f).not.toHaveProperty(f);
      }
      for (const t of [...trips.active, ...trips.history]) {
        const raw = (await h.call('GET', `/my/reservation/${t.uuid}`, { key })).json.data;
        const trip = Trip.parse(raw);
        expect(typeof raw.is_booked).toBe('boolean');
        const ps = raw.payment_status;
        seen = { ...seen, [ps.type]: seen[ps.type as 'settled'] + 1 };
        if (ps.type === 'settled') expect(Object.keys(ps)).toEqual(['type']);
        if (ps.type === 'to_pay') {
          expect(Object.keys(ps).sort()).toEqual(['amount', 'invoice_id', 'type']);
          expect(ps.amount).toBe(trip.balance_cents);
          const debt = trip.invoices!.find((i) => i.id === ps.invoice_id)!;
          expect(debt).toMatchObject({ type: 'DEBT', billing_status: 'ISSUED', amount: ps.amount });
        }
        if (ps.type === 'refund') {
          expect(Object.keys(ps).sort()).toEqual(['amount', 'date', 'type']);
          expect(ps.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          expect(ps.amount).toBeGreaterThan(0);
        }
        const outcome = raw.cancellation_outcome;
        if (outcome.status === 'cancelled') {
          seen.cancelled++;
          expect(Object.keys(outcome).sort()).toEqual(['hold_release', 'refund_review', 'refunds', 'status']);
          for (const r of outcome.refunds) expect(r.id).toMatch(/^rfd_/);
        } else {
          expect(Object.keys(outcome)).toEqual(['status']);
        }
        expect(trip.status === 'cancelled').toBe(outcome.status !== 'not_cancelled');
        expect(raw.financial_summary.currency).toBe('USD');
        // HOLD reads as PAID in the legacy status on the detail, and as HOLD everywhere else
        const listed = InvoiceList.parse((await h.call('GET', `/my/reservation/${t.uuid}/invoices`, { key })).json);
        for (const inv of trip.invoices!) {
          expect(inv.status).toBe(inv.billing_status === 'HOLD' ? 'PAID' : inv.billing_status);
          expect(inv.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
          if (inv.billing_status === 'HOLD') seen.hold++;
          const single = Invoice.parse((await h.call('GET', `/my/billing/invoice/${inv.id}`, { key })).json.data);
          expect(single.status).toBe(single.billing_status);
        }
        for (const inv of listed) expect(inv.status).toBe(inv.billing_status);
        expect(listed.map((i) => i.id).sort()).toEqual(trip.invoices!.map((i) => i.id).sort());
      }
    }
    // the fixtures show every case at least once
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });

  it('invoice created_at is the UTC instant of creation, not car-local', async () => {
    const key = h.sb.keys.booking_write;
    const car = await availableCar(h, FROM, TO, 'miami');
    const uuid = await reserve(h, key, tripBody(car.car_alias, FROM, TO));
    const invoices = InvoiceList.parse((await h.call('GET', `/my/reservation/${uuid}/invoices`, { key })).json);
    // the clock is 2026-03-10T18:00Z, 14:00 in Miami
    for (const inv of invoices) expect(inv.created_at).toBe('2026-03-10T18:00');
  });

  it('the envelopes: a uuid for create, "OK" for cancel, a bare array for the invoice list', async () => {
    const key = h.sb.keys.booking_write;
    const car = await availableCar(h, FROM, TO);
    const created = await h.call('POST', '/my/reservation', { key, idempotencyKey: newKey(), body: tripBody(car.car_alias, FROM, TO) });
    expect(Object.keys(created.json)).toEqual(['data']);
    expect(created.json.data).toMatch(UUID_RE);
    expect(Array.isArray((await h.call('GET', `/my/reservation/${created.json.data}/invoices`, { key })).json)).toBe(true);
    expect((await h.call('DELETE', `/my/reservation/${created.json.data}`, { key, idempotencyKey: newKey() })).text).toBe('{"data":"OK"}');
  });
});

describe('every error carries its request id', () => {
  it('even an unexpected internal error: body and X-Request-Id header agree', async () => {
    const { dir, cleanup } = tempDir();
    const statePath = join(dir, 'state.json');
    const own = await startHarness({ statePath });
    try {
      const key = own.sb.keys.booking_write;
      const uuid = (await own.call('GET', '/my/trips', { key })).json.data.active[0].uuid;
      // a reservation whose car left the fleet: a state no rule can produce, so the read fails inside
      const other = await openStore({ statePath, now: () => FIXED_NOW });
      await other.transact((s) => {
        s.reservations[uuid].car_id = 9_999_999;
      });
      await other.close();
      expectError(await own.call('GET', `/my/reservation/${uuid}`, { key }), 500, 'internal_error');
    } finally {
      await own.close();
      cleanup();
    }
  });
});

describe('client schemas', () => {
  it('accept every car the sandbox serves, dated or not, list or detail', async () => {
    for (const query of ['limit=200', 'limit=200&offset=200', `limit=200&date_from=${FROM}&date_to=${TO}`]) {
      CarsPage.parse((await h.call('GET', `/cars?${query}`)).json.data);
    }
  });

  it('refuse a date_next_block that is not car-local YYYY-MM-DDTHH:MM; tolerate a photo that is not a URI, which the sandbox never sends', async () => {
    const car = (await h.call('GET', '/cars?limit=1')).json.data.cars[0];
    expect(Car.safeParse(car).success).toBe(true);
    expect(Car.safeParse({ ...car, date_next_block: '2026-03-06' }).success).toBe(false);
    expect(Car.safeParse({ ...car, date_next_block: '2026-03-06T18:00:00Z' }).success).toBe(false);
    expect(Car.safeParse({ ...car, date_next_block: null }).success).toBe(true);
    // a photo link never fails a command (docs/compatibility.md), but the sandbox's are RFC 3986 URIs
    expect(Car.safeParse({ ...car, photos: ['car-1.jpg'] }).success).toBe(true);
    expect(Uri.safeParse('car-1.jpg').success).toBe(false);
    const cars = CarsPage.parse((await h.call('GET', '/cars?limit=200')).json.data).cars;
    for (const photo of cars.flatMap((c) => c.photos ?? [])) expect(Uri.safeParse(photo).success, photo).toBe(true);
  });
});

// ------------------------------------------------------------------------ pricing property

/** mulberry32: the same scenarios on every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
const day = (offset: number) => new Date(Date.UTC(2026, 2, 10 + offset)).toISOString().slice(0, 10);
const at = (offset: number, minutes: number) => `${day(offset)}T${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

describe('pricing: quotes, car-list totals for the same dates and reservation amounts agree to the cent', () => {
  it('holds over many cars, date ranges and options', async () => {
    const r = rng(20260310);
    const dana = h.sb.keys.booking_write;
    let created = 0;
    let extended = 0;
    for (let scenario = 0; scenario < 40; scenario++) {
      const city = r.pick(['la', 'miami'] as const);
      const start = r.int(2, 75);
      const checkinMin = r.int(7 * 2, 21 * 2) * 30; // 07:00..21:00, on the half hour
      const length = r.pick([1, 1, 2, 3, 4, 5, 6, 7, 8, 13, 29, 30, 31, 45]);
      let checkoutMin = r.int(7 * 4, 22 * 4) * 15; // 07:00..22:00
      if (length === 1 && checkoutMin < checkinMin) checkoutMin = checkinMin; // at least 24 hours
      const from = at(start, checkinMin);
      const to = at(start + length, checkoutMin);
      const where = `${city} ${from} -> ${to}`;

      const page = (await h.call('GET', `/cars?city=${city}&date_from=${from}&date_to=${to}&limit=200&offset=${r.pick([0, 60])}`)).json.data;
      const free = CarsPage.parse(page).cars.filter((c) => c.is_available);
      expect(free.length, where).toBeGreaterThan(0);
      for (let n = 0; n < 2; n++) {
        const car = r.pick(free);
        const label = `${where} ${car.car_alias}`;
        const days = car.trip_days!;

        // the default quote is the car list's trip total, field by field
        const base = Quote.parse((await h.call('POST', '/reservation/quote', { body: { car_alias: car.car_alias, date_checkin: from, date_checkout: to } })).json.data);
        expect(base.final_total, label).toBe(car.display_trip_total_cents);
        expect(base.display_total, label).toBe(base.final_total);
        expect(base.display_trip_total, label).toBe(base.final_total);
        expect(base.rent_subtotal + base.trip_fee_total, label).toBe(car.display_trip_total_before_discount_cents);
        expect(base.rent_subtotal - base.rent_discount_amount, label).toBe(car.rent_trip_total_cents);
        expect(base.rent_discount_amount, label).toBe(car.rent_trip_savings_cents);
        expect(base.blended_day_rate, label).toBe(car.blended_day_rate_cents);
        expect(base.discounted_day_rate, label).toBe(car.discounted_day_rate_cents);
        expect(base.trip_fee_total, label).toBe(car.prices.trip_fee);
        expect(base.protection_total, label).toBe(car.prices.protection!.minimum * days);
        expect(base.deposit_cents, label).toBe(car.prices.car!.price_deposit);

        // any options: the parts add up to the total, with the car's own prices
        const plan = r.pick(['minimum', 'standard'] as const);
        const mileage = r.pick(['limited', 'unlimited'] as const);
        const delivery = r.chance(0.4);
        const extras = car.prices.extras!.map((e) => e.item_type).filter(() => r.chance(0.5));
        const promo = days >= 3 && r.chance(0.4) ? 'SAVE50' : undefined;
        const options = { protection_plan: plan, mileage_type: mileage, delivery_type: delivery ? 'delivery' : 'pickup', ...(delivery ? { delivery_address: '1 Main St' } : {}) };
        const body = { ...tripBody(car.car_alias, from, to, { options }), ...(extras.length ? { extras } : {}), ...(promo ? { promo_code: promo } : {}) };
        const keyed = await h.call('POST', '/reservation/quote', { key: dana, body });
        const q = Quote.parse(keyed.json.data);
        const anon = Quote.parse((await h.call('POST', '/reservation/quote', { body })).json.data);
        expect(anon, label).toEqual(q);
        const extrasTotal = car.prices.extras!.filter((e) => extras.includes(e.item_type)).reduce((s, e) => s + e.price_day! * days, 0);
        const rentAfter = base.rent_subtotal - base.rent_discount_amount;
        const promoOff = promo ? Math.min(5000, rentAfter) : 0;
        expect(q.rent_subtotal, label).toBe(base.rent_subtotal);
        expect(q.rent_discount_amount, label).toBe(base.rent_discount_amount);
        expect(q.protection_total, label).toBe(car.prices.protection![plan] * days);
        expect(q.delivery_total, label).toBe(delivery ? car.prices.car!.price_delivery : undefined);
        expect(q.unlimited_mileage_total, label).toBe(mileage === 'unlimited' ? car.prices.car!.price_unlimited_mileage! * days : undefined);
        expect(q.extras_total, label).toBe(extras.length ? extrasTotal : undefined);
        expect(q.promo_discount_amount, label).toBe(promo ? promoOff : undefined);
        expect(q.final_total, label).toBe(
          rentAfter - promoOff + q.protection_total + q.trip_fee_total + (q.delivery_total ?? 0) + extrasTotal + (q.unlimited_mileage_total ?? 0),
        );
        expect([q.display_total, q.display_trip_total], label).toEqual([q.final_total, q.final_total]);
        for (const v of Object.values(keyed.json.data)) if (typeof v === 'number') expect(Number.isInteger(v), label).toBe(true);
        if (n === 1) continue;

        // the reservation is billed exactly what the quote said
        const uuid = await reserve(h, dana, body);
        created++;
        const detail = Trip.parse((await h.call('GET', `/my/reservation/${uuid}`, { key: dana })).json.data);
        const rent = detail.invoices!.find((i) => i.type === 'RENT')!;
        expect(rent.amount, label).toBe(q.final_total);
        expect(rent.items.reduce((s, i) => s + i.amount!, 0), label).toBe(q.final_total);
        expect(detail.invoices!.find((i) => i.type === 'DEPOSIT')!.amount, label).toBe(q.deposit_cents);
        expect(detail.days, label).toBe(days);
        expect(detail.balance_cents, label).toBe(q.final_total);
        expect(detail.financial_summary, label).toEqual({ currency: 'USD', trip_total_cents: q.final_total, deposit_cents: q.deposit_cents });
        expect(detail.payment_status, label).toMatchObject({ type: 'to_pay', amount: q.final_total });
        const listed = InvoiceList.parse((await h.call('GET', `/my/reservation/${uuid}/invoices`, { key: dana })).json);
        expect(listed.find((i) => i.id === rent.id)!.amount, label).toBe(q.final_total);
        // an unpaid reservation holds nothing: the list still offers the car at the same total
        const again = (await h.call('GET', `/cars?city=${city}&date_from=${from}&date_to=${to}&limit=200&offset=0`)).json.data.cars;
        const same = [...again, ...(await h.call('GET', `/cars?city=${city}&date_from=${from}&date_to=${to}&limit=200&offset=200`)).json.data.cars].find(
          (c: { car_alias: string }) => c.car_alias === car.car_alias,
        );
        expect(same, label).toMatchObject({ is_available: true, display_trip_total_cents: car.display_trip_total_cents });

        // an extension preview is the quote of the longer trip minus what was charged
        const longer = at(start + length + r.int(1, 3), r.int(7 * 4, 22 * 4) * 15);
        const preview = await h.call('POST', `/my/billing/reservation/${uuid}/extension/price`, {
          key: dana,
          body: { modification_type: 'extend', new_checkout_date_time_local: longer },
        });
        const longQuote = await h.call('POST', '/reservation/quote', { key: dana, body: { ...body, date_checkout: longer } });
        if (preview.status === 200 && longQuote.status === 200) {
          extended++;
          expect(preview.json.data.total_amount, `${label} -> ${longer}`).toBe(Math.max(0, longQuote.json.data.final_total - q.final_total));
        }
      }
    }
    expect(created).toBe(40);
    expect(extended).toBeGreaterThan(20);
  });
});
