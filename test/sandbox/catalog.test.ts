import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Car, CarsPage } from '../../src/api/schemas.js';
import { type Harness, expectError, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

describe('GET /cars', () => {
  it('pages with limit and offset until has_more is false, with a stable total', async () => {
    const first = await h.call('GET', '/cars');
    expect(first.status).toBe(200);
    const page = CarsPage.parse(first.json.data);
    expect(page.cars).toHaveLength(50);
    expect(page.total).toBe(300);
    expect(page.has_more).toBe(true);

    const seen = new Set<string>();
    let offset = 0;
    let pages = 0;
    for (;;) {
      const res = await h.call('GET', `/cars?limit=120&offset=${offset}`);
      const p = CarsPage.parse(res.json.data);
      expect(p.total).toBe(300);
      p.cars.forEach((c) => seen.add(c.car_alias));
      pages++;
      offset += p.cars.length;
      if (!p.has_more) break;
    }
    expect(pages).toBe(3);
    expect(seen.size).toBe(300);
    const past = CarsPage.parse((await h.call('GET', '/cars?offset=1000')).json.data);
    expect(past).toEqual({ cars: [], total: 300, has_more: false });
    const last = CarsPage.parse((await h.call('GET', '/cars?limit=200&offset=100')).json.data);
    expect([last.cars.length, last.has_more]).toEqual([200, false]);
  });

  it('without dates shows no date-based totals; with dates every car has them and is_available', async () => {
    const plain = (await h.call('GET', '/cars?limit=5')).json.data.cars;
    for (const c of plain) {
      for (const f of ['is_available', 'trip_days', 'display_trip_total_cents', 'rent_trip_total_cents', 'blocked_ranges']) expect(c).not.toHaveProperty(f);
      expect(c).not.toHaveProperty('plate');
      expect(c).not.toHaveProperty('day_rate_cents');
    }
    const dated = (await h.call('GET', `/cars?limit=200&date_from=${FROM}&date_to=${TO}`)).json.data.cars;
    for (const c of dated) {
      const car = Car.parse(c);
      expect(typeof car.is_available).toBe('boolean');
      expect(car.trip_days).toBe(3);
      expect(car.rent_trip_total_cents! + car.prices.trip_fee!).toBe(car.display_trip_total_cents);
    }
    expect(dated.some((c: any) => !c.is_available)).toBe(true);
  });

  it('filters by city, body type, make and model', async () => {
    const miami = (await h.call('GET', '/cars?city=miami&limit=200')).json.data;
    expect(miami.total).toBeGreaterThan(0);
    expect(miami.total).toBeLessThan(300);
    expect(miami.cars.every((c: any) => c.city === 'miami')).toBe(true);
    const tw = (await h.call('GET', '/cars?body_type=three-wheeler&limit=200')).json.data;
    expect(tw.total).toBeGreaterThan(0);
    expect(tw.cars.every((c: any) => c.body_type === 'three-wheeler')).toBe(true);
    const tesla = (await h.call('GET', '/cars?make_id=4&model_id=401&limit=200')).json.data;
    expect(tesla.total).toBeGreaterThan(0);
    expect(tesla.cars.every((c: any) => c.make === 'Tesla' && c.model === 'Model 3')).toBe(true);
    expect((await h.call('GET', '/cars?make_id=0')).json.data).toEqual({ cars: [], total: 0, has_more: false });
  });

  it('orders by day rate without dates and by the searched trip total with dates', async () => {
    const asc = (await h.call('GET', '/cars?order_by=price_asc&limit=200')).json.data.cars.map((c: any) => c.blended_day_rate_cents);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    const desc = (await h.call('GET', `/cars?order_by=price_desc&limit=200&date_from=${FROM}&date_to=${TO}`)).json.data.cars.map(
      (c: any) => c.display_trip_total_cents,
    );
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
  });

  it.each([
    ['limit=0', 'invalid_pagination'],
    ['limit=201', 'invalid_pagination'],
    ['limit=abc', 'invalid_pagination'],
    ['limit=1.5', 'invalid_pagination'],
    ['offset=-1', 'invalid_pagination'],
    [`date_from=${FROM}`, 'date_range_incomplete'],
    [`date_to=${TO}`, 'date_range_incomplete'],
    [`date_from=2026-04-14&date_to=${TO}`, 'invalid_date_format'],
    [`date_from=${FROM}&date_to=2026-02-30T10:00`, 'invalid_date_format'],
    [`date_from=${FROM}&date_to=${FROM}`, 'invalid_date_range'],
    [`date_from=${TO}&date_to=${FROM}`, 'invalid_date_range'],
    ['city=paris', 'invalid_query_parameter'],
    ['body_type=tank', 'invalid_query_parameter'],
    ['make_id=-1', 'invalid_query_parameter'],
    ['order_by=name', 'invalid_query_parameter'],
    ['city=la&city=miami', 'invalid_query_parameter'],
  ])('rejects %s with %s', async (query, code) => {
    expectError(await h.call('GET', `/cars?${query}`), 400, code);
  });

  it('takes no credentials: one sent is refused with 400 credentials_not_accepted (docs/sandbox.md)', async () => {
    expect((await h.call('GET', '/cars?limit=3')).status).toBe(200);
    expectError(await h.call('GET', '/cars?limit=3', { key: 'svc_00000000000000000000000000000000' }), 400, 'credentials_not_accepted');
  });
});

describe('GET /cars/{alias}', () => {
  it('returns the car with its current blocked ranges, including open-ended ones', async () => {
    const aliases: string[] = [];
    for (const offset of [0, 200]) {
      aliases.push(...(await h.call('GET', `/cars?limit=200&offset=${offset}`)).json.data.cars.map((c: any) => c.car_alias));
    }
    const details = (await Promise.all(aliases.map((a) => h.call('GET', `/cars/${a}`)))).map((r) => {
      expect(r.status).toBe(200);
      return Car.parse(r.json.data);
    });
    for (const car of details) {
      expect(car.date_next_block).toBe(car.blocked_ranges![0]?.from ?? null);
      for (const b of car.blocked_ranges!) expect(['booked', 'maintenance']).toContain(b.kind);
    }
    expect(details.filter((c) => c.blocked_ranges!.length > 0).length).toBeGreaterThan(50);
    expect(details.some((c) => c.blocked_ranges!.some((b) => b.to === null))).toBe(true);
  });

  it('answers 404 car_not_found for an unknown alias', async () => {
    expectError(await h.call('GET', '/cars/no-such-car'), 404, 'car_not_found');
  });

  it('marks a car unavailable for dates overlapping one of its blocks', async () => {
    const list = (await h.call('GET', '/cars?limit=200')).json.data.cars;
    const c = list.find((x: any) => x.date_next_block !== null && x.date_next_block > '2026-03-11');
    const detail = (await h.call('GET', `/cars/${c.car_alias}`)).json.data;
    const b = detail.blocked_ranges[0];
    const day = b.from.slice(0, 10);
    const res = await h.call('GET', `/cars?limit=200&date_from=${day}T08:00&date_to=${day}T20:00`);
    expect(res.json.data.cars.find((x: any) => x.car_alias === c.car_alias).is_available).toBe(false);
  });
});

describe('routing', () => {
  it('answers unknown paths with 404 and wrong methods with 405, as errors', async () => {
    expectError(await h.call('GET', '/nope'), 404, 'not_found');
    const res = await h.call('PUT', '/cars');
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers HEAD on every GET operation as GET without a body (RFC 9110), with its status and headers', async () => {
    const key = h.sb.keys.booking_write;
    for (const path of ['/cars?limit=2', '/cars/nope', '/my/profile', '/my/trips', '/my/billing/cards']) {
      const get = await h.call('GET', path, { key: path.startsWith('/my') ? key : undefined });
      const head = await h.call('HEAD', path, { key: path.startsWith('/my') ? key : undefined });
      expect(head.status, path).toBe(get.status);
      expect(head.text, path).toBe('');
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(head.headers.get('content-length'), path).toBe(get.headers.get('content-length'));
    }
    // a HEAD of a write operation is still refused
    const res = await h.call('HEAD', '/my/reservation');
    expect(res.status).toBe(405);
  });
});
