// The customer pages over real HTTP (no browser): login, review, confirmation through the
// rules.ts transitions, and everything a page must refuse. The same loop in a real browser
// is pages.browser.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TripsList } from '../../src/api/schemas.js';
import { formatCents } from '../../src/render/money.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { FIXED_NOW, type Harness, availableCar, danaTrips, expectError, reserve, startHarness, tempDir, tripBody } from './harness.js';
import { PageClient, field, formFields, pathOf, testId } from './page-client.js';

let h: Harness;
let tmp: ReturnType<typeof tempDir>;
let statePath: string;
let key: string;
let browser: PageClient;

beforeEach(async () => {
  tmp = tempDir();
  statePath = join(tmp.dir, 'state.json');
  h = await startHarness({ statePath, config: { maxActiveReservations: 100 } });
  key = h.sb.keys.booking_write;
  browser = new PageClient(new URL(h.sb.appUrl).origin);
});
afterEach(async () => {
  await h.close();
  tmp.cleanup();
});


const detail = async (uuid: string, k = key) => (await h.call('GET', `/my/reservation/${uuid}`, { key: k })).json.data;
const link = async (path: string, body?: unknown, k = key) => {
  const res = await h.call('POST', path, { key: k, body });
  expect(res.status, res.text).toBe(200);
  return res.json.data as { url: string; agent_flow_id: string; action: string };
};

describe('login', () => {
  it('a link opens nothing without a login: it goes to the demo login and comes back to the link', async () => {
    const { unpaid } = await danaTrips(h, key);
    const action = await link(`/my/reservation/${unpaid.uuid}/payment-link`, { payment_type: 'rent' });
    const first = await browser.get(pathOf(action.url));
    expect(first.status).toBe(303);
    expect(first.location).toBe(`/app/login?next=${encodeURIComponent(pathOf(action.url))}`);
    const login = await browser.open(first.location!);
    expect(login.status).toBe(200);
    for (const name of ['Dana Reyes', 'Omar Haddad', 'Lee Park', 'Sam Okafor', 'Pat Morgan']) expect(login.html).toContain(name);
    const next = field(login.html, 'next')!;
    expect(next).toBe(pathOf(action.url));

    const res = await browser.post('/app/login', { customer: 'dana', next });
    expect(res.status).toBe(303);
    expect(res.location).toBe(pathOf(action.url));
    const cookie = res.headers.getSetCookie()[0];
    expect(cookie).toMatch(/^carrental_sandbox_\d+=[\w-]{32}; Path=\/app; HttpOnly; SameSite=Lax/);
    expect((await browser.get(res.location!)).status).toBe(200);
  });

  it('never redirects off the application after login, and refuses an unknown customer', async () => {
    for (const next of ['https://evil.example/', '//evil.example/app', '/v1/my/profile', '/application']) {
      const c = new PageClient(browser.origin);
      const res = await c.post('/app/login', { customer: 'dana', next });
      expect(res.location, next).toBe('/app/');
    }
    expect((await browser.post('/app/login', { customer: 'mallory' })).status).toBe(400);
    expect(browser.cookieHeader).toBe('');
  });

  it('logs out with the token, which ends the session', async () => {
    await browser.login('dana');
    const home = await browser.open('/app/');
    expect(home.html).toContain('Hello, Dana');
    expect((await browser.post('/app/logout', { csrf: 'wrong' })).status).toBe(403);
    const out = await browser.post('/app/logout', { csrf: field(home.html, 'csrf')! });
    expect(out.status).toBe(303);
    expect(browser.cookieHeader).toBe('');
    expect((await browser.get('/app/')).status).toBe(303);
  });
});

