import { describe, expect } from 'vitest';
import { CardList, ExtensionPrice, ManualAction, Profile, Quote, VerificationStatus } from '../../src/api/schemas.js';
import { availableCar, danaTrips, expectError, reserve, test as harnessTest, tripBody } from './harness.js';


const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const test = harnessTest.extend('danaTrips', async ({ h, key }) => () => danaTrips(h, key));

describe('POST /my/reservation/{uuid}/payment-link', () => {
  test('returns the pay page link for rent (spelled reservation on the page) and for the deposit', async ({ h, key, danaTrips }) => {
    const { unpaid } = await danaTrips();
    for (const [type, page] of [['rent', 'reservation'], ['deposit', 'deposit']]) {
      const res = await h.call('POST', `/my/reservation/${unpaid.uuid}/payment-link`, { key, body: { payment_type: type } });
      const action = ManualAction.parse(res.json.data);
      expect(action.action).toBe('pay_reservation');
      expect(action.status).toBe('requires_user_action');
      expect(action.url).toMatch(new RegExp(`^${esc(h.sb.appUrl)}/trips/${unpaid.uuid}\\?intent=pay&payment_type=${page}&agent_flow_id=${UUID}$`));
      expect(new URL(action.url).searchParams.get('agent_flow_id')).toBe(action.agent_flow_id);
      expect(action.url).not.toContain('svc_');
    }
    // Generating a link pays nothing.
    expect((await h.call('GET', `/my/reservation/${unpaid.uuid}`, { key })).json.data.payment_status.type).toBe('to_pay');
  });

  test('records the flow with X-Agent-Client only when it is 1 to 64 printable ASCII characters', async ({ h, key, danaTrips }) => {
    const { unpaid } = await danaTrips();
    const link = (agent?: string) =>
      h.call('POST', `/my/reservation/${unpaid.uuid}/payment-link`, { key, body: { payment_type: 'rent' }, headers: agent === undefined ? {} : { 'X-Agent-Client': agent } });
    const good = (await link('carrental/0.1.0')).json.data.agent_flow_id;
    const long = (await link('x'.repeat(65))).json.data.agent_flow_id;
    const none = (await link()).json.data.agent_flow_id;
    const flows = (await h.admin('GET', '/agent-flows?customer=dana')).json.flows;
    const byId = (id: string) => flows.find((f: any) => f.id === id);
    expect(byId(good)).toMatchObject({ action: 'pay_reservation', reservation_uuid: unpaid.uuid, payment_type: 'rent', agent_client: 'carrental/0.1.0' });
    expect(byId(long).agent_client).toBeNull();
    expect(byId(none).agent_client).toBeNull();
    expect(byId(good).created_at).toBe('2026-03-10T18:00:00.000Z');
  });

  test('validates the request: 400 for the id, body and payment type', async ({ h, key, danaTrips }) => {
    const { unpaid } = await danaTrips();
    const path = `/my/reservation/${unpaid.uuid}/payment-link`;
    expectError(await h.call('POST', '/my/reservation/not-a-uuid/payment-link', { key, body: { payment_type: 'rent' } }), 400, 'invalid_reservation_id');
    expectError(await h.call('POST', path, { key }), 400, 'invalid_request_body');
    expectError(await h.call('POST', path, { key, body: '{"payment_type":' }), 400, 'invalid_request_body');
    expectError(await h.call('POST', path, { key, body: {} }), 400, 'invalid_payment_type');
    expectError(await h.call('POST', path, { key, body: { payment_type: 'reservation' } }), 400, 'invalid_payment_type');
  });

  test('answers 409 nothing_to_pay and reservation_cancelled', async ({ h, key, danaTrips }) => {
    const { paid, cancelled } = await danaTrips();
    expectError(await h.call('POST', `/my/reservation/${paid.uuid}/payment-link`, { key, body: { payment_type: 'rent' } }), 409, 'nothing_to_pay');
    expectError(await h.call('POST', `/my/reservation/${paid.uuid}/payment-link`, { key, body: { payment_type: 'deposit' } }), 409, 'nothing_to_pay');
    expectError(await h.call('POST', `/my/reservation/${cancelled.uuid}/payment-link`, { key, body: { payment_type: 'rent' } }), 409, 'reservation_cancelled');
  });
});

