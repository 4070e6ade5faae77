// What the client needs of its transport (undici, src/api/transport.ts), beyond
// what client.test.ts and client-edges.test.ts check through the stub server: bodies go
// with their length (never chunked), a body cut short is a lost connection, an https base
// URL really speaks TLS, and a scheme that is neither is refused with a clear message.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, NO_RETRY } from '../../src/api/client.js';
import { failure } from '../helpers/failure.js';

let server: Server | undefined;
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A raw server on a free loopback port; returns its base URL. */
async function serve(handler: Parameters<typeof createServer>[1], scheme = 'http'): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function client(baseUrl: string): ApiClient {
  const c = new ApiClient({ baseUrl, timeoutMs: 3_000, userAgent: 'carrental/test', apiKey: 'svc_0123456789abcdef0123456789abcdef', sleep: async () => undefined });
  clients.push(c);
  return c;
}

describe('the transport', () => {
  it('sends a JSON body with its Content-Length, a body-less POST with 0 and a GET with neither', async () => {
    const seen: Array<{ method?: string; headers: IncomingHttpHeaders; body: string }> = [];
    const base = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
      });
    });
    const c = client(base);
    await c.request({ method: 'POST', path: '/x', auth: 'none', body: { name: 'é' }, retry: NO_RETRY });
    await c.request({ method: 'POST', path: '/y', auth: 'none', retry: NO_RETRY });
    await c.request({ method: 'GET', path: '/z', auth: 'none' });
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"name":"é"}', headers: { 'content-length': '13', 'content-type': 'application/json' } });
    expect(seen[1].headers['content-length']).toBe('0');
    expect(seen[2].headers['content-length']).toBeUndefined();
    for (const s of seen) expect(s.headers['transfer-encoding']).toBeUndefined();
    // one keep-alive connection carried all three
    expect(seen.every((s) => s.headers.connection === 'keep-alive')).toBe(true);
  });

  it('a body cut short is a connection closed before the answer (and a GET is retried)', async () => {
    let calls = 0;
    const base = await serve((_req, res) => {
      calls += 1;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"data":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const err = await failure(client(base).request({ method: 'GET', path: '/x', auth: 'none' }));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toBe(`could not reach ${new URL(base).origin} (GET /x): connection closed before the answer`);
    expect(calls).toBe(4);
  });

  it('an https base URL speaks TLS: a plain-http server on that port is not an answer', async () => {
    let requests = 0;
    const base = await serve((_req, res) => {
      requests += 1;
      res.end('{"data":{}}');
    }, 'https');
    const err = await failure(client(base).request({ method: 'GET', path: '/x', auth: 'key', retry: NO_RETRY }));
    // in words, not OpenSSL's; not "unavailable": a rerun meets the same server
    expect(err.kind).toBe('api');
    expect(err.message).toBe(`${new URL(base).origin} does not speak TLS on port ${new URL(base).port} (GET /x)`);
    expect(requests).toBe(0);
  });

  it('refuses a scheme other than http and https, naming it', async () => {
    const err = await failure(client('ftp://127.0.0.1:21/v1').request({ method: 'GET', path: '/x', auth: 'none', retry: NO_RETRY }));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toContain('unsupported protocol ftp:');
  });
});