describe('paying rent and the deposit', () => {
  it('rent: the review shows the amount owed read from the state; confirming pays it (settled, RENT PAID, booked)', async () => {
    const { unpaid } = await danaTrips(h, key);
    const before = await detail(unpaid.uuid!);
    expect(before.payment_status.type).toBe('to_pay');
    const action = await link(`/my/reservation/${unpaid.uuid}/payment-link`, { payment_type: 'rent' }, h.sb.keys.read_only);
    await browser.login('dana');
    const review = await browser.open(pathOf(action.url));
    expect(review.status).toBe(200);
    expect(review.html).toContain('Pay the rent');
    expect(testId(review.html, 'amount')).toBe(formatCents(before.balance_cents));
    expect(testId(review.html, 'amount')).toBe(formatCents(before.payment_status.amount));
    expect(review.html).toContain('Visa •••• 4242');
    expect(review.html).toContain(before.car.name);
    expect(review.html).toContain(`${before.date_checkin.replace('T', ' ')} America/Los_Angeles`);

    const form = formFields(review.html, `/app/trips/${unpaid.uuid}/pay`);
    expect(form).toMatchObject({ payment_type: 'reservation', amount_cents: String(before.balance_cents), agent_flow_id: action.agent_flow_id });
    const done = await browser.submit(`/app/trips/${unpaid.uuid}/pay`, form);
    expect(done.status).toBe(200);
    expect(done.url).toMatch(/^\/app\/done\/[\w-]+$/);
    expect(testId(done.html, 'result')).toContain(`${formatCents(before.balance_cents)} was charged to Visa •••• 4242`);
    expect(done.html).toContain('go back to your agent');

    const after = await detail(unpaid.uuid!);
    expect(after.payment_status).toEqual({ type: 'settled' });
    expect(after.balance_cents).toBe(0);
    expect(after.is_booked).toBe(true);
    expect(after.invoices.find((i: any) => i.type === 'RENT').billing_status).toBe('PAID');
    expect(after.invoices.find((i: any) => i.type === 'DEPOSIT').billing_status).toBe('ISSUED');

    // Submitting again pays nothing twice.
    const again = await browser.post(`/app/trips/${unpaid.uuid}/pay`, form);
    expect(again.status).toBe(409);
    expect(again.html).toContain('Nothing is owed on this reservation any more');
  });

  it('deposit: the review shows the deposit; confirming places a HOLD (PAID in the legacy status), not a charge', async () => {
    const { unpaid } = await danaTrips(h, key);
    const before = await detail(unpaid.uuid!);
    const deposit = before.invoices.find((i: any) => i.type === 'DEPOSIT');
    const action = await link(`/my/reservation/${unpaid.uuid}/payment-link`, { payment_type: 'deposit' });
    expect(action.url).toContain('payment_type=deposit');
    await browser.login('dana');
    const review = await browser.open(pathOf(action.url));
    expect(testId(review.html, 'amount')).toBe(formatCents(deposit.amount));
    expect(testId(review.html, 'amount')).toBe(formatCents(before.financial_summary.deposit_cents));
    expect(review.html).toContain('hold');
    const done = await browser.submit(`/app/trips/${unpaid.uuid}/pay`, formFields(review.html, `/app/trips/${unpaid.uuid}/pay`));
    expect(testId(done.html, 'result')).toContain(`A hold of ${formatCents(deposit.amount)} is placed on Visa •••• 4242`);

    const after = await detail(unpaid.uuid!);
    expect(after.invoices.find((i: any) => i.id === deposit.id)).toMatchObject({ billing_status: 'HOLD', status: 'PAID' });
    expect(after.payment_status.type).toBe('to_pay');
    const invoice = (await h.call('GET', `/my/billing/invoice/${deposit.id}`, { key })).json.data;
    expect(invoice).toMatchObject({ billing_status: 'HOLD', status: 'HOLD' });
  });

  it('refuses to charge an amount other than the one reviewed', async () => {
    const { unpaid } = await danaTrips(h, key);
    await browser.login('dana');
    const review = await browser.open(`/app/trips/${unpaid.uuid}?intent=pay&payment_type=reservation`);
    const form = formFields(review.html, `/app/trips/${unpaid.uuid}/pay`);
    // Meanwhile the trip was extended: more is owed than the customer saw.
    const checkout = `${unpaid.date_checkout!.slice(0, 8)}${String(Number(unpaid.date_checkout!.slice(8, 10)) + 1).padStart(2, '0')}${unpaid.date_checkout!.slice(10)}`;
    expect((await h.admin('POST', '/extend', { reservation_uuid: unpaid.uuid, checkout })).status).toBe(200);
    const res = await browser.post(`/app/trips/${unpaid.uuid}/pay`, form);
    expect(res.status).toBe(409);
    expect(res.html).toContain('The amount changed');
    const after = await detail(unpaid.uuid!);
    expect(after.payment_status.type).toBe('to_pay');
    expect(after.invoices.filter((i: any) => i.billing_status === 'PAID')).toEqual([]);
  });

  it('error pages: a foreign or unknown reservation is a 404, a cancelled one and nothing to pay a 409, a bad type a 400', async () => {
    const { paid, cancelled, unpaid } = await danaTrips(h, key);
    const omars = TripsList.parse((await h.call('GET', '/my/trips', { key: h.sb.keys.other_customer })).json.data).active[0];
    const omarLink = await link(`/my/reservation/${omars.uuid}/payment-link`, { payment_type: 'rent' }, h.sb.keys.other_customer);
    await browser.login('dana');

    const foreign = await browser.get(pathOf(omarLink.url));
    expect(foreign.status).toBe(404);
    expect(foreign.html).toContain('There is no trip here');
    expect(foreign.html).not.toContain(omars.car!.name);
    expect((await browser.get('/app/trips/00000000-0000-4000-8000-000000000000?intent=pay&payment_type=reservation')).status).toBe(404);
    expect((await browser.get('/app/trips/not-a-uuid?intent=pay&payment_type=reservation')).status).toBe(404);
    // Posting to a foreign trip changes nothing either.
    const csrf = field((await browser.open('/app/')).html, 'csrf')!;
    expect((await browser.post(`/app/trips/${omars.uuid}/pay`, { csrf, payment_type: 'reservation', amount_cents: String(omars.balance_cents) })).status).toBe(404);
    expect((await detail(omars.uuid!, h.sb.keys.other_customer)).payment_status.type).toBe('to_pay');

    const cancelledPage = await browser.get(`/app/trips/${cancelled.uuid}?intent=pay&payment_type=reservation`);
    expect(cancelledPage.status).toBe(409);
    expect(cancelledPage.html).toContain('This reservation is cancelled');
    const nothing = await browser.get(`/app/trips/${paid.uuid}?intent=pay&payment_type=reservation`);
    expect(nothing.status).toBe(409);
    expect(nothing.html).toContain('Nothing to pay');
    expect((await browser.get(`/app/trips/${paid.uuid}?intent=pay&payment_type=deposit`)).status).toBe(409);
    const badType = await browser.get(`/app/trips/${unpaid.uuid}?intent=pay&payment_type=rent`);
    expect(badType.status).toBe(400);
    expect(badType.html).toContain('payment_type must be reservation or deposit');
  });

  it('offers no payment when card payments are not enabled', async () => {
    const sam = h.sb.keys.no_card_payments;
    const car = await availableCar(h, '2026-04-01T10:00', '2026-04-04T10:00');
    const uuid = await reserve(h, sam, tripBody(car.car_alias, '2026-04-01T10:00', '2026-04-04T10:00'));
    const action = await link(`/my/reservation/${uuid}/payment-link`, { payment_type: 'rent' }, sam);
    await browser.login('sam');
    const review = await browser.open(pathOf(action.url));
    expect(review.status).toBe(200);
    expect(review.html).toContain('Card payments are not enabled');
    expect(review.html).not.toContain(`action="/app/trips/${uuid}/pay"`);
    const csrf = field(review.html, 'csrf')!;
    const res = await browser.post(`/app/trips/${uuid}/pay`, { csrf, payment_type: 'reservation', amount_cents: String((await detail(uuid, sam)).balance_cents) });
    expect(res.status).toBe(403);
    expect((await detail(uuid, sam)).payment_status.type).toBe('to_pay');
  });
});

