import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Invoice, Profile, Trip, TripsList } from '../../src/api/schemas.js';
import { type Harness, availableCar, expectError, newKey, reserve, startHarness, tripBody } from './harness.js';

let h: Harness;
let keys: Harness['sb']['keys'];
beforeAll(async () => {
  h = await startHarness({ config: { maxActiveReservations: 100 } });
  keys = h.sb.keys;
});
afterAll(() => h.close());

const quoteBody = (alias: string) => ({ car_alias: alias, date_checkin: '2026-04-14T10:00', date_checkout: '2026-04-17T10:00' });

describe('credentials (Authentication rules 2-4)', () => {
  it('accepts a key as Authorization: Bearer or as X-API-Key', async () => {
    const bearer = await h.call('GET', '/my/profile', { key: keys.booking_write });
    const header = await h.call('GET', '/my/profile', { headers: { 'X-API-Key': keys.booking_write } });
    expect(bearer.status).toBe(200);
    expect(header.json).toEqual(bearer.json);
    expect(Profile.parse(bearer.json.data).first_name).toBe('Dana');
  });

  it('rejects a request without credentials with 401 invalid_credentials', async () => {
    expectError(await h.call('GET', '/my/profile'), 401, 'invalid_credentials');
  });

  it('rejects both credential headers with 401 conflicting_credentials, even when both are valid', async () => {
    const res = await h.call('GET', '/my/trips', { key: keys.booking_write, headers: { 'X-API-Key': keys.booking_write } });
    expectError(res, 401, 'conflicting_credentials');
  });

  it.each([
    ['an unknown key', { Authorization: 'Bearer svc_0123456789abcdef0123456789abcdef' }],
    ['an unknown key in X-API-Key', { 'X-API-Key': 'svc_0123456789abcdef0123456789abcdef' }],
    ['a key without the svc_ prefix in X-API-Key', { 'X-API-Key': 'nonsense' }],
    ['a Basic credential', { Authorization: 'Basic ZGFuYTpzZWNyZXQ=' }],
    ['an empty Bearer', { Authorization: 'Bearer ' }],
  ])('rejects %s with 401 invalid_credentials', async (_name, headers) => {
    expectError(await h.call('GET', '/my/profile', { headers }), 401, 'invalid_credentials');
  });

  it('rejects a revoked key with 401 invalid_credentials', async () => {
    expectError(await h.call('GET', '/my/profile', { key: h.extra.revoked }), 401, 'invalid_credentials');
  });

  it("accepts the application's own login token as Bearer only", async () => {
    const res = await h.call('GET', '/my/profile', { key: h.extra.app_token });
    expect(res.status).toBe(200);
    expect(res.json.data.first_name).toBe('Dana');
    expectError(await h.call('GET', '/my/profile', { headers: { 'X-API-Key': h.extra.app_token } }), 401, 'invalid_credentials');
  });
});

describe('anonymous quote (Authentication rule 1, quote rules)', () => {
  it('works without credentials and with a valid key of either capability', async () => {
    const car = await availableCar(h, '2026-04-14T10:00', '2026-04-17T10:00');
    const anon = await h.call('POST', '/reservation/quote', { body: quoteBody(car.car_alias) });
    expect(anon.status).toBe(200);
    for (const key of [keys.read_only, keys.booking_write]) {
      const res = await h.call('POST', '/reservation/quote', { key, body: quoteBody(car.car_alias) });
      expect(res.json).toEqual(anon.json);
    }
  });

  it('never falls back to anonymous: an invalid, revoked or conflicting credential is 401', async () => {
    const car = await availableCar(h, '2026-04-14T10:00', '2026-04-17T10:00');
    const body = quoteBody(car.car_alias);
    expectError(await h.call('POST', '/reservation/quote', { key: 'svc_ffffffffffffffffffffffffffffffff', body }), 401, 'invalid_credentials');
    expectError(await h.call('POST', '/reservation/quote', { key: h.extra.revoked, body }), 401, 'invalid_credentials');
    expectError(
      await h.call('POST', '/reservation/quote', { key: keys.read_only, headers: { 'X-API-Key': keys.read_only }, body }),
      401,
      'conflicting_credentials',
    );
  });
});

describe('capabilities (Authentication rules 5-6)', () => {
  it('lets a read_only key read everything a customer can read and get links', async () => {
    const trips = TripsList.parse((await h.call('GET', '/my/trips', { key: keys.read_only })).json.data);
    const uuid = trips.active[0].uuid;
    for (const path of ['/my/profile', '/my/verification', '/my/billing/cards', `/my/reservation/${uuid}`, `/my/reservation/${uuid}/invoices`]) {
      expect((await h.call('GET', path, { key: keys.read_only })).status).toBe(200);
    }
    expect((await h.call('POST', '/my/billing/cards/add-link', { key: keys.read_only })).status).toBe(200);
  });

  it('refuses create and cancel with a read_only key: 403 pointing to the settings page', async () => {
    const car = await availableCar(h, '2026-04-14T10:00', '2026-04-17T10:00');
    const create = await h.call('POST', '/my/reservation', {
      key: keys.read_only,
      idempotencyKey: newKey(),
      body: tripBody(car.car_alias, '2026-04-14T10:00', '2026-04-17T10:00'),
    });
    expectError(create, 403, 'api_key_write_upgrade_required');
    expect(create.json.description).toContain(`${h.sb.appUrl}/settings/api-keys`);
    expect(create.json.description).toContain('booking_write');

    const uuid = TripsList.parse((await h.call('GET', '/my/trips', { key: keys.read_only })).json.data).active[0].uuid;
    const cancel = await h.call('DELETE', `/my/reservation/${uuid}`, { key: keys.read_only, idempotencyKey: newKey() });
    expectError(cancel, 403, 'api_key_write_upgrade_required');
    expect(cancel.json.description).toContain(`${h.sb.appUrl}/settings/api-keys`);
    expect((await h.call('GET', `/my/reservation/${uuid}`, { key: keys.read_only })).json.data.status).toBe('new');
  });
});

