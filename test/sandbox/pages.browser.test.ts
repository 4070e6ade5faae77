// The whole loop in a real headless browser (Chromium's headless shell through playwright-core):
// an agent gets a link from the API (real HTTP, demo key), the customer opens it, logs in,
// reviews the amount, confirms, and the API then shows the new state. Opening links
// without confirming changes nothing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatCents } from '../../src/render/money.js';
import { launchChromium } from '../helpers/chromium.js';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
let browser: BrowserContext;
let page: Page;
let closeBrowser: (() => Promise<void>) | undefined;
let stateDir: string;
let statePath: string;

beforeAll(async () => {
  ({ browser, close: closeBrowser } = await launchChromium());
}, 60_000);
afterAll(async () => {
  await closeBrowser?.();
});

beforeEach(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'carrental-pages-'));
  statePath = join(stateDir, 'state.json');
  h = await startHarness({ statePath, config: { maxActiveReservations: 100 } });
  await browser.clearCookies();
  page = await browser.newPage();
  // Fail on the step that hangs, well before the test's own timeout.
  page.setDefaultTimeout(10_000);
});
afterEach(async () => {
  await page.close();
  await h.close();
  rmSync(stateDir, { recursive: true, force: true });
});

const key = () => h.sb.keys.booking_write;
const detail = async (uuid: string) => (await h.call('GET', `/my/reservation/${uuid}`, { key: key() })).json.data;
const unpaidTrip = async () => (await h.call('GET', '/my/trips', { key: key() })).json.data.active.find((t: any) => t.balance_cents > 0);

async function linkFor(path: string, body?: unknown, k = key()): Promise<{ url: string; agent_flow_id: string }> {
  const res = await h.call('POST', path, { key: k, body, headers: { 'X-Agent-Client': 'carrental-browser-test/1' } });
  expect(res.status, res.text).toBe(200);
  return res.json.data;
}

/** Opens the link like a customer: the app asks for a login, then comes back to the link. */
async function openAndLogin(url: string, customer = 'dana'): Promise<void> {
  await page.goto(url);
  expect(new URL(page.url()).pathname).toBe('/app/login');
  await page.check(`input[name="customer"][value="${customer}"]`);
  await Promise.all([page.waitForURL((u) => u.pathname !== '/app/login'), page.click('button[type="submit"]')]);
  expect(page.url()).toBe(url);
}