describe('adding or replacing the card', () => {
  it('card-add (no card saved): saving keeps only brand, last four digits and expiry', async () => {
    const lee = h.sb.keys.unverified;
    expect((await h.call('GET', '/my/billing/cards', { key: lee })).json.data).toEqual([]);
    const action = await link('/my/billing/cards/add-link', undefined, lee);
    expect(pathOf(action.url)).toBe(`/app/billing/card-add?agent_flow_id=${action.agent_flow_id}`);
    await browser.login('lee');
    const form = await browser.open(pathOf(action.url));
    expect(form.status).toBe(200);
    expect(form.html).toContain('Add a card');
    const fields = { ...formFields(form.html, '/app/billing/cards'), number: '5555 5555 5555 4444', exp_month: '7', exp_year: '2029', cvc: '123' };
    const done = await browser.submit('/app/billing/cards', fields);
    expect(testId(done.html, 'result')).toContain('Mastercard •••• 4444');
    const cards = (await h.call('GET', '/my/billing/cards', { key: lee })).json.data;
    expect(cards).toEqual([{ id: expect.stringMatching(/^card_/), card_brand: 'mastercard', last4: '4444', exp_month: 7, exp_year: 2029 }]);
    expect(readFileSync(statePath, 'utf8')).not.toContain('5555555555554444');
  });

  it('cards (a card saved): the page shows it and replaces it', async () => {
    const action = await link('/my/billing/cards/add-link');
    expect(pathOf(action.url)).toBe(`/app/billing/cards?agent_flow_id=${action.agent_flow_id}`);
    await browser.login('dana');
    const review = await browser.open(pathOf(action.url));
    expect(testId(review.html, 'saved-card')).toBe('Visa •••• 4242');
    expect(review.html).toContain('Saving replaces');
    const done = await browser.submit('/app/billing/cards', { ...formFields(review.html, '/app/billing/cards'), number: '378282246310005', exp_month: '3', exp_year: '2030', cvc: '1234' });
    expect(testId(done.html, 'result')).toContain('it replaces Visa •••• 4242');
    const cards = (await h.call('GET', '/my/billing/cards', { key })).json.data;
    expect(cards).toMatchObject([{ card_brand: 'amex', last4: '0005', exp_month: 3, exp_year: 2030 }]);
  });

  it('rejects invalid numbers, expired cards and missing codes with the form again, saving nothing', async () => {
    await browser.login('dana');
    const page = await browser.open('/app/billing/cards');
    const base = formFields(page.html, '/app/billing/cards');
    const cases: [Record<string, string>, string][] = [
      [{ number: '4242 4242 4242 4241', exp_month: '1', exp_year: '2030', cvc: '123' }, 'not valid'],
      [{ number: '1234', exp_month: '1', exp_year: '2030', cvc: '123' }, '13 to 19 digits'],
      [{ number: '9999 9999 9999 9995', exp_month: '1', exp_year: '2030', cvc: '123' }, 'Visa, Mastercard'],
      [{ number: '4242424242424242', exp_month: '2', exp_year: '2026', cvc: '123' }, 'expired'],
      [{ number: '4242424242424242', exp_month: '2', exp_year: '2030', cvc: '' }, 'security code'],
    ];
    for (const [input, message] of cases) {
      const res = await browser.post('/app/billing/cards', { ...base, ...input });
      expect(res.status, message).toBe(400);
      expect(testId(res.html, 'problem')).toContain(message);
    }
    expect((await h.call('GET', '/my/billing/cards', { key })).json.data[0].last4).toBe('4242');
  });

  it('refuses a customer without card payments', async () => {
    await browser.login('sam');
    expect((await browser.get('/app/billing/card-add')).status).toBe(403);
    const csrf = field((await browser.open('/app/')).html, 'csrf')!;
    const res = await browser.post('/app/billing/cards', { csrf, number: '4242424242424242', exp_month: '1', exp_year: '2030', cvc: '123' });
    expect(res.status).toBe(403);
    expect((await h.call('GET', '/my/billing/cards', { key: h.sb.keys.no_card_payments })).json.data).toEqual([]);
  });
});

