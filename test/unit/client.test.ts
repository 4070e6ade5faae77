// The request sender against a scripted loopback server: credentials, envelopes,
// validation, typed errors, retries, timeouts, keep-alive and --debug redaction.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient, NO_RETRY, READ_RETRY, type ClientOptions } from '../../src/api/client.js';
import { Api } from '../../src/api/endpoints.js';
import { CarsPage, Invoice } from '../../src/api/schemas.js';
import { CliError } from '../../src/errors.js';
import { hintFor } from '../../src/cmdkit/hints.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';
import { failure } from '../helpers/failure.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const PROFILE = { uuid: '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10', first_name: 'Dana', is_approved_to_drive: true, payment_methods: [] };
const INVOICE = {
  id: '7b0c2c9e-2a51-4f7b-8d5e-3b1f7a9c1d20',
  created_at: '2026-11-01T18:30',
  currency: 'USD',
  type: 'RENT',
  status: 'PAID',
  billing_status: 'PAID',
  amount: 30000,
  description: 'Rent',
  items: [],
};

let stub: StubServer;
const clients: ApiClient[] = [];
let sleeps: number[];
let debugLines: string[];

function client(opts: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({
    baseUrl: stub.baseUrl,
    timeoutMs: 5_000,
    userAgent: 'carrental/test',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    debug: (line) => debugLines.push(line),
    ...opts,
  });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  stub = await StubServer.start();
  sleeps = [];
  debugLines = [];
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stub.close();
});

describe('credentials', () => {
  it('sends exactly one credential header on /my calls', async () => {
    stub.handler = () => ({ json: { data: PROFILE } });
    await new Api(client({ apiKey: KEY }), 'carrental/test').profile();
    const h = stub.requests[0].headers;
    expect(h.authorization).toBe(`Bearer ${KEY}`);
    expect(h['x-api-key']).toBeUndefined();
  });

  it('can send X-API-Key instead, still only one', async () => {
    stub.handler = () => ({ json: { data: PROFILE } });
    await new Api(client({ apiKey: KEY, credentialHeader: 'x-api-key' }), 'x').profile();
    expect(stub.requests[0].headers['x-api-key']).toBe(KEY);
    expect(stub.requests[0].headers.authorization).toBeUndefined();
  });

  it('drops a credential header a caller passed, so two are never sent', async () => {
    stub.handler = () => ({ json: { data: PROFILE } });
    await client({ apiKey: KEY }).request({ method: 'GET', path: '/my/profile', auth: 'key', headers: { 'X-API-Key': 'svc_other' } });
    expect(stub.requests[0].headers['x-api-key']).toBeUndefined();
    expect(stub.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('sends none on anonymous calls, even with a key configured', async () => {
    stub.handler = () => ({ json: { data: { cars: [], total: 0, has_more: false } } });
    const api = new Api(client({ apiKey: KEY }), 'x');
    await api.listCars({});
    stub.handler = () => ({ json: { data: stubCar('car-1') } });
    await api.getCar('car-1');
    for (const r of stub.requests) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers['x-api-key']).toBeUndefined();
    }
  });

  it('quote: the key when asked, none otherwise', async () => {
    const quote = { rent_subtotal: 1, rent_discount_amount: 0, protection_total: 0, trip_fee_total: 0, final_total: 1, display_total: 1, display_trip_total: 1, display_mode: 'trip_total', blended_day_rate: 1, discounted_day_rate: 1, deposit_cents: 0 };
    stub.handler = () => ({ json: { data: quote } });
    const api = new Api(client({ apiKey: KEY }), 'x');
    const body = { car_alias: 'c', date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-02T10:00' };
    await api.quote(body, true);
    await api.quote(body, false);
    expect(stub.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(stub.requests[1].headers.authorization).toBeUndefined();
    expect(JSON.parse(stub.requests[0].body)).toEqual(body);
    expect(stub.requests[0].headers['content-type']).toBe('application/json');
  });

  it.each([
    ['body', { body: { a: 1 } }],
    ['raw body', { rawBody: '{"a":1}' }],
  ])('sends a %s as application/json, and no content type without a body', async (_what, spec) => {
    stub.handler = () => ({ json: { data: 1 } });
    await client().request({ method: 'POST', path: '/reservation/quote', auth: 'none', ...spec });
    await client().request({ method: 'GET', path: '/cars', auth: 'none' });
    expect(stub.requests[0].headers['content-type']).toBe('application/json');
    expect(stub.requests[0].body).toBe('{"a":1}');
    expect(stub.requests[1].headers['content-type']).toBeUndefined();
  });

  it('a /my call without a key fails before sending anything (exit 3)', async () => {
    const err = await failure(new Api(client(), 'x').profile());
    expect(err.exitCode).toBe(3);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('responses', () => {
  it('unwraps the envelope and keeps unknown fields', async () => {
    stub.handler = () => ({ json: { data: { cars: [stubCar('car-1', { future_field: 42 })], total: 1, has_more: false } } });
    const res = await new Api(client(), 'x').listCars({ city: 'la', limit: 10, date_from: undefined });
    expect(res.data.cars[0].car_alias).toBe('car-1');
    expect((res.data.cars[0] as Record<string, unknown>).future_field).toBe(42);
    expect(stub.requests[0].query.get('city')).toBe('la');
    expect(stub.requests[0].query.get('limit')).toBe('10');
    expect(stub.requests[0].query.has('date_from')).toBe(false);
  });

  it('takes the invoice list as a bare array', async () => {
    stub.handler = () => ({ json: [INVOICE] });
    const res = await new Api(client({ apiKey: KEY }), 'x').reservationInvoices(PROFILE.uuid);
    expect(res.data).toEqual([INVOICE]);
  });

  it('names the field when a response does not match the schema, without a stack trace', async () => {
    stub.handler = () => ({ json: { data: { cars: [{ car_alias: 'x', name: 'X', prices: { trip_fee: 'free' } }], total: 1, has_more: false } } });
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none', schema: CarsPage }));
    expect(err.kind).toBe('api');
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(/^unexpected response from GET \/cars: data\.cars\.0\.prices\.trip_fee: /);
    expect(err.message).not.toContain('\n    at ');
  });

  it('names the field of a bare array as body.N', async () => {
    stub.handler = () => ({ json: [{ ...INVOICE, amount: '300.00' }] });
    const err = await failure(client().request({ method: 'GET', path: '/x', auth: 'none', schema: z.array(Invoice), envelope: false }));
    expect(err.message).toMatch(/body\.0\.amount/);
  });

  it.each([
    ['null', null],
    ['a string', 'ok'],
    ['a number', 42],
    ['an array', [1]],
  ])('a 2xx whose JSON is %s is a clean "no data envelope" error (exit 1), not a TypeError', async (_what, json) => {
    stub.handler = () => ({ json });
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.kind).toBe('api');
    expect(err.message).toBe('malformed response from GET /cars: no "data" envelope');
  });

  it('a bare-payload 2xx whose JSON is null fails its schema by name, not with a TypeError', async () => {
    stub.handler = () => ({ json: null });
    const err = await failure(client().request({ method: 'GET', path: '/x', auth: 'none', envelope: false, schema: z.array(z.number()) }));
    expect(err.kind).toBe('api');
    expect(err.message).toMatch(/^unexpected response from GET \/x: body: /);
  });

  it('refuses a body that is not JSON or has no envelope', async () => {
    stub.handler = () => ({ raw: '<html>gateway</html>' });
    expect((await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }))).message).toContain('the body is not JSON');
    stub.handler = () => ({ json: { cars: [] } });
    expect((await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }))).message).toContain('no "data" envelope');
  });
});

