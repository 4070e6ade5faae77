// The networks a customer or a CI runner has (issue 24), against servers written from the
// outside on loopback: proxies (plain and CONNECT, with credentials), compressed answers
// and a decompression bomb, redirect chains, certificates that cannot be trusted, and
// Retry-After as an HTTP date. The transport is undici (src/api/transport.ts).
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, NO_RETRY, type ClientOptions } from '../../src/api/client.js';
import { proxySettings, routeFor, maskProxy } from '../../src/api/proxy.js';
import { hintFor } from '../../src/cmdkit/hints.js';
import { failure } from '../helpers/failure.js';
import { makeCertificates, serveHttp, serveHttps, startProxy, type Listening } from '../helpers/network.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

let debugLines: string[] = [];
let sleeps: number[] = [];
function client(baseUrl: string, opts: Partial<ClientOptions> = {}): ApiClient {
  debugLines = [];
  sleeps = [];
  const c = new ApiClient({
    baseUrl,
    timeoutMs: 5_000,
    userAgent: 'carrental/test',
    random: () => 0,
    sleep: async (ms) => void sleeps.push(ms),
    debug: (l) => debugLines.push(l),
    ...opts,
  });
  closers.push(() => c.close());
  return c;
}

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback server that records every request and answers with `answer`. */
async function server(answer: (req: Seen, res: ServerResponse, index: number) => void): Promise<Listening & { base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const l = await serveHttp((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const rec = { method: req.method, url: req.url, headers: req.headers, body };
      seen.push(rec);
      answer(rec, res, seen.length - 1);
    });
  });
  closers.push(() => l.close());
  return { ...l, base: `http://127.0.0.1:${l.port}/v1`, seen };
}

const json = (res: ServerResponse, value: unknown, status = 200, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));

describe('compression', () => {
  const body = JSON.stringify({ data: { cars: [{ car_alias: 'car-1', name: 'ü'.repeat(500) }] } });
  const encoders = { gzip: gzipSync, br: brotliCompressSync, deflate: deflateSync } as const;

  for (const [encoding, encode] of Object.entries(encoders)) {
    it(`asks for gzip, deflate and br, and decodes a ${encoding} answer`, async () => {
      const s = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding }).end(encode(body)));
      const res = await client(s.base).request({ method: 'GET', path: '/cars', auth: 'none' });
      expect(s.seen[0].headers['accept-encoding']).toBe('gzip, deflate, br');
      expect(res.text).toBe(body);
      expect(res.data).toEqual(JSON.parse(body).data);
    });
  }

  it('decodes an answer compressed without being asked, and an error answer', async () => {
    const s = await server((req, res, i) => {
      const payload = i === 0 ? { error: 'Too many requests', error_code: 'rate_limited' } : { data: { ok: true } };
      res.writeHead(i === 0 ? 429 : 200, { 'content-type': 'application/json', 'content-encoding': 'gzip', ...(i === 0 ? { 'retry-after': '1' } : {}) });
      res.end(gzipSync(JSON.stringify(payload)));
    });
    const c = client(s.base);
    const res = await c.request({ method: 'GET', path: '/x', auth: 'none', headers: { 'accept-encoding': 'identity' } });
    expect(res.data).toEqual({ ok: true });
    // the 429 was read (its code and Retry-After) and retried after a second
    expect(sleeps).toEqual([1000]);
  });

  it('caps the decoded size: a small gzip bomb is refused with the size error, not buffered', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '));
    expect(bomb.length).toBeLessThan(128 * 1024);
    const s = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb));
    const before = process.memoryUsage().arrayBuffers;
    const err = await failure(client(s.base, { maxResponseBytes: 1024 * 1024 }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.kind).toBe('api');
    expect(err.message).toBe('the response to GET /cars is larger than 1 MiB: stopped reading it');
    // reading stopped at the cap: nowhere near 64 MiB was held
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 1024 * 1024);
  });
});