describe('confirming an extension', () => {
  it('shows the price of the link’s target from the state and moves the checkout with an EXTEND invoice on confirm', async () => {
    const { unpaid } = await danaTrips(h, key);
    const target = `${unpaid.date_checkout!.slice(0, 8)}${String(Number(unpaid.date_checkout!.slice(8, 10)) + 2).padStart(2, '0')}T12:00`;
    const price = (await h.call('POST', `/my/billing/reservation/${unpaid.uuid}/extension/price`, { key, body: { modification_type: 'extend', new_checkout_date_time_local: target } })).json.data;
    expect(price.total_amount).toBeGreaterThan(0);
    const action = await link(`/my/reservation/${unpaid.uuid}/extension-link`, { checkout: target });
    expect(pathOf(action.url)).toBe(`/app/trips/${unpaid.uuid}/modify?checkout=${target}&agent_flow_id=${action.agent_flow_id}`);
    await browser.login('dana');
    const review = await browser.open(pathOf(action.url));
    expect(review.status).toBe(200);
    expect(testId(review.html, 'amount')).toBe(formatCents(price.total_amount));
    expect(field(review.html, 'checkout')).toBe(target);
    expect((await detail(unpaid.uuid!)).date_checkout).toBe(unpaid.date_checkout);

    const done = await browser.submit(`/app/trips/${unpaid.uuid}/modify`, formFields(review.html, `/app/trips/${unpaid.uuid}/modify`));
    expect(testId(done.html, 'result')).toContain(`${target.replace('T', ' ')} America/Los_Angeles`);
    const after = await detail(unpaid.uuid!);
    expect(after.date_checkout).toBe(target);
    expect(after.days).toBe(unpaid.days + price.additional_days);
    const extend = after.invoices.filter((i: any) => i.type === 'EXTEND');
    expect(extend).toMatchObject([{ billing_status: 'ISSUED', amount: price.total_amount }]);
    expect(after.balance_cents).toBe(unpaid.balance_cents + price.total_amount);
  });

  it('without a target shows a form; a bad target is shown as a problem; a past or cancelled trip cannot be extended', async () => {
    const { unpaid, cancelled, complete } = await danaTrips(h, key);
    await browser.login('dana');
    const form = await browser.open(`/app/trips/${unpaid.uuid}/modify`);
    expect(form.status).toBe(200);
    expect(form.html).toContain('type="datetime-local"');
    expect(form.html).not.toContain('Confirm the extension');
    const bad = await browser.get(`/app/trips/${unpaid.uuid}/modify?checkout=${unpaid.date_checkin}`);
    expect(bad.status).toBe(400);
    expect(testId(bad.html, 'problem')).toContain('later than');
    expect((await browser.get(`/app/trips/${cancelled.uuid}/modify`)).status).toBe(409);
    expect((await browser.get(`/app/trips/${complete.uuid}/modify`)).status).toBe(400);
    expect((await detail(unpaid.uuid!)).date_checkout).toBe(unpaid.date_checkout);
  });

  it('a price that changed since the review is refused', async () => {
    const { unpaid } = await danaTrips(h, key);
    const target = `${unpaid.date_checkout!.slice(0, 8)}${String(Number(unpaid.date_checkout!.slice(8, 10)) + 1).padStart(2, '0')}T12:00`;
    await browser.login('dana');
    const review = await browser.open(`/app/trips/${unpaid.uuid}/modify?checkout=${target}`);
    const form = formFields(review.html, `/app/trips/${unpaid.uuid}/modify`);
    const res = await browser.post(`/app/trips/${unpaid.uuid}/modify`, { ...form, amount_cents: String(Number(form.amount_cents) - 1) });
    expect(res.status).toBe(400);
    expect(res.html).toContain('The price changed');
    expect((await detail(unpaid.uuid!)).date_checkout).toBe(unpaid.date_checkout);
  });
});