async function confirm(label: RegExp): Promise<string> {
  await Promise.all([page.waitForURL(/\/app\/done\//), page.getByRole('button', { name: label }).click()]);
  return (await page.getByTestId('result').textContent()) ?? '';
}

describe('customer pages in a real browser', () => {
  it('pay rent: link → login → review shows the amount owed → confirm → the reservation is settled', async () => {
    const trip = await unpaidTrip();
    const before = await detail(trip.uuid);
    const link = await linkFor(`/my/reservation/${trip.uuid}/payment-link`, { payment_type: 'rent' });
    await openAndLogin(link.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Pay the rent');
    expect(await page.getByTestId('amount').textContent()).toBe(formatCents(before.balance_cents));
    await expect.poll(() => page.textContent('body')).toContain('carrental-browser-test/1');
    const result = await confirm(/^Pay \$/);
    expect(result).toContain(`${formatCents(before.balance_cents)} was charged to Visa •••• 4242`);
    expect(await page.textContent('main')).toContain('go back to your agent');

    const after = await detail(trip.uuid);
    expect(after.payment_status).toEqual({ type: 'settled' });
    expect(after.is_booked).toBe(true);
    expect(after.invoices.find((i: any) => i.type === 'RENT').billing_status).toBe('PAID');
  });

  it('pay the deposit: the review shows the deposit; confirming places a HOLD', async () => {
    const trip = await unpaidTrip();
    const deposit = (await detail(trip.uuid)).invoices.find((i: any) => i.type === 'DEPOSIT');
    const link = await linkFor(`/my/reservation/${trip.uuid}/payment-link`, { payment_type: 'deposit' });
    await openAndLogin(link.url);
    expect(await page.getByTestId('amount').textContent()).toBe(formatCents(deposit.amount));
    const result = await confirm(/^Authorize \$/);
    expect(result).toContain(`A hold of ${formatCents(deposit.amount)}`);
    const invoice = (await h.call('GET', `/my/billing/invoice/${deposit.id}`, { key: key() })).json.data;
    expect(invoice.billing_status).toBe('HOLD');
    expect((await detail(trip.uuid)).invoices.find((i: any) => i.id === deposit.id)).toMatchObject({ billing_status: 'HOLD', status: 'PAID' });
  });

  it('add a card: the customer without one types a test card; the API then shows it masked', async () => {
    const lee = h.sb.keys.unverified;
    const link = await linkFor('/my/billing/cards/add-link', undefined, lee);
    expect(new URL(link.url).pathname).toBe('/app/billing/card-add');
    await openAndLogin(link.url, 'lee');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Add a card');
    await page.fill('#number', '4000 0566 5566 5556');
    await page.selectOption('#exp_month', '11');
    await page.selectOption('#exp_year', '2030');
    await page.fill('#cvc', '321');
    const result = await confirm(/Save the card/);
    expect(result).toContain('Visa •••• 5556');
    const cards = (await h.call('GET', '/my/billing/cards', { key: lee })).json.data;
    expect(cards).toMatchObject([{ card_brand: 'visa', last4: '5556', exp_month: 11, exp_year: 2030 }]);
  });

  it('replace the card: the customer with one reviews it on /billing/cards and replaces it', async () => {
    const link = await linkFor('/my/billing/cards/add-link');
    expect(new URL(link.url).pathname).toBe('/app/billing/cards');
    await openAndLogin(link.url);
    expect(await page.getByTestId('saved-card').textContent()).toBe('Visa •••• 4242');
    await page.fill('#number', '5555555555554444');
    await page.fill('#cvc', '123');
    expect(await confirm(/Replace the card/)).toContain('it replaces Visa •••• 4242');
    expect((await h.call('GET', '/my/billing/cards', { key: key() })).json.data).toMatchObject([{ card_brand: 'mastercard', last4: '4444' }]);
  });

  it('extend: the review shows the price for the link’s checkout; confirming moves it and adds an EXTEND invoice', async () => {
    const trip = await unpaidTrip();
    const target = `${trip.date_checkout.slice(0, 10)}T20:00`;
    const price = (await h.call('POST', `/my/billing/reservation/${trip.uuid}/extension/price`, { key: key(), body: { modification_type: 'extend', new_checkout_date_time_local: target } })).json.data;
    const link = await linkFor(`/my/reservation/${trip.uuid}/extension-link`, { checkout: target });
    await openAndLogin(link.url);
    expect(await page.inputValue('#checkout')).toBe(target);
    expect(await page.getByTestId('amount').textContent()).toBe(formatCents(price.total_amount));
    expect((await detail(trip.uuid)).date_checkout).toBe(trip.date_checkout);
    const result = await confirm(/Confirm the extension/);
    expect(result).toContain(`${target.replace('T', ' ')} America/Los_Angeles`);

    const after = await detail(trip.uuid);
    expect(after.date_checkout).toBe(target);
    expect(after.invoices.filter((i: any) => i.type === 'EXTEND')).toMatchObject([{ billing_status: 'ISSUED', amount: price.total_amount }]);
  });

  it('extend without a target: the customer picks a date, sees the price, and confirms', async () => {
    const trip = await unpaidTrip();
    const link = await linkFor(`/my/reservation/${trip.uuid}/extension-link`);
    await openAndLogin(link.url);
    const target = `${trip.date_checkout.slice(0, 10)}T21:00`;
    await page.fill('#checkout', target);
    await Promise.all([page.waitForURL(/checkout=/), page.getByRole('button', { name: 'Show the price' }).click()]);
    expect(new URL(page.url()).searchParams.get('agent_flow_id')).toBe(link.agent_flow_id);
    await confirm(/Confirm the extension/);
    expect((await detail(trip.uuid)).date_checkout).toBe(target);
  });

  it('opening every kind of link and reviewing without confirming changes nothing', async () => {
    const trip = await unpaidTrip();
    const links = [
      await linkFor(`/my/reservation/${trip.uuid}/payment-link`, { payment_type: 'rent' }),
      await linkFor(`/my/reservation/${trip.uuid}/payment-link`, { payment_type: 'deposit' }),
      await linkFor('/my/billing/cards/add-link'),
      await linkFor(`/my/reservation/${trip.uuid}/extension-link`, { checkout: `${trip.date_checkout.slice(0, 10)}T20:00` }),
    ];
    const before = { trip: await detail(trip.uuid), cards: (await h.call('GET', '/my/billing/cards', { key: key() })).json.data };
    const file = readFileSync(statePath, 'utf8');
    await openAndLogin(links[0].url);
    for (const l of links) {
      await page.goto(l.url);
      expect(await page.title()).not.toContain('Not found');
      await page.reload();
    }
    await page.goBack();
    await page.goto(`${h.sb.appUrl}/trips/${trip.uuid}`);
    expect(readFileSync(statePath, 'utf8')).toBe(file);
    expect(await detail(trip.uuid)).toEqual(before.trip);
    expect((await h.call('GET', '/my/billing/cards', { key: key() })).json.data).toEqual(before.cards);
  });

  it('a link to another customer’s trip shows a 404 page', async () => {
    const omars = (await h.call('GET', '/my/trips', { key: h.sb.keys.other_customer })).json.data.active[0];
    const link = await linkFor(`/my/reservation/${omars.uuid}/payment-link`, { payment_type: 'rent' }, h.sb.keys.other_customer);
    await page.goto(link.url);
    await page.check('input[value="dana"]');
    const [response] = await Promise.all([page.waitForResponse((r) => r.url() === link.url), page.click('button[type="submit"]')]);
    expect(response.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
    expect(await page.textContent('main')).not.toContain(omars.car.name);
  });
});
