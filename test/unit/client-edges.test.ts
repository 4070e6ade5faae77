// The request sender's edges that mutation testing found unpinned (docs/mutation-testing.md,
// "Mutation testing"): what an error, a retry and a trace say exactly, which bytes are
// refused before reading, what a caller's headers become, and the loopback rule's anchors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, errorFromResponse, isLoopbackHost, keySafeOver, NO_RETRY, type ClientOptions, type Failure } from '../../src/api/client.js';
import { CliError } from '../../src/errors.js';
import { hintFor } from '../../src/cmdkit/hints.js';
import { StubServer } from '../helpers/stub-server.js';
import { failure } from '../helpers/failure.js';

const KEY = 'appKey-0123456789abcdef0123';
let stub: StubServer;
const clients: ApiClient[] = [];
let debugLines: string[];
let sleeps: number[];

function client(opts: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({
    baseUrl: stub.baseUrl,
    timeoutMs: 5_000,
    userAgent: 'carrental/test',
    random: () => 0,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    debug: (l) => debugLines.push(l),
    ...opts,
  });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  stub = await StubServer.start();
  debugLines = [];
  sleeps = [];
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stub.close();
});

describe('where the key may go', () => {
  it('only https, or http to loopback; anything unparsable or of another scheme is not safe', () => {
    expect(keySafeOver('not a url')).toBe(false);
    expect(keySafeOver('ftp://127.0.0.1/v1')).toBe(false);
    expect(keySafeOver('http://10.0.0.1/v1')).toBe(false);
    expect(keySafeOver('http://127.0.0.1:8080/v1')).toBe(true);
    expect(keySafeOver('https://api.example.com/v1')).toBe(true);
  });

  it('loopback is the whole host name, with each part of any length', () => {
    for (const host of ['127.10.200.30', '127.0.10.1', '127.0.0.10', '[::ffff:7f00:1]', '[::ffff:7f00:100]', 'LOCALHOST']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['a127.0.0.1', '127.0.0.1.evil.example', 'x[::ffff:7f00:1]', '[::ffff:7f00:1]x', '127.0.0', '[::2]']) expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('the client itself', () => {
  it('drops trailing slashes from the base URL and joins paths with one', () => {
    const c = client({ baseUrl: `${stub.baseUrl}///` });
    expect(c.baseUrl).toBe(stub.baseUrl);
    expect(c.url('cars', { a: 1, b: undefined, c: true })).toBe(`${stub.baseUrl}/cars?a=1&c=true`);
    expect(c.url('/cars')).toBe(`${stub.baseUrl}/cars`);
  });

  it('knows whether it has a key', () => {
    expect(client({ apiKey: KEY }).hasKey).toBe(true);
    expect(client({ apiKey: '' }).hasKey).toBe(false);
    expect(client().hasKey).toBe(false);
  });

  it('close drops the kept-alive connection: the next request opens a new one', async () => {
    stub.handler = () => ({ json: { data: 1 } });
    const c = client();
    await c.request({ method: 'GET', path: '/cars', auth: 'none' });
    await c.close();
    await c.request({ method: 'GET', path: '/cars', auth: 'none' });
    expect(stub.requests[1].remotePort).not.toBe(stub.requests[0].remotePort);
  });

  it('NO_RETRY retries nothing', () => {
    expect(NO_RETRY.retryable({ kind: 'status', status: 503 }, 'GET')).toBe(false);
  });
});

describe('headers', () => {
  it("sends JSON accept, the user agent and the caller's own headers, dropping only exact credential names", async () => {
    stub.handler = () => ({ json: { data: 1 } });
    await client({ apiKey: KEY }).request({
      method: 'POST',
      path: '/my/reservations',
      auth: 'key',
      body: { a: 1 },
      headers: { 'idempotency-key': 'k-0123456789abcdef', 'x-authorization-note': 'kept', Authorization: 'Bearer other', 'X-Api-Key': 'other' },
    });
    const h = stub.requests[0].headers;
    expect(h.accept).toBe('application/json');
    expect(h['user-agent']).toBe('carrental/test');
    expect(h['idempotency-key']).toBe('k-0123456789abcdef');
    expect(h['x-authorization-note']).toBe('kept');
    expect(h.authorization).toBe(`Bearer ${KEY}`);
    expect(h['x-api-key']).toBeUndefined();
  });

  it('a keyed call without a key names what to do', async () => {
    const err = await failure(client().request({ method: 'GET', path: '/my/profile', auth: 'key' }));
    expect(err.message).toBe('this command needs an API key');
    expect(hintFor(err)).toBe('run `carrental auth login`, set CARRENTAL_API_KEY, or try `carrental --sandbox ...`');
    expect(stub.requests).toHaveLength(0);
  });

  it('joins a header sent twice with a comma', async () => {
    const server: Server = createServer((_req, res) => {
      res.setHeader('x-multi', ['a', 'b']);
      res.setHeader('content-type', 'application/json');
      res.end('{"data":1}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }).request({ method: 'GET', path: '/x', auth: 'none' });
      expect(res.headers['x-multi']).toBe('a, b');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('answers that are not a result', () => {
  it('a 300 is not a success', async () => {
    stub.handler = () => ({ status: 300, json: { data: 1 } });
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.message).toBe('GET /cars failed with HTTP 300');
  });

  it('an empty 2xx body is "not JSON", with the hint to look at it', async () => {
    stub.handler = () => ({ raw: '' });
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.message).toBe('malformed response from GET /cars: the body is not JSON');
    expect(err.kind).toBe('api');
    expect(hintFor(err)).toBe('rerun with --debug to see the response');
  });

  it('no envelope and a schema mismatch each say where to look', async () => {
    stub.handler = () => ({ json: { cars: [] } });
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(hintFor(err)).toBe('rerun with --debug to see the response');
    stub.handler = () => ({ json: { data: { n: 'x' } } });
    const schema = { safeParse: () => ({ success: false as const, error: { issues: [{ path: ['n'], message: 'expected a number' }] } }) };
    const bad = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none', schema }));
    expect(bad.message).toBe('unexpected response from GET /cars: data.n: expected a number');
    expect(hintFor(bad)).toBe('the server does not match the API this version of carrental knows; rerun with --debug to see the response');
  });

  it('with allowErrorStatus, any status comes back as sent: data is the body, envelope or not', async () => {
    stub.handler = (_r, i) => (i === 0 ? { status: 404, json: { error: 'nope' } } : { json: [1, 2] });
    const miss = await client().request({ method: 'GET', path: '/x', auth: 'none', allowErrorStatus: true });
    expect(miss).toMatchObject({ status: 404, data: { error: 'nope' }, body: { error: 'nope' }, text: '{"error":"nope"}' });
    expect(miss.headers['content-type']).toBe('application/json');
    const ok = await client().request({ method: 'GET', path: '/x', auth: 'none', allowErrorStatus: true });
    expect(ok).toMatchObject({ status: 200, data: [1, 2] });
  });

  it("an error body echoing the key keeps its other fields, the key masked", async () => {
    stub.handler = () => ({ status: 401, json: { error: 'bad key', echo: `key=${KEY}`, n: 3 } });
    const err = await failure(client({ apiKey: KEY }).request({ method: 'GET', path: '/my/profile', auth: 'key' }));
    expect(err.api?.body).toEqual({ error: 'bad key', echo: 'key=…0123', n: 3 });
  });
});

describe('errorFromResponse', () => {
  it('takes only strings from the body, and keeps the status as the body when there is none', () => {
    const err = errorFromResponse(400, { error: 42, error_code: 7, request_id: ['r'], description: {} }, {}, 'GET /x');
    expect(err.message).toBe('GET /x failed with HTTP 400');
    expect(err.api).toMatchObject({ error_code: undefined, request_id: undefined, description: undefined });
    expect(errorFromResponse(502, undefined, {}, 'GET /x').api?.body).toEqual({ status: 502 });
    expect(errorFromResponse(502, null, {}, 'GET /x').api?.body).toEqual({ status: 502 });
  });

  it("hints in the CLI's words for a command, in the API's for a raw `api` call, by the failed request's route", () => {
    expect(hintFor(errorFromResponse(404, { error: 'nope', error_code: 'car_not_found' }, {}, 'GET /cars/x'))).toBe('`carrental cars --city la` (or miami) lists the car aliases');
    expect(hintFor(errorFromResponse(404, { error: 'nope', error_code: 'car_not_found' }, {}, 'GET /cars/x', true))).toBeUndefined();
    expect(hintFor(errorFromResponse(400, { error: 'bad', error_code: 'invalid_pagination' }, {}, 'GET /cars'))).toBe('--limit takes 1..200; --all fetches every page');
    expect(hintFor(errorFromResponse(400, { error: 'bad', error_code: 'invalid_pagination' }, {}, 'GET /my/trips'))).not.toBe('--limit takes 1..200; --all fetches every page');
  });

  it('reads Retry-After only as whole seconds', () => {
    for (const bad of ['5s', 'a5', '1.5', '']) expect(errorFromResponse(503, {}, { 'retry-after': bad }, 'GET /x').api?.retryAfter, bad).toBeUndefined();
    expect(errorFromResponse(503, {}, { 'retry-after': '12' }, 'GET /x').api?.retryAfter).toBe(12);
  });
});

describe('retries', () => {
  it('tell onRetry exactly what failed: a status without a code has none, a dropped connection is a network failure', async () => {
    const seen: Failure[] = [];
    stub.handler = (_r, i) => (i === 0 ? { status: 503, json: { error: 'down' } } : i === 1 ? { destroy: true } : { json: { data: 1 } });
    await client().request({ method: 'GET', path: '/cars', auth: 'none', onRetry: ({ failure: f }) => void seen.push(f) });
    expect(seen[0]).toStrictEqual({ kind: 'status', status: 503, errorCode: undefined, retryAfterMs: undefined });
    expect(seen[1]).toMatchObject({ kind: 'network', timedOut: false });
    expect(['UND_ERR_SOCKET', 'ECONNRESET']).toContain((seen[1] as { code?: string }).code);
  });

  it('a client without a debug sink or an injected sleep retries too, really waiting', async () => {
    stub.handler = (_r, i) => (i === 0 ? { status: 503, json: { error: 'down' } } : { json: { data: 7 } });
    const c = new ApiClient({ baseUrl: stub.baseUrl, timeoutMs: 5_000, userAgent: 't', random: () => 0 });
    clients.push(c);
    const started = Date.now();
    const res = await c.request<number>({ method: 'GET', path: '/cars', auth: 'none' });
    expect(res.data).toBe(7);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200); // the 250 ms backoff
  });

  it('a dropped connection on a write is not retried and says the answer was lost', async () => {
    stub.handler = () => ({ destroy: true });
    const err = await failure(client().request({ method: 'POST', path: '/my/reservations', auth: 'none', body: {} }));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toBe(`could not reach ${new URL(stub.baseUrl).origin} (POST /my/reservations): connection closed before the answer`);
    expect(hintFor(err)).toBe('check the base URL (`carrental config get base_url`) or run `carrental doctor`; rerunning is safe');
    expect(stub.requests).toHaveLength(1);
  });

  it('Ctrl-C says interrupted', async () => {
    stub.handler = () => ({ delayMs: 2_000, json: { data: 1 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await failure(client({ signal: controller.signal }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.message).toBe('interrupted');
  });
});

describe('--debug trace lines', () => {
  it('show the request body, the answer time in ms, and no line for an empty answer', async () => {
    stub.handler = (_r, i) => (i === 0 ? { json: { data: 1 } } : { status: 204 });
    await client().request({ method: 'POST', path: '/x', auth: 'none', body: { a: 1 } });
    expect(debugLines).toContain('> {"a":1}');
    const took = debugLines.find((l) => l.startsWith('< 200 ('));
    expect(took).toMatch(/^< 200 \(\d{1,5} ms\)$/);
    debugLines.length = 0;
    await client().request({ method: 'GET', path: '/x', auth: 'none', allowErrorStatus: true });
    expect(debugLines.filter((l) => l.startsWith('< ') && !l.includes(':') && !l.startsWith('< 204'))).toEqual([]);
  });

  it('cut a long body at 2000 characters and say how much more there was', async () => {
    const body = JSON.stringify({ data: 'x'.repeat(3000) });
    stub.handler = () => ({ raw: body });
    await client().request({ method: 'GET', path: '/x', auth: 'none' });
    const line = debugLines.find((l) => l.startsWith('< {'))!;
    expect(line).toBe(`< ${body.slice(0, 2000)}… (${body.length - 2000} more bytes)`);
    debugLines.length = 0;
    const exact = JSON.stringify({ data: 'y'.repeat(1990) });
    expect(exact).toHaveLength(2001);
    stub.handler = () => ({ raw: exact.slice(0, 11) + exact.slice(12) });
    await client().request({ method: 'GET', path: '/x', auth: 'none' });
    expect(debugLines).toContain(`< ${exact.slice(0, 11) + exact.slice(12)}`);
  });

  it('a network error names its code and how long it took', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const err = await failure(client({ baseUrl: `http://127.0.0.1:${port}/v1` }).request({ method: 'GET', path: '/x', auth: 'none' }));
    expect(err.message).toBe(`could not reach http://127.0.0.1:${port} (GET /x): connection refused`);
    expect(debugLines.some((l) => /^< network error after \d{1,5} ms: ECONNREFUSED$/.test(l))).toBe(true);
  });
});

describe('the size cap', () => {
  // Before the fix, the body dropped here emitted an AbortError that no one listened to: an
  // uncaught exception in a real process (vitest reports it as an unhandled error).
  it('refuses a declared Content-Length above the cap before reading a byte of a body that never ends, leaving no uncaught error behind', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) });
      res.write('{"data":"'); // and nothing more: reading would wait for the timeout
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const started = Date.now();
      const err = await failure(
        client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxResponseBytes: 1500, timeoutMs: 4_000 }).request({ method: 'GET', path: '/x', auth: 'none' }),
      );
      expect(err.message).toBe('the response to GET /x is larger than 1500 bytes: stopped reading it');
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('reads a body whose declared length is exactly the cap, and names a KiB cap in KiB', async () => {
    const body = JSON.stringify({ data: 'z'.repeat(2037) });
    expect(Buffer.byteLength(body)).toBe(2048);
    stub.handler = () => ({ raw: body, headers: { 'content-length': '2048' } });
    const res = await client({ maxResponseBytes: 2048 }).request<string>({ method: 'GET', path: '/x', auth: 'none' });
    expect(res.data).toHaveLength(2037);
    const err = await failure(client({ maxResponseBytes: 1024 }).request({ method: 'GET', path: '/x', auth: 'none' }));
    expect(err.message).toBe('the response to GET /x is larger than 1 KiB: stopped reading it');
  });
});

describe('abandoning a request (its own signal) and the request hook', () => {
  it('a request abandoned before it starts sends nothing and says so', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none', signal: controller.signal }));
    expect(err.kind).toBe('interrupted');
    expect(err.message).toBe('GET /cars abandoned');
    expect(stub.requests).toHaveLength(0);
  });

  it('abandoned during the wait before a retry: the wait ends at once and no retry is sent', async () => {
    stub.handler = () => ({ status: 503, json: { error: 'down' } });
    const controller = new AbortController();
    let waited = false;
    const c = client({
      sleep: (ms) =>
        new Promise((resolve) => {
          waited = true;
          setTimeout(resolve, ms + 5_000);
        }),
    });
    const pending = c.request({ method: 'GET', path: '/cars', auth: 'none', signal: controller.signal });
    while (!waited) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    controller.abort();
    const err = await failure(pending);
    expect(err.message).toBe('GET /cars abandoned');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(stub.requests).toHaveLength(1);
  });

  it('a wait that fails on its own passes its error on, and one that ends lets the retry go', async () => {
    stub.handler = (_r, i) => (i === 0 ? { status: 503, json: { error: 'down' } } : { json: { data: 1 } });
    const controller = new AbortController();
    const ok = await client().request<number>({ method: 'GET', path: '/cars', auth: 'none', signal: controller.signal });
    expect(ok.data).toBe(1);
    stub.handler = () => ({ status: 503, json: { error: 'down' } });
    const err = await failure(
      client({ sleep: async () => Promise.reject(new CliError('interrupted', 'interrupted')) }).request({ method: 'GET', path: '/cars', auth: 'none', signal: controller.signal }),
    );
    expect(err.message).toBe('interrupted');
  });

  it('abandoned in flight: the request is cut off', async () => {
    stub.handler = () => ({ delayMs: 3_000, json: { data: 1 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const err = await failure(client().request({ method: 'GET', path: '/cars', auth: 'none', signal: controller.signal }));
    expect(err.message).toBe('GET /cars abandoned');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('abandoned just before the wait (while onRetry runs): no wait at all', async () => {
    stub.handler = () => ({ status: 503, json: { error: 'down' } });
    const controller = new AbortController();
    const c = client({ sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms + 3_000)) });
    const started = Date.now();
    const err = await failure(
      c.request({
        method: 'GET',
        path: '/cars',
        auth: 'none',
        signal: controller.signal,
        onRetry: () => controller.abort(),
      }),
    );
    expect(err.message).toBe('GET /cars abandoned');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('onRequest hears each request once, retries included, and its end once, failure or not', async () => {
    const events: string[] = [];
    const onRequest = (label: string) => {
      events.push(`start ${label}`);
      return () => void events.push(`end ${label}`);
    };
    stub.handler = (_r, i) => (i === 0 ? { status: 503, json: { error: 'down' } } : { json: { data: 1 } });
    await client({ onRequest }).request({ method: 'GET', path: '/cars', auth: 'none' });
    stub.handler = () => ({ status: 404, json: { error: 'nope' } });
    await failure(client({ onRequest }).request({ method: 'GET', path: '/car/x', auth: 'none' }));
    expect(events).toEqual(['start GET /cars', 'end GET /cars', 'start GET /car/x', 'end GET /car/x']);
  });
});