describe('opening links changes nothing', () => {
  it('no GET of any page writes the state file, whatever the link', async () => {
    const { unpaid, cancelled, paid } = await danaTrips(h, key);
    const target = `${unpaid.date_checkout!.slice(0, 8)}${String(Number(unpaid.date_checkout!.slice(8, 10)) + 1).padStart(2, '0')}T12:00`;
    const links = [
      await link(`/my/reservation/${unpaid.uuid}/payment-link`, { payment_type: 'rent' }),
      await link(`/my/reservation/${unpaid.uuid}/payment-link`, { payment_type: 'deposit' }),
      await link('/my/billing/cards/add-link'),
      await link(`/my/reservation/${unpaid.uuid}/extension-link`, { checkout: target }),
      await link(`/my/reservation/${unpaid.uuid}/extension-link`),
    ];
    // Reading the detail prepares the debt invoice (a write of its own): done before the snapshot.
    await detail(unpaid.uuid!);
    const before = readFileSync(statePath, 'utf8');
    for (const l of links) await browser.open(pathOf(l.url));
    await browser.login('dana');
    const pages = [
      ...links.map((l) => pathOf(l.url)),
      '/app/',
      `/app/trips/${unpaid.uuid}`,
      `/app/trips/${cancelled.uuid}?intent=pay&payment_type=reservation`,
      `/app/trips/${paid.uuid}?intent=pay&payment_type=deposit`,
      `/app/trips/${unpaid.uuid}/modify?checkout=${target}`,
      '/app/billing/card-add',
      '/app/settings/api-keys',
    ];
    for (const path of pages) {
      const res = await browser.open(path);
      expect(res.status, path).toBeLessThan(500);
    }
    expect(readFileSync(statePath, 'utf8')).toBe(before);
    expect((await detail(unpaid.uuid!)).payment_status.type).toBe('to_pay');
  });
});