describe('what no key can do (Authentication rule 7)', () => {
  it('offers no operation that pays, charges, refunds, changes cards, extends, manages keys or starts verification', async () => {
    const key = keys.booking_write;
    const uuid = TripsList.parse((await h.call('GET', '/my/trips', { key })).json.data).active[0].uuid;
    const attempts: [string, string, number][] = [
      ['POST', `/my/reservation/${uuid}/pay`, 404],
      ['POST', `/my/reservation/${uuid}/refund`, 404],
      ['POST', '/my/billing/cards', 405],
      ['DELETE', '/my/billing/cards', 405],
      ['POST', `/my/reservation/${uuid}/extension`, 404],
      ['POST', '/my/api-keys', 404],
      ['POST', '/my/verification', 405],
    ];
    for (const [method, path, status] of attempts) {
      expect((await h.call(method, path, { key, body: {} })).status, `${method} ${path}`).toBe(status);
    }
    // The link endpoints hand the action to the customer and change nothing themselves.
    const cards = (await h.call('GET', '/my/billing/cards', { key: keys.unverified })).json.data;
    await h.call('POST', '/my/billing/cards/add-link', { key: keys.unverified });
    expect((await h.call('GET', '/my/billing/cards', { key: keys.unverified })).json.data).toEqual(cards);
    expect((await h.call('GET', '/my/verification', { key: keys.unverified })).json.data.status).toBe('pending');
  });
});

describe('isolation (Authentication rule 9, Status rule 3)', () => {
  it("answers 404 for another customer's reservation, invoices, invoice, cancel and links", async () => {
    const car = await availableCar(h, '2026-05-04T10:00', '2026-05-06T10:00');
    const uuid = await reserve(h, keys.other_customer, tripBody(car.car_alias, '2026-05-04T10:00', '2026-05-06T10:00'));
    const theirs = await h.call('GET', `/my/reservation/${uuid}`, { key: keys.other_customer });
    expect(theirs.status).toBe(200);
    const invoiceId = Trip.parse(theirs.json.data).invoices![0].id;

    const dana = keys.booking_write;
    expectError(await h.call('GET', `/my/reservation/${uuid}`, { key: dana }), 404, 'reservation_not_found');
    expectError(await h.call('GET', `/my/reservation/${uuid}/invoices`, { key: dana }), 404, 'reservation_not_found');
    expectError(await h.call('GET', `/my/billing/invoice/${invoiceId}`, { key: dana }), 404, 'invoice_not_found');
    expectError(await h.call('DELETE', `/my/reservation/${uuid}`, { key: dana, idempotencyKey: newKey() }), 404, 'reservation_not_found');
    expectError(await h.call('POST', `/my/reservation/${uuid}/payment-link`, { key: dana, body: { payment_type: 'rent' } }), 404, 'reservation_not_found');
    expectError(await h.call('POST', `/my/reservation/${uuid}/extension-link`, { key: dana }), 404, 'reservation_not_found');
    expectError(
      await h.call('POST', `/my/billing/reservation/${uuid}/extension/price`, {
        key: dana,
        body: { modification_type: 'extend', new_checkout_date_time_local: '2026-05-07T10:00' },
      }),
      404,
      'reservation_not_found',
    );
    // The owner's reservation is untouched by the foreign cancel.
    expect((await h.call('GET', `/my/reservation/${uuid}`, { key: keys.other_customer })).json.data.status).toBe('new');

    const danaTrips = TripsList.parse((await h.call('GET', '/my/trips', { key: dana })).json.data);
    expect([...danaTrips.active, ...danaTrips.history].some((t) => t.uuid === uuid)).toBe(false);
    const own = await h.call('GET', `/my/billing/invoice/${invoiceId}`, { key: keys.other_customer });
    expect(Invoice.parse(own.json.data).id).toBe(invoiceId);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    const key = keys.booking_write;
    expectError(await h.call('GET', '/my/reservation/00000000-0000-4000-8000-000000000000', { key }), 404, 'reservation_not_found');
    expectError(await h.call('GET', '/my/reservation/not-a-uuid', { key }), 404, 'reservation_not_found');
    expectError(await h.call('GET', '/my/billing/invoice/not-a-uuid', { key }), 404, 'invoice_not_found');
    expectError(await h.call('DELETE', '/my/reservation/not-a-uuid', { key, idempotencyKey: newKey() }), 404, 'reservation_not_found');
  });
});

describe('api_key_operation_not_enabled (Authentication rule 8)', () => {
  it('can be switched on for any operation and off again', async () => {
    const added = await h.admin('POST', '/faults', { kind: 'operation_not_enabled', operation: 'getProfile' });
    expect(added.status).toBe(201);
    expectError(await h.call('GET', '/my/profile', { key: keys.read_only }), 403, 'api_key_operation_not_enabled');
    expect((await h.call('GET', '/my/verification', { key: keys.read_only })).status).toBe(200);
    await h.admin('DELETE', `/faults/${added.json.faults[0].id}`);
    expect((await h.call('GET', '/my/profile', { key: keys.read_only })).status).toBe(200);
  });
});
