// Issue 35: real networks' edges, against servers the test starts on loopback.
// - an interim 1xx answer before the real one (`103 Early Hints`, a `100 Continue` nobody
//   asked for) is skipped as curl skips it, plain and compressed, on a kept-alive connection;
// - a proxy variable without a scheme (`HTTPS_PROXY=localhost:3128`) means http://;
// - a redirect loop, and a server that speaks HTTP/2 only, end in one line in the user's
//   words (no undici advice, no OpenSSL text);
// - a SOCKS proxy variable is refused, naming what is supported.
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, NO_RETRY, type ClientOptions } from '../../src/api/client.js';
import { describeRoute, proxySettings, routeFor } from '../../src/api/proxy.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { failure } from '../helpers/failure.js';
import { makeCertificates, serveHttp, serveHttps, startProxy } from '../helpers/network.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

function client(baseUrl: string, opts: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({ baseUrl, timeoutMs: 5_000, userAgent: 'carrental/test', random: () => 0, sleep: async () => undefined, ...opts });
  closers.push(() => c.close());
  return c;
}

function home(): TestHome {
  const h = new TestHome();
  closers.push(() => h.cleanup());
  return h;
}

/**
 * A raw HTTP/1.1 server on node:net: each request (read up to its blank line; the tests
 * send no body) gets `interim` written first, then a 200 JSON answer, gzip-coded when asked.
 * The connection stays open for the next request.
 */