describe('POST /my/billing/cards/add-link', () => {
  test('links to the cards page when a card is saved and to card-add when none is', async ({ h, key }) => {
    const dana = ManualAction.parse((await h.call('POST', '/my/billing/cards/add-link', { key })).json.data);
    expect(dana.action).toBe('add_payment_card');
    expect(dana.url).toBe(`${h.sb.appUrl}/billing/cards?agent_flow_id=${dana.agent_flow_id}`);
    const lee = ManualAction.parse((await h.call('POST', '/my/billing/cards/add-link', { key: h.sb.keys.unverified })).json.data);
    expect(lee.url).toBe(`${h.sb.appUrl}/billing/card-add?agent_flow_id=${lee.agent_flow_id}`);
    // Once a card is saved (on the page; here through the admin endpoint) the link changes.
    expect((await h.admin('POST', '/cards', { customer: 'lee', last4: '1881' })).status).toBe(201);
    const after = ManualAction.parse((await h.call('POST', '/my/billing/cards/add-link', { key: h.sb.keys.unverified })).json.data);
    expect(after.url).toContain('/billing/cards?');
    expect(CardList.parse((await h.call('GET', '/my/billing/cards', { key: h.sb.keys.unverified })).json.data)[0].last4).toBe('1881');
  });

  test('answers 403 card_payments_not_enabled for an account without card payments', async ({ h }) => {
    expectError(await h.call('POST', '/my/billing/cards/add-link', { key: h.sb.keys.no_card_payments }), 403, 'card_payments_not_enabled');
    expect((await h.admin('GET', '/agent-flows?customer=sam')).json.count).toBe(0);
  });
});

describe('extension price and link', () => {
  test('prices an extension as the repriced trip minus what is charged', async ({ h, key }) => {
    const from = '2026-04-14T10:00';
    const car = await availableCar(h, from, '2026-04-22T10:00');
    const uuid = await reserve(h, key, tripBody(car.car_alias, from, '2026-04-17T10:00'));
    const priced = async (to: string) =>
      ExtensionPrice.parse(
        (await h.call('POST', `/my/billing/reservation/${uuid}/extension/price`, { key, body: { modification_type: 'extend', new_checkout_date_time_local: to } })).json.data,
      );
    const quote = async (to: string) =>
      Quote.parse((await h.call('POST', '/reservation/quote', { body: { car_alias: car.car_alias, date_checkin: from, date_checkout: to } })).json.data);
    const base = await quote('2026-04-17T10:00');
    const two = await priced('2026-04-19T10:00');
    expect(two.additional_days).toBe(2);
    expect(two.total_amount).toBe((await quote('2026-04-19T10:00')).final_total - base.final_total);
    // Crossing the 7-day discount can make a longer trip cost less: never negative.
    const week = await priced('2026-04-21T10:00');
    expect(week.total_amount).toBe(Math.max(0, (await quote('2026-04-21T10:00')).final_total - base.final_total));
    // Previewing changes nothing.
    expect((await h.call('GET', `/my/reservation/${uuid}`, { key })).json.data.date_checkout).toBe('2026-04-17T10:00');
  });

  test('refuses invalid targets and inactive reservations', async ({ h, key, danaTrips }) => {
    const { unpaid, cancelled, complete } = await danaTrips();
    const price = (uuid: string, body: unknown) => h.call('POST', `/my/billing/reservation/${uuid}/extension/price`, { key, body });
    const target = (t: string) => ({ modification_type: 'extend', new_checkout_date_time_local: t });
    expectError(await price(unpaid.uuid!, target(unpaid.date_checkout!)), 400, 'invalid_checkout');
    expectError(await price(unpaid.uuid!, target('2026-13-01T10:00')), 400, 'invalid_checkout');
    expectError(await price(unpaid.uuid!, { modification_type: 'shorten', new_checkout_date_time_local: '2026-04-30T10:00' }), 400, 'invalid_request');
    expectError(await price(cancelled.uuid!, target('2026-06-01T10:00')), 400, 'reservation_not_active');
    expectError(await price(complete.uuid!, target('2026-06-01T10:00')), 400, 'reservation_not_active');
    expectError(await price('nope', target('2026-06-01T10:00')), 400, 'invalid_reservation_id');
  });

  test('links to the modify page, with the target as checkout when one was sent', async ({ h, key, danaTrips }) => {
    const { unpaid, cancelled } = await danaTrips();
    const path = `/my/reservation/${unpaid.uuid}/extension-link`;
    const plain = ManualAction.parse((await h.call('POST', path, { key })).json.data);
    expect(plain.action).toBe('extend_reservation');
    expect(plain.url).toBe(`${h.sb.appUrl}/trips/${unpaid.uuid}/modify?agent_flow_id=${plain.agent_flow_id}`);
    for (const field of ['checkout', 'date_checkout']) {
      const res = ManualAction.parse((await h.call('POST', path, { key, body: { [field]: '2026-03-25T10:00' } })).json.data);
      expect(res.url).toBe(`${h.sb.appUrl}/trips/${unpaid.uuid}/modify?checkout=2026-03-25T10:00&agent_flow_id=${res.agent_flow_id}`);
      expect(new URL(res.url).searchParams.get('checkout')).toBe('2026-03-25T10:00');
    }
    // The dates change only when the customer confirms.
    expect((await h.call('GET', `/my/reservation/${unpaid.uuid}`, { key })).json.data.date_checkout).toBe(unpaid.date_checkout);

    expectError(await h.call('POST', path, { key, body: { checkout: '2026-03-12T10:00' } }), 400, 'invalid_checkout');
    expectError(await h.call('POST', path, { key, body: { checkout: 'soon' } }), 400, 'invalid_checkout');
    expectError(await h.call('POST', path, { key, body: { checkout: '2026-03-25T10:00', date_checkout: '2026-03-26T10:00' } }), 400, 'invalid_checkout');
    expectError(await h.call('POST', path, { key, body: '[' }), 400, 'invalid_request_body');
    expectError(await h.call('POST', `/my/reservation/${cancelled.uuid}/extension-link`, { key }), 400, 'reservation_not_active');
    expectError(await h.call('POST', '/my/reservation/123/extension-link', { key }), 400, 'invalid_reservation_id');
  });

  test('executes a confirmed extension with an EXTEND invoice (the transition the page uses)', async ({ h, key, danaTrips }) => {
    const { paid } = await danaTrips();
    const preview = ExtensionPrice.parse(
      (await h.call('POST', `/my/billing/reservation/${paid.uuid}/extension/price`, { key, body: { modification_type: 'extend', new_checkout_date_time_local: '2026-04-05T10:00' } })).json.data,
    );
    const done = await h.admin('POST', '/extend', { reservation_uuid: paid.uuid, checkout: '2026-04-05T10:00' });
    expect(done.status).toBe(200);
    expect(done.json.total_amount).toBe(preview.total_amount);
    const d = (await h.call('GET', `/my/reservation/${paid.uuid}`, { key })).json.data;
    expect(d.date_checkout).toBe('2026-04-05T10:00');
    expect(d.invoices.find((i: any) => i.type === 'EXTEND')).toMatchObject({ amount: preview.total_amount, billing_status: 'ISSUED' });
    expect(d.payment_status).toMatchObject({ type: 'to_pay', amount: preview.total_amount });
  });
});