describe('forms are protected', () => {
  it('a confirmation without the session’s token, from another site, or without a session changes nothing', async () => {
    const { unpaid } = await danaTrips(h, key);
    await browser.login('dana');
    const review = await browser.open(`/app/trips/${unpaid.uuid}?intent=pay&payment_type=reservation`);
    const form = formFields(review.html, `/app/trips/${unpaid.uuid}/pay`);
    const path = `/app/trips/${unpaid.uuid}/pay`;

    expect((await browser.post(path, { ...form, csrf: '' })).status).toBe(403);
    // its last character changed (to x, or to y when it already ends in x: a token ending in
    // x, one in 64, was sent unchanged and accepted)
    const tampered = `${form.csrf.slice(0, -1)}${form.csrf.endsWith('x') ? 'y' : 'x'}`;
    expect(tampered).not.toBe(form.csrf);
    expect((await browser.post(path, { ...form, csrf: tampered })).status).toBe(403);
    expect((await browser.post(path, form, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await browser.post(path, form, { Origin: 'null' })).status).toBe(403);
    expect((await browser.post(path, form, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    const stranger = new PageClient(browser.origin);
    expect((await stranger.post(path, form)).status).toBe(401);
    // Another session's token is not this session's.
    const other = new PageClient(browser.origin);
    await other.login('dana');
    expect((await other.post(path, form)).status).toBe(403);

    expect((await detail(unpaid.uuid!)).payment_status.type).toBe('to_pay');
    // The genuine form still works.
    expect((await browser.post(path, form, { Origin: browser.origin, 'Sec-Fetch-Site': 'same-origin' })).status).toBe(303);
    expect((await detail(unpaid.uuid!)).payment_status.type).toBe('settled');
  });

  it('pages carry headers that forbid scripts and framing; unknown paths are 404 and other methods 405', async () => {
    const res = await browser.get('/app/login');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.html).not.toContain('<script');
    const head = await fetch(`${browser.origin}/app/login`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await browser.get('/app/nowhere')).status).toBe(404);
    const put = await browser.request('PUT', '/app/login');
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await browser.get('/app/trips/x/pay')).status).toBe(405);
  });
});