describe('typed errors', () => {
  it.each([
    [400, 'invalid_pagination', 1],
    [401, 'invalid_credentials', 3],
    [403, 'api_key_write_upgrade_required', 3],
    [404, 'car_not_found', 4],
    [409, 'car_not_available', 5],
  ])('HTTP %i %s -> exit %i, not retried', async (status, code, exit) => {
    stub.handler = () => ({ status, json: { error: 'nope', error_code: code, request_id: 'req_9' } });
    const err = await failure(client({ apiKey: KEY }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.exitCode).toBe(exit);
    expect(err.api).toMatchObject({ status, error_code: code, request_id: 'req_9' });
    expect(stub.requests).toHaveLength(1);
  });

  it('masks a key of any shape (not only svc_...) in every field a server echoes it in', async () => {
    const key = 'appToken-9f8e7d6c5b4a';
    stub.handler = () => ({ status: 401, json: { error: `bad ${key}`, error_code: `code_${key}`, request_id: `req_${key}`, description: `got ${key}` } });
    const err = await failure(client({ apiKey: key }).request({ method: 'GET', path: '/my/profile', auth: 'key' }));
    expect(JSON.stringify([err.message, hintFor(err), err.api])).not.toContain(key);
    expect(err.message).toBe('bad …5b4a');
    expect(err.api).toMatchObject({ error_code: 'code_…5b4a', request_id: 'req_…5b4a', description: 'got …5b4a' });
  });

  it('never repeats the key when a server echoes it back', async () => {
    stub.handler = () => ({ status: 401, json: { error: `bad key ${KEY}`, error_code: 'invalid_credentials', description: `got ${KEY}` } });
    const err = await failure(new Api(client({ apiKey: KEY }), 'x').profile());
    expect(JSON.stringify([err.message, hintFor(err), err.api])).not.toContain(KEY);
    expect(err.message).toBe('bad key svc_…cdef');
  });
});

describe('retries', () => {
  it('retries 429 then succeeds, waiting Retry-After', async () => {
    stub.handler = (_r, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': '2' }, json: { error: 'slow', error_code: 'rate_limited' } } : { json: { data: PROFILE } };
    const seen: number[] = [];
    const res = await client({ apiKey: KEY, onRetry: ({ delayMs }) => void seen.push(delayMs) }).request({ method: 'GET', path: '/my/profile', auth: 'key' });
    expect(res.status).toBe(200);
    expect(stub.requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
    expect(seen).toEqual([2000]);
  });

  it('retries 503 then succeeds, on POST too (the call was not executed)', async () => {
    stub.handler = (_r, i) => (i < 2 ? { status: 503, headers: { 'retry-after': '1' }, json: { error: 'busy', error_code: 'authentication_unavailable' } } : { json: { data: 'ok' } });
    await client({ apiKey: KEY }).request({ method: 'POST', path: '/reservation/quote', auth: 'key', body: {} });
    expect(stub.requests).toHaveLength(3);
    expect(sleeps).toEqual([1000, 1000]);
  });

  it('is bounded in count: 4 attempts, then exit 6 with the last error', async () => {
    stub.handler = () => ({ status: 429, headers: { 'retry-after': '1' }, json: { error: 'slow', error_code: 'rate_limited' } });
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(stub.requests).toHaveLength(READ_RETRY.maxAttempts);
    expect(err.exitCode).toBe(6);
    expect(hintFor(err)).toBe('wait 1 s, then rerun the same command');
  });

  it('is bounded in total time: a Retry-After beyond the budget is not waited', async () => {
    stub.handler = () => ({ status: 429, headers: { 'retry-after': '120' }, json: { error: 'slow', error_code: 'rate_limited' } });
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(stub.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(err.exitCode).toBe(6);
  });

  it('backs off exponentially when there is no Retry-After', async () => {
    stub.handler = () => ({ status: 503, json: { error: 'busy' } });
    await failure(client({ random: () => 1 }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(sleeps).toEqual([500, 1000, 2000]);
  });

  it('does not retry other statuses, nor anything under NO_RETRY', async () => {
    stub.handler = () => ({ status: 500, json: { error: 'boom' } });
    await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }));
    stub.handler = () => ({ status: 503, headers: { 'retry-after': '1' }, json: { error: 'busy' } });
    await failure(client().request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY }));
    expect(stub.requests).toHaveLength(2);
  });

  it('retries a dropped connection on GET only', async () => {
    stub.handler = (_r, i) => (i === 0 ? { destroy: true } : { json: { data: 1 } });
    await client().request({ method: 'GET', path: '/cars', auth: 'none' });
    expect(stub.requests).toHaveLength(2);
    stub.handler = () => ({ destroy: true });
    const err = await failure(client().request({ method: 'POST', path: '/reservation/quote', auth: 'none', body: {} }));
    expect(stub.requests).toHaveLength(3);
    expect(err.exitCode).toBe(6);
    expect(err.message).toContain('connection closed before the answer');
  });
});

describe('timeouts, connections, interruption', () => {
  it('gives up after --timeout with exit 6', async () => {
    stub.handler = () => ({ delayMs: 1_000, json: { data: 1 } });
    const started = Date.now();
    const err = await failure(client({ timeoutMs: 150 }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(Date.now() - started).toBeLessThan(900);
    expect(err.exitCode).toBe(6);
    expect(err.message).toBe('GET /cars timed out after 0.15 s');
    expect(hintFor(err)).toContain('raise --timeout');
  });

  it('reports a refused connection as unavailable without retrying', async () => {
    const dead = new ApiClient({ baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 2000, userAgent: 't', sleep: async (ms) => void sleeps.push(ms) });
    clients.push(dead);
    const err = await failure(dead.request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.exitCode).toBe(6);
    expect(err.message).toContain('connection refused');
    expect(sleeps).toEqual([]);
  });

  it('keeps the connection alive between requests', async () => {
    stub.handler = () => ({ json: { data: 1 } });
    const c = client();
    for (let i = 0; i < 6; i++) await c.request({ method: 'GET', path: '/cars', auth: 'none' });
    // one socket: the transport waits for undici to release it before the next request
    expect(new Set(stub.requests.map((r) => r.remotePort)).size).toBe(1);
  });

  it('turns Ctrl-C during a request into interrupted (130)', async () => {
    stub.handler = () => ({ delayMs: 2_000, json: { data: 1 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await failure(client({ signal: controller.signal }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.exitCode).toBe(130);
  });
});

describe('--debug tracing', () => {
  it('traces requests and responses with credentials redacted everywhere', async () => {
    stub.handler = () => ({ headers: { 'set-cookie': 'session=topsecretvalue', 'x-echo': KEY }, json: { data: { ...PROFILE, echoed: KEY } } });
    await new Api(client({ apiKey: KEY }), 'x').profile();
    const trace = debugLines.join('\n');
    expect(trace).toContain(`> GET ${stub.baseUrl}/my/profile`);
    expect(trace).toContain('> authorization: Bearer svc_…cdef');
    expect(trace).toMatch(/< 200 \(\d+ ms\)/);
    expect(trace).toContain('< set-cookie: …alue');
    expect(trace).not.toContain(KEY);
    expect(trace).not.toContain('topsecretvalue');
  });

  it('traces each retry', async () => {
    stub.handler = (_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' }, json: { error: 'slow' } } : { json: { data: 1 } });
    await client().request({ method: 'GET', path: '/cars', auth: 'none' });
    expect(debugLines).toContain('* retry 2/4 of GET /cars in 1000 ms');
  });
});