describe('redirects', () => {
  it('follows a 307 and a 308 to the same origin for a POST: the same body and Idempotency-Key', async () => {
    const s = await server((req, res) => {
      if (req.url === '/v1/reservation') return void res.writeHead(307, { location: '/v2/reservation' }).end();
      if (req.url === '/v2/reservation') return void res.writeHead(308, { location: `http://127.0.0.1:${s.port}/v3/reservation` }).end();
      json(res, { data: { uuid: 'r-1' } }, 201);
    });
    const c = client(s.base, { apiKey: KEY });
    const res = await c.request({ method: 'POST', path: '/reservation', auth: 'key', body: { car_alias: 'car-1' }, headers: { 'idempotency-key': 'key-0123456789abcdef' }, retry: NO_RETRY });
    expect(res.data).toEqual({ uuid: 'r-1' });
    expect(s.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/reservation', 'POST /v2/reservation', 'POST /v3/reservation']);
    for (const r of s.seen) {
      expect(r.body).toBe('{"car_alias":"car-1"}');
      expect(r.headers['idempotency-key']).toBe('key-0123456789abcdef');
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    }
    expect(debugLines).toContain(`* redirected to http://127.0.0.1:${s.port}/v2/reservation`);
  });

  for (const status of [301, 302, 303]) {
    it(`follows a ${status} for a GET, and refuses it for a POST naming the Location`, async () => {
      const s = await server((req, res) => (req.url?.startsWith('/v1/') ? void res.writeHead(status, { location: req.url.replace('/v1/', '/v2/') }).end() : json(res, { data: { at: req.url } })));
      const c = client(s.base, { apiKey: KEY });
      expect((await c.request({ method: 'GET', path: '/cars', auth: 'none' })).data).toEqual({ at: '/v2/cars' });
      const err = await failure(c.request({ method: 'POST', path: '/reservation', auth: 'key', body: { a: 1 }, retry: NO_RETRY }));
      expect(err.kind).toBe('api');
      expect(err.message).toBe(`POST /reservation was redirected (HTTP ${status}) to http://127.0.0.1:${s.port}/v2/reservation: a ${status} is followed for GET only (it would turn the POST into a GET)`);
      expect(hintFor(err)).toContain(`carrental config set base_url http://127.0.0.1:${s.port}/v2`);
      // the POST went once, and was not re-sent as a GET
      expect(s.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/cars', 'GET /v2/cars', 'POST /v1/reservation']);
    });
  }

  it('never follows a redirect to another origin: the other server sees nothing, the error names the Location and why', async () => {
    const other = await server((_req, res) => json(res, { data: {} }));
    const s = await server((req, res) => void res.writeHead(308, { location: `${other.base}${req.url?.slice(3)}` }).end());
    for (const credentialHeader of ['authorization', 'x-api-key'] as const) {
      const err = await failure(client(s.base, { apiKey: KEY, credentialHeader }).request({ method: 'GET', path: '/profile', auth: 'key' }));
      expect(err.kind).toBe('api');
      expect(err.message).toBe(`GET /profile was redirected (HTTP 308) to ${other.base}/profile: carrental follows a redirect only within http://127.0.0.1:${s.port}, so the API key never goes to another origin`);
      expect(hintFor(err)).toBe(`check the base URL; if the API moved, use its new base URL: \`carrental config set base_url ${other.base}\` (or --base-url)`);
    }
    expect(other.seen).toEqual([]);
  });

  it('follows at most 5 hops, then stops naming the next Location', async () => {
    const s = await server((req, res) => {
      const n = Number(/\/hop(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      res.writeHead(307, { location: `/v1/hop${n + 1}` }).end();
    });
    const err = await failure(client(s.base).request({ method: 'GET', path: '/hop0', auth: 'none' }));
    expect(s.seen).toHaveLength(6);
    expect(err.kind).toBe('api');
    expect(err.message).toBe('GET /hop0 was redirected (HTTP 307) to /v1/hop6: more than 5 redirects in a row');
  });
});

describe('proxies', () => {
  it('reads the variables in either case, the lowercase one first, and masks credentials when it names a proxy', () => {
    expect(proxySettings({ HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2' }).https).toEqual({ url: 'http://b:2', from: 'https_proxy' });
    expect(proxySettings({ HTTP_PROXY: 'http://a:1' }).https).toEqual({ url: 'http://a:1', from: 'HTTP_PROXY' });
    expect(maskProxy('http://user:secret@proxy:3128')).toBe('http://user:***@proxy:3128');
    expect(maskProxy('http://token@proxy:3128/')).toBe('http://***@proxy:3128');
  });

  it('NO_PROXY: `*`, domain suffixes (with or without a leading dot), ports; loopback never goes through a proxy', () => {
    const route = (url: string, noProxy: string) => {
      const r = routeFor(new URL(url), { https: { url: 'http://p:1', from: 'HTTPS_PROXY' }, http: { url: 'http://p:1', from: 'HTTP_PROXY' }, noProxy });
      return 'proxy' in r ? 'proxy' : r.direct;
    };
    expect(route('https://api.example.com/v1', '')).toBe('proxy');
    expect(route('https://api.example.com/v1', '*')).toBe('NO_PROXY');
    expect(route('https://api.example.com/v1', 'example.com')).toBe('NO_PROXY');
    expect(route('https://api.example.com/v1', '.example.com')).toBe('NO_PROXY');
    expect(route('https://api.example.com/v1', 'other.com, *.example.com')).toBe('NO_PROXY');
    expect(route('https://notexample.com/v1', 'example.com')).toBe('proxy');
    expect(route('https://api.example.com/v1', 'example.com:8443')).toBe('proxy');
    expect(route('https://api.example.com:8443/v1', 'example.com:8443')).toBe('NO_PROXY');
    for (const host of ['127.0.0.1:4780', '127.9.9.9', 'localhost', '[::1]']) expect(route(`http://${host}/v1`, '')).toBe('loopback');
    expect(routeFor(new URL('https://api.example.com'), { noProxy: '' })).toEqual({ direct: 'no proxy set' });
  });

  it('plain http through HTTP_PROXY: a host only the proxy can resolve, with credentials from the proxy URL', async () => {
    const api = await server((req, res) => json(res, { data: { path: req.url, host: req.headers.host } }));
    const proxy = await startProxy({ httpPort: api.port, credentials: 'alice:s3cret' });
    closers.push(() => proxy.close());
    const c = client('http://api.internal.test/v1', { proxy: proxySettings({ HTTP_PROXY: `http://alice:s3cret@127.0.0.1:${proxy.port}` }) });
    const res = await c.request({ method: 'GET', path: '/cars', query: { city: 'la' }, auth: 'none' });
    expect(res.data).toEqual({ path: '/v1/cars?city=la', host: 'api.internal.test' });
    expect(proxy.seen.map((s) => s.line)).toEqual(['GET http://api.internal.test/v1/cars?city=la']);
    expect(proxy.seen[0].headers['proxy-authorization']).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
    expect(debugLines).toContain(`* through proxy http://alice:***@127.0.0.1:${proxy.port} (HTTP_PROXY)`);
    expect(debugLines.join('\n')).not.toContain('s3cret');
  });

  it('https through HTTPS_PROXY is a CONNECT tunnel: the proxy sees the host, never the key', async () => {
    const certs = makeCertificates(['api.internal.test']);
    closers.push(() => certs.cleanup());
    const api = await serveHttps(certs.selfSigned, (_req, res) => json(res, { data: {} }));
    closers.push(() => api.close());
    const proxy = await startProxy({ tlsPort: api.port });
    closers.push(() => proxy.close());
    const c = client('https://api.internal.test/v1', { apiKey: KEY, proxy: proxySettings({ https_proxy: proxy.url }) });
    const err = await failure(c.request({ method: 'GET', path: '/profile', auth: 'key' }));
    expect(proxy.seen.map((s) => s.line)).toEqual(['CONNECT api.internal.test:443']);
    // the tunnel carried TLS: the certificate was checked (and refused) before anything was sent
    expect(err.message).toBe('could not verify the TLS certificate of https://api.internal.test (GET /profile): the certificate is self-signed');
    expect(proxy.tunnelled().length).toBeGreaterThan(0);
    expect(proxy.tunnelled().toString('latin1')).not.toContain(KEY);
    expect(proxy.tunnelled().toString('latin1')).not.toContain('/profile');
  });

  it('a proxy that wants credentials, and one that cannot be reached, are named (credentials masked)', async () => {
    const proxy = await startProxy({ credentials: 'alice:s3cret' });
    closers.push(() => proxy.close());
    const refused = await failure(client('https://api.internal.test/v1', { proxy: proxySettings({ HTTPS_PROXY: proxy.url }) }).request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY }));
    expect(refused.kind).toBe('unavailable');
    expect(refused.message).toBe(`the proxy ${proxy.url} (HTTPS_PROXY) refused to open a tunnel to https://api.internal.test (HTTP 407) (GET /cars)`);
    expect(hintFor(refused)).toBe('the proxy wants credentials: put them in its URL (http://user:password@proxy:port)');

    const closed = await serveHttp(() => undefined);
    await closed.close();
    const gone = await failure(client('https://api.internal.test/v1', { proxy: proxySettings({ HTTPS_PROXY: `http://bob:pw@127.0.0.1:${closed.port}` }) }).request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY }));
    expect(gone.message).toBe(`could not reach https://api.internal.test through the proxy http://bob:***@127.0.0.1:${closed.port} (HTTPS_PROXY) (GET /cars): connection refused`);
    expect(gone.message + hintFor(gone)).not.toContain(':pw@');
  });

  it('a loopback base URL goes direct although a proxy is set: the proxy sees nothing', async () => {
    const api = await server((_req, res) => json(res, { data: { ok: 1 } }));
    const proxy = await startProxy({ httpPort: api.port });
    closers.push(() => proxy.close());
    const c = client(api.base, { apiKey: KEY, proxy: proxySettings({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url }) });
    expect((await c.request({ method: 'GET', path: '/profile', auth: 'key' })).data).toEqual({ ok: 1 });
    expect(proxy.seen).toEqual([]);
    expect(debugLines).toContain('* direct (a loopback address never goes through a proxy)');
  });
});

describe('certificates', () => {
  let certs: ReturnType<typeof makeCertificates>;
  beforeAll(() => {
    certs = makeCertificates(['127.0.0.1']);
  });
  afterAll(() => certs.cleanup());

  it('a self-signed certificate: says so and how to trust a private CA, never "rerunning is safe", no retry', async () => {
    let requests = 0;
    const api = await serveHttps(certs.selfSigned, (_req, res) => {
      requests += 1;
      json(res, { data: {} });
    });
    closers.push(() => api.close());
    const err = await failure(client(`https://127.0.0.1:${api.port}/v1`).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.kind).toBe('api');
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe(`could not verify the TLS certificate of https://127.0.0.1:${api.port} (GET /cars): the certificate is self-signed`);
    expect(hintFor(err)).toContain('NODE_EXTRA_CA_CERTS=/path/to/ca.pem');
    expect(hintFor(err)).not.toMatch(/rerun/i);
    expect(requests).toBe(0);
    expect(sleeps).toEqual([]);
  });

  it('a certificate from an unknown CA says the CA is not known', async () => {
    const api = await serveHttps(certs.signed, (_req, res) => json(res, { data: {} }));
    closers.push(() => api.close());
    const err = await failure(client(`https://127.0.0.1:${api.port}/v1`).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.message).toBe(`could not verify the TLS certificate of https://127.0.0.1:${api.port} (GET /cars): the certificate is issued by a CA this machine does not know`);
    expect(hintFor(err)).toContain('NODE_EXTRA_CA_CERTS');
  });
});

describe('Retry-After as an HTTP date', () => {
  it('waits until the date (RFC 9110), like the seconds form', async () => {
    const s = await server((_req, res, i) =>
      i === 0 ? json(res, { error: 'busy', error_code: 'rate_limited' }, 429, { 'retry-after': new Date(Date.now() + 4_000).toUTCString() }) : json(res, { data: { ok: true } }),
    );
    const res = await client(s.base).request({ method: 'GET', path: '/cars', auth: 'none' });
    expect(res.data).toEqual({ ok: true });
    expect(sleeps).toHaveLength(1);
    // an HTTP date has whole seconds: 3 or 4 seconds from now
    expect(sleeps[0]).toBeGreaterThanOrEqual(3_000);
    expect(sleeps[0]).toBeLessThanOrEqual(4_000);
  });
});
