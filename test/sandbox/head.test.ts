// HEAD on every GET route of the sandbox answers as GET without a body (RFC 9110): the API,
// the OpenAPI document, the admin endpoints and the customer pages. The routes come from the
// server's own tables, so a route added later is walked too.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/operations.js';
import { ADMIN_ROUTES } from '../../src/sandbox/admin.js';
import { PAGE_ROUTES } from '../../src/sandbox/pages.js';
import { type Harness, danaTrips, startHarness } from './harness.js';
import { PageClient } from './page-client.js';

let h: Harness;
let browser: PageClient;
let params: Record<string, string>;

beforeAll(async () => {
  h = await startHarness();
  const key = h.sb.keys.booking_write;
  const { unpaid } = await danaTrips(h, key);
  const invoices = (await h.call('GET', `/my/reservation/${unpaid.uuid}/invoices`, { key })).json;
  params = { alias: (await h.call('GET', '/cars?limit=1')).json.data.cars[0].car_alias, uuid: unpaid.uuid!, invoice: invoices[0].uuid };
  browser = new PageClient(new URL(h.sb.appUrl).origin);
  expect((await browser.post('/app/login', { customer: 'dana', next: '/app' })).status).toBe(303);
});
afterAll(() => h.close());

/** A template with real values: an invoice's `{uuid}` is an invoice, any other name a value nothing has. */
const fill = (template: string) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => (template.includes('/invoice/') && name === 'uuid' ? params.invoice : (params[name] ?? 'no-such-thing')));

/**
 * The headers that describe the answer: not the clock, the request's own id, nor the
 * connection's (node:http closes the connection after a HEAD, a plain node:http server too).
 */
const OWN = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
const headersOf = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => !OWN.has(name)));

function getRoutes(): { url: string; headers: Record<string, string> }[] {
  const key = { authorization: `Bearer ${h.sb.keys.booking_write}` };
  const app = new URL(h.sb.appUrl).origin;
  const api = OPERATIONS.filter((op) => op.method === 'GET').map((op) => ({ url: h.sb.baseUrl + fill(op.path), headers: op.auth === 'none' ? {} : key }));
  const admin = Object.keys(ADMIN_ROUTES)
    .filter((r) => r.startsWith('GET '))
    .map((r) => ({ url: h.sb.adminUrl + r.slice('GET '.length).replace(/^\/$/, ''), headers: {} }));
  const pages = PAGE_ROUTES.filter((r) => r.GET).flatMap((r) => r.paths.map((p) => ({ url: app + fill(p), headers: { cookie: browser.cookieHeader } })));
  return [...api, { url: `${h.sb.baseUrl}/openapi.json`, headers: {} }, ...admin, ...pages];
}

it('answers HEAD on every GET route with the status and headers of GET, Content-Length included, and no body', async () => {
  const routes = getRoutes();
  expect(routes.length).toBeGreaterThan(25);
  const seen = new Set<number>();
  for (const { url, headers } of routes) {
    // HEAD first: a HEAD must not use up what the GET then shows (a once-only done page)
    const head = await fetch(url, { method: 'HEAD', headers, redirect: 'manual' });
    const headBody = await head.text();
    const get = await fetch(url, { headers, redirect: 'manual' });
    const getBody = await get.text();
    expect(head.status, url).toBe(get.status);
    expect(headersOf(head), url).toEqual(headersOf(get));
    expect(Number(head.headers.get('content-length')), url).toBe(Buffer.byteLength(getBody));
    expect(headBody, url).toBe('');
    seen.add(get.status);
  }
  // the walk reaches real content, not only refusals
  expect(seen.has(200)).toBe(true);
});
