// Issue 24 for the methods besides GET: what the transport does for a GET it must do for
// every method the client sends (POST, DELETE for a cancellation, and PUT, PATCH from the
// `api` command): ask for compressed answers, and follow a 307/308 within the origin with
// the same body and Idempotency-Key. And Retry-After as an HTTP date far ahead is capped
// like the seconds form. Against a loopback server the test starts.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, NO_RETRY, type ClientOptions } from '../../src/api/client.js';
import { Api } from '../../src/api/endpoints.js';
import { hintFor } from '../../src/cmdkit/hints.js';
import { failure } from '../helpers/failure.js';
import { StubServer, type StubHandler } from '../helpers/stub-server.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const IDEMPOTENCY_KEY = 'key-0123456789abcdef';
const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

let sleeps: number[] = [];
function client(baseUrl: string, opts: Partial<ClientOptions> = {}): ApiClient {
  sleeps = [];
  const c = new ApiClient({ baseUrl, apiKey: KEY, timeoutMs: 5_000, userAgent: 'carrental/test', random: () => 0, sleep: async (ms) => void sleeps.push(ms), ...opts });
  closers.push(() => c.close());
  return c;
}

/** The scripted loopback server, closed after the test. */
async function server(handler: StubHandler): Promise<StubServer> {
  const stub = await StubServer.start(handler);
  closers.push(() => stub.close());
  return stub;
}

/** Each method as the client sends it: a cancellation through the Api, the rest as `carrental api` sends them. */
const SENDS = {
  POST: (c: ApiClient) => c.request({ method: 'POST', path: '/reservation', auth: 'key', body: { car_alias: 'car-1' }, headers: { 'idempotency-key': IDEMPOTENCY_KEY }, retry: NO_RETRY }),
  DELETE: (c: ApiClient) => new Api(c, 'test').cancelReservation('r-1', IDEMPOTENCY_KEY, NO_RETRY),
  PUT: (c: ApiClient) => c.request({ method: 'PUT', path: '/things/1', auth: 'key', rawBody: '{"a":1}', headers: { 'content-type': 'application/json', 'idempotency-key': IDEMPOTENCY_KEY }, envelope: false, allowErrorStatus: true, retry: NO_RETRY }),
  PATCH: (c: ApiClient) => c.request({ method: 'PATCH', path: '/things/1', auth: 'key', rawBody: '{"a":2}', headers: { 'content-type': 'application/json', 'idempotency-key': IDEMPOTENCY_KEY }, envelope: false, allowErrorStatus: true, retry: NO_RETRY }),
} as const;
const BODY = { POST: '{"car_alias":"car-1"}', DELETE: '', PUT: '{"a":1}', PATCH: '{"a":2}' } as const;

describe.each(Object.keys(SENDS) as Array<keyof typeof SENDS>)('%s', (method) => {
  it('asks for gzip, deflate and br', async () => {
    const s = await server(() => ({ json: { data: 'OK' } }));
    await SENDS[method](client(s.baseUrl));
    expect(s.requests.map((r) => r.method)).toEqual([method]);
    expect(s.requests[0].headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('follows a 307 and a 308 to the same origin: the same body, Idempotency-Key and credential at every hop', async () => {
    const s = await server((req) => {
      // the stub names paths under /v1 without it: /v2 and /v3 are the hops
      if (!/^\/v\d\//.test(req.path)) return { status: 307, headers: { location: `/v2${req.path}` } };
      if (req.path.startsWith('/v2/')) return { status: 308, headers: { location: `${s.baseUrl.replace('/v1', '/v3')}${req.path.slice(3)}` } };
      return { json: { data: 'OK' } };
    });
    const res = await SENDS[method](client(s.baseUrl));
    expect(res.status).toBe(200);
    const [first, second, third] = s.requests;
    expect(s.requests.map((r) => r.method)).toEqual([method, method, method]);
    expect([second.path, third.path]).toEqual([`/v2${first.path}`, `/v3${first.path}`]);
    for (const r of s.requests) {
      expect(r.body).toBe(BODY[method]);
      expect(r.headers['idempotency-key']).toBe(IDEMPOTENCY_KEY);
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.headers['accept-encoding']).toBe('gzip, deflate, br');
    }
    const origin = new URL(s.baseUrl).origin;
    expect(res.redirects).toEqual([`${origin}/v2${first.path}`, `${origin}/v3${first.path}`]);
  });
});

describe('Retry-After as an HTTP date far ahead', () => {
  it('is capped like the seconds form: not waited, nothing re-sent, the same exit and hint', async () => {
    const outcome = async (retryAfter: string) => {
      const s = await server(() => ({ status: 429, headers: { 'retry-after': retryAfter }, json: { error: 'busy', error_code: 'rate_limited' } }));
      const err = await failure(client(s.baseUrl).request({ method: 'GET', path: '/cars', auth: 'none' }));
      return { requests: s.requests.length, sleeps, exitCode: err.exitCode, kind: err.kind, hint: hintFor(err) };
    };
    // ten minutes, far past the 30 s a read's retries may take
    const seconds = await outcome('600');
    expect(seconds).toEqual({ requests: 1, sleeps: [], exitCode: 6, kind: expect.any(String), hint: expect.stringMatching(/\b600 s\b/) });
    // an HTTP date has whole seconds: 599 or 600 from now
    const date = await outcome(new Date(Date.now() + 600_000).toUTCString());
    expect({ ...date, hint: date.hint?.replace(/\b599 s\b/, '600 s') }).toEqual(seconds);
  });
});