describe('account reads', () => {
  test('shows the profile with the one saved card and no secrets', async ({ h, key }) => {
    const p = Profile.parse((await h.call('GET', '/my/profile', { key })).json.data);
    expect(p).toMatchObject({ first_name: 'Dana', is_approved_to_drive: true });
    expect(p.payment_methods).toEqual([{ id: expect.any(String), card_brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2029 }]);
    expect(CardList.parse((await h.call('GET', '/my/billing/cards', { key })).json.data)).toEqual(p.payment_methods);
    expect((await h.call('GET', '/my/billing/cards', { key: h.sb.keys.no_card_payments })).json.data).toEqual([]);
  });

  test('shows verification: verified, expiring soon, pending and expired', async ({ h, key }) => {
    const v = async (k: string) => VerificationStatus.parse((await h.call('GET', '/my/verification', { key: k })).json.data);
    expect(await v(key)).toMatchObject({ status: 'verified', is_approved_to_drive: true, drivers_license: { status: 'approved', expired: false, expiring_soon: false } });
    expect(await v(h.sb.keys.other_customer)).toMatchObject({ status: 'verified', drivers_license: { expires_at: '2026-03-30', expiring_soon: true, expired: false } });
    expect(await v(h.sb.keys.unverified)).toMatchObject({ status: 'pending', is_approved_to_drive: false, drivers_license: { status: 'pending', expires_at: null } });
    expect(await v(h.extra.expired_licence)).toMatchObject({ status: 'unknown', is_approved_to_drive: false, drivers_license: { expired: true, expiring_soon: false } });
  });
});