describe('the API-key settings page', () => {
  it('is where the 403 api_key_write_upgrade_required points; it lists keys masked and creates a booking_write key shown once', async () => {
    const refused = await h.call('POST', '/my/reservation', { key: h.sb.keys.read_only, body: {}, idempotencyKey: 'k'.repeat(20) });
    expectError(refused, 403, 'api_key_write_upgrade_required');
    const settingsUrl = /(http:\/\/\S+\/app\/settings\/api-keys)/.exec(refused.json.description)![1];
    await browser.login('dana');
    const page = await browser.open(pathOf(settingsUrl));
    expect(page.status).toBe(200);
    expect(page.html).toContain('API keys');
    expect(page.html).toContain(`svc_…${h.sb.keys.read_only.slice(-4)}`);
    expect(page.html).not.toContain(h.sb.keys.read_only);
    expect(page.html).not.toContain(h.sb.keys.booking_write);

    const done = await browser.submit('/app/settings/api-keys', { ...formFields(page.html, '/app/settings/api-keys'), capability: 'booking_write' });
    const newKey = testId(done.html, 'new-key')!;
    expect(newKey).toMatch(/^svc_[0-9a-f]{32}$/);
    expect((await browser.get(done.url)).status).toBe(404);
    expect((await h.call('GET', '/my/profile', { key: newKey })).json.data.first_name).toBe('Dana');
    const car = await availableCar(h, '2026-04-10T10:00', '2026-04-12T10:00');
    const created = await h.call('POST', '/my/reservation', { key: newKey, body: tripBody(car.car_alias, '2026-04-10T10:00', '2026-04-12T10:00'), idempotencyKey: 'x'.repeat(24) });
    expect(created.status, created.text).toBe(200);
  });
});

describe('links that point at another sandbox process', () => {
  it('a link made by a command’s embedded sandbox is completed on `sandbox serve` sharing the state file', async () => {
    // `serve` plays `carrental sandbox serve` on the stable port; `embedded` the sandbox of a
    // CLI command, whose links point at serve's origin (appOrigin).
    const serve = await startSandbox({ statePath, now: () => FIXED_NOW, quiet: true });
    const serveOrigin = new URL(serve.appUrl).origin;
    const embedded = await startSandbox({ statePath, now: () => FIXED_NOW, quiet: true, appOrigin: serveOrigin });
    try {
      const get = async (path: string) => (await fetch(embedded.baseUrl + path, { headers: { Authorization: `Bearer ${key}` } })).json() as Promise<any>;
      const unpaid = (await get('/my/trips')).data.active.find((t: any) => t.balance_cents > 0);
      const res = await fetch(`${embedded.baseUrl}/my/reservation/${unpaid.uuid}/payment-link`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{"payment_type":"rent"}' });
      const url = ((await res.json()) as any).data.url as string;
      expect(url.startsWith(`${serveOrigin}/app/trips/${unpaid.uuid}?`)).toBe(true);
      await embedded.close();

      const customer = new PageClient(serveOrigin);
      await customer.login('dana', pathOf(url));
      const review = await customer.open(pathOf(url));
      const done = await customer.submit(`/app/trips/${unpaid.uuid}/pay`, formFields(review.html, `/app/trips/${unpaid.uuid}/pay`), { Origin: serveOrigin, 'Sec-Fetch-Site': 'same-origin' });
      expect(done.status).toBe(200);
      expect(testId(done.html, 'result')).toContain('was charged');
      const after = (await (await fetch(`${serve.baseUrl}/my/reservation/${unpaid.uuid}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as any;
      expect(after.data.payment_status).toEqual({ type: 'settled' });
    } finally {
      await embedded.close();
      await serve.close();
    }
  });

  it('a sandbox whose links name another origin still serves its own pages: cookie and origin follow the server that answers', async () => {
    const other = await startSandbox({ now: () => FIXED_NOW, quiet: true, appOrigin: 'http://127.0.0.1:1' });
    try {
      const origin = new URL(other.baseUrl).origin;
      const c = new PageClient(origin);
      const login = await c.post('/app/login', { customer: 'dana', next: '/app/' }, { Origin: origin });
      expect(login.status).toBe(303);
      expect(login.headers.getSetCookie()[0]).toMatch(new RegExp(`^carrental_sandbox_${new URL(origin).port}=`));
      expect((await c.get('/app/')).status).toBe(200);
      expect((await c.post('/app/login', { customer: 'dana' }, { Origin: 'http://127.0.0.1:1' })).status).toBe(403);
    } finally {
      await other.close();
    }
  });
});