async function rawServer(interim: string, opts: { gzip?: boolean } = {}) {
  const connections: number[] = [];
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: NetServer = createNetServer((socket) => {
    sockets.add(socket);
    connections.push(0);
    const conn = connections.length - 1;
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      while (buffered.includes('\r\n\r\n')) {
        buffered = buffered.slice(buffered.indexOf('\r\n\r\n') + 4);
        connections[conn] += 1;
        requests += 1;
        const body = Buffer.from(JSON.stringify({ data: { n: requests, name: 'ü'.repeat(50) } }));
        const coded = opts.gzip ? gzipSync(body) : body;
        socket.write(interim);
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${opts.gzip ? 'content-encoding: gzip\r\n' : ''}content-length: ${coded.length}\r\n\r\n`);
        socket.write(coded);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connections };
}

const EARLY_HINTS = 'HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload; as=style\r\n\r\n';
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
const PROCESSING = 'HTTP/1.1 102 Processing\r\n\r\n';

describe('an interim 1xx answer before the real one is skipped', () => {
  it.each([
    ['103 Early Hints', EARLY_HINTS, false],
    ['103 Early Hints, then a gzip answer', EARLY_HINTS, true],
    ['an unasked 100 Continue', CONTINUE, false],
    ['an unasked 100 Continue, then a gzip answer', CONTINUE, true],
    ['100, 102 and 103 in a row', CONTINUE + PROCESSING + EARLY_HINTS, true],
  ])('%s: the answer is read, and the connection kept for the next request', async (_name, interim, gzip) => {
    const s = await rawServer(interim, { gzip });
    const c = client(s.base);
    for (const n of [1, 2, 3]) {
      const res = await c.request<{ n: number; name: string }>({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY });
      expect(res.status).toBe(200);
      expect(res.data).toEqual({ n, name: 'ü'.repeat(50) });
    }
    expect(s.connections).toEqual([3]);
  });

  it('through the CLI: exit 0 and the answer, nothing on stderr', async () => {
    const s = await rawServer(EARLY_HINTS + CONTINUE, { gzip: true });
    const r = await runCommand(['--base-url', s.base, 'api', 'GET', '/cars'], { env: home().env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ data: { n: 1, name: 'ü'.repeat(50) } });
  });
});

describe('a proxy variable without a scheme means http://', () => {
  it('HTTP_PROXY=127.0.0.1:PORT forwards plain http to it', async () => {
    const api = await serveHttp((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}'));
    closers.push(() => api.close());
    const proxy = await startProxy({ httpPort: api.port });
    closers.push(() => proxy.close());
    const settings = proxySettings({ HTTP_PROXY: `127.0.0.1:${proxy.port}` });
    expect(settings.http).toEqual({ url: `http://127.0.0.1:${proxy.port}`, from: 'HTTP_PROXY' });
    const res = await client('http://api.internal.test/v1', { proxy: settings }).request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY });
    expect(res.data).toEqual({ ok: true });
    expect(proxy.seen.map((x) => x.line)).toEqual(['GET http://api.internal.test/v1/cars']);
  });

  it('HTTPS_PROXY=localhost:PORT (with credentials too) opens a CONNECT tunnel through it', async () => {
    const certs = makeCertificates(['api.internal.test']);
    closers.push(() => certs.cleanup());
    const api = await serveHttps(certs.selfSigned, (_req, res) => res.end('{}'));
    closers.push(() => api.close());
    const proxy = await startProxy({ tlsPort: api.port, credentials: 'ci:pa55' });
    closers.push(() => proxy.close());
    const settings = proxySettings({ HTTPS_PROXY: `ci:pa55@localhost:${proxy.port}` });
    expect(describeRoute(routeFor(new URL('https://api.internal.test/v1'), settings))).toBe(`through proxy http://ci:***@localhost:${proxy.port} (HTTPS_PROXY)`);
    // through the tunnel to the server, whose self-signed certificate is then refused
    const err = await failure(client('https://api.internal.test/v1', { proxy: settings }).request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY }));
    expect(err.message).toBe('could not verify the TLS certificate of https://api.internal.test (GET /cars): the certificate is self-signed');
    expect(proxy.seen.map((x) => [x.line, x.headers['proxy-authorization']])).toEqual([['CONNECT api.internal.test:443', `Basic ${Buffer.from('ci:pa55').toString('base64')}`]]);
  });

  it('through the CLI: --debug names the proxy as http://', async () => {
    const api = await serveHttp((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}'));
    closers.push(() => api.close());
    const proxy = await startProxy({ httpPort: api.port });
    closers.push(() => proxy.close());
    const r = await runCommand(['--debug', '--base-url', 'http://api.internal.test/v1', 'api', 'GET', '/cars'], { env: home().env({ http_proxy: `localhost:${proxy.port}` }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`* through proxy http://localhost:${proxy.port} (http_proxy)`);
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('a redirect loop', () => {
  it.each([
    ['to itself', (path: string) => path, (base: string) => `${base}/a redirects to itself`],
    ['between two paths', (path: string) => (path.endsWith('/a') ? '/v1/b' : '/v1/a'), (base: string) => `${base}/b sends it back to ${base}/a`],
  ])('%s: one line in the user’s words, with a hint, exit 1', async (_name, next, loop) => {
    let hops = 0;
    const api = await serveHttp((req, res) => {
      hops += 1;
      res.writeHead(302, { location: next(req.url ?? '/') }).end();
    });
    closers.push(() => api.close());
    const base = `http://127.0.0.1:${api.port}/v1`;
    const r = await runCommand(['--base-url', base, 'api', 'GET', '/a'], { env: home().env() });
    expect(r.code).toBe(1);
    // (`api` without a key says so first)
    const lines = r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('no API key configured'));
    expect(lines, r.stderr).toHaveLength(2);
    expect(lines[0]).toBe(`error: GET /a was redirected in a loop: ${loop(base)} (HTTP 302)`);
    expect(lines[1]).toMatch(/^hint: /);
    expect(r.stderr).not.toMatch(/Agent|Client or Pool|Redirect loop detected/);
    expect(hops).toBeLessThanOrEqual(2);
  });
});

describe('a server that speaks HTTP/2 only', () => {
  it('one line saying so, no OpenSSL text; not "rerunning is safe"', async () => {
    const certs = makeCertificates(['127.0.0.1']);
    closers.push(() => certs.cleanup());
    const server: Http2SecureServer = createSecureServer({ ...certs.selfSigned, allowHTTP1: false }, (_req, res) => res.end('{}'));
    server.on('sessionError', () => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const err = await failure(client(base).request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY }));
    expect(err.message).toBe(`${new URL(base).origin} speaks HTTP/2 only, and carrental speaks HTTP/1.1 (GET /cars)`);

    const r = await runCommand(['--base-url', base, 'cars'], { env: home().env() });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`error: ${new URL(base).origin} speaks HTTP/2 only, and carrental speaks HTTP/1.1 (GET /cars)`);
    expect(lines[1]).toMatch(/^hint: /);
    expect(r.stderr).not.toMatch(/SSL|alert|routines|rerunning/i);
  });
});

describe('a SOCKS proxy variable', () => {
  it.each([
    ['HTTPS_PROXY', 'socks5h://127.0.0.1:1080', 'socks5h'],
    ['https_proxy', 'socks5://user:pw@127.0.0.1:1080', 'socks5'],
    ['HTTP_PROXY', 'socks4://127.0.0.1:1080', 'socks4'],
  ])('%s=%s is refused before anything is sent, naming what is supported (exit 2)', async (name, value, scheme) => {
    let reached = 0;
    const socks = createNetServer((s) => {
      reached += 1;
      s.destroy();
    });
    await new Promise<void>((r) => socks.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => socks.close(() => r())));
    const port = (socks.address() as AddressInfo).port;
    const r = await runCommand(['--base-url', 'https://api.internal.test/v1', 'cars'], { env: home().env({ [name]: value.replace('1080', String(port)) }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${name} names a SOCKS proxy (${scheme}://), and carrental goes through http:// and https:// proxies only\n` +
        `hint: unset ${name} or point it at an HTTP proxy (http://host:port); NO_PROXY lists the hosts reached directly\n`,
    );
    expect(r.stderr).not.toContain('pw');
    expect(reached).toBe(0);
  });

  it('doctor: the network check fails naming it, and nothing is probed (exit 2)', async () => {
    const r = await runCommand(['--base-url', 'https://api.internal.test/v1', 'doctor', '--json'], { env: home().env({ HTTPS_PROXY: 'socks5h://127.0.0.1:1' }) });
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
    expect(report.checks.find((c) => c.name === 'network')).toEqual({
      name: 'network',
      status: 'fail',
      detail: 'HTTPS_PROXY names a SOCKS proxy (socks5h://), and carrental goes through http:// and https:// proxies only',
    });
  });

  it('a loopback API is still reached directly (a proxy never applies to it)', async () => {
    const api = await serveHttp((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}'));
    closers.push(() => api.close());
    const r = await runCommand(['--base-url', `http://127.0.0.1:${api.port}/v1`, 'api', 'GET', '/cars'], { env: home().env({ HTTPS_PROXY: 'socks5h://127.0.0.1:1', HTTP_PROXY: 'socks5h://127.0.0.1:1' }) });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('a proxy that does not answer the tunnel request', () => {
  /** A proxy that takes each connection and then closes it, or holds it and says nothing. */
  async function mute(mode: 'close' | 'hold') {
    let connections = 0;
    const sockets = new Set<Socket>();
    const server = createNetServer((s) => {
      connections += 1;
      sockets.add(s);
      s.on('error', () => undefined);
      s.once('data', () => (mode === 'close' ? s.destroy() : undefined));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy();
          server.close(() => r());
        }),
    );
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
  }

  it('closing the connection instead: one attempt, then one line naming the proxy (undici would ask again for ever)', async () => {
    const proxy = await mute('close');
    const started = Date.now();
    const err = await failure(client('https://api.internal.test/v1', { proxy: proxySettings({ HTTPS_PROXY: proxy.url }) }).request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY }));
    expect(err.message).toBe(`could not reach https://api.internal.test through the proxy ${proxy.url} (HTTPS_PROXY) (GET /cars): the proxy closed the connection without answering the tunnel request`);
    expect(err.kind).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(proxy.connections()).toBe(1);
  });

  it('saying nothing: the command’s timeout still ends it', async () => {
    const proxy = await mute('hold');
    const started = Date.now();
    const err = await failure(
      client('https://api.internal.test/v1', { timeoutMs: 500, proxy: proxySettings({ HTTPS_PROXY: proxy.url }) }).request({ method: 'GET', path: '/cars', auth: 'none', retry: NO_RETRY }),
    );
    expect(err.message).toBe('GET /cars timed out after 0.5 s');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
