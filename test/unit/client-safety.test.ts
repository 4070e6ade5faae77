// The request sender's safety rules: where the key may travel, how much of a response it
// reads, and what a --debug trace may show of a hostile server's answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, isLoopbackHost, keySafeOver, type ClientOptions } from '../../src/api/client.js';
import { CliError } from '../../src/errors.js';
import { hintFor } from '../../src/cmdkit/hints.js';
import { StubServer } from '../helpers/stub-server.js';
import { failure } from '../helpers/failure.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const MiB = 1024 * 1024;
let stub: StubServer;
const clients: ApiClient[] = [];
let debugLines: string[];

function client(opts: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({ baseUrl: stub.baseUrl, timeoutMs: 10_000, userAgent: 'carrental/test', random: () => 0, sleep: async () => {}, debug: (l) => debugLines.push(l), ...opts });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  stub = await StubServer.start();
  debugLines = [];
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stub.close();
});

describe('the key travels only over https or loopback http', () => {
  it.each([
    ['https://api.example.com/v1', true],
    ['https://10.0.0.5:8443/v1', true],
    ['http://127.0.0.1:4780/v1', true],
    ['http://127.5.6.7/v1', true],
    ['http://127.1/v1', true],
    ['http://localhost:8080/v1', true],
    ['http://LOCALHOST/v1', true],
    ['http://[::1]:4780/v1', true],
    ['http://[::ffff:127.0.0.1]/v1', true],
    ['http://api.example.com/v1', false],
    ['http://10.0.0.5/v1', false],
    ['http://0.0.0.0:4780/v1', false],
    ['http://128.0.0.1/v1', false],
    ['http://localhost.evil.example/v1', false],
    ['http://127.0.0.1.nip.io/v1', false],
    ['http://[::2]/v1', false],
    ['http://[::ffff:10.0.0.1]/v1', false],
  ])('%s: %s', (url, safe) => {
    expect(keySafeOver(url)).toBe(safe);
  });

  it('recognises loopback host names as URL parsing normalises them', () => {
    expect(isLoopbackHost(new URL('http://0x7f.1/').hostname)).toBe(true);
    expect(isLoopbackHost(new URL('http://2130706433/').hostname)).toBe(true);
  });

  it('refuses a keyed call to a remote http URL with a usage error (exit 2) before connecting', async () => {
    // TEST-NET-1: nothing answers there, so a connection attempt would show as a timeout or refusal
    const c = client({ baseUrl: 'http://192.0.2.1/v1', apiKey: KEY, timeoutMs: 300 });
    for (const auth of ['key', 'optional'] as const) {
      const err = await failure(c.request({ method: 'GET', path: '/my/profile', auth }));
      expect(err.kind).toBe('usage');
      expect(err.message).toBe('refusing to send the API key to http://192.0.2.1: a key is sent only over https, or plain http to a loopback address');
      expect(hintFor(err)).toContain('https');
    }
    expect(debugLines).toEqual([]);
  });

  it('sends the key to loopback http (the sandbox, a local proxy)', async () => {
    stub.handler = () => ({ json: { data: 1 } });
    await client({ apiKey: KEY }).request({ method: 'GET', path: '/my/profile', auth: 'key' });
    expect(stub.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

/** A server that streams `total` bytes of a JSON string and counts what it managed to write. */
async function bigServer(total: number, declareLength: boolean): Promise<{ url: string; written: () => number; done: Promise<void>; close: () => Promise<void> }> {
  let written = 0;
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(total + 12) } : {}) });
    res.write('{"data":"');
    const pump = () => {
      while (written < total) {
        const ok = res.write(chunk);
        written += chunk.length;
        if (!ok) return void res.once('drain', pump);
      }
      res.end('"}');
    };
    res.on('close', finish);
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    written: () => written,
    done,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('response size cap', () => {
  it('stops reading a 50 MB body at the 16 MiB default cap with a clear error (exit 1)', async () => {
    const big = await bigServer(50 * 1000 * 1000, false);
    try {
      const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
      const err = await failure(client({ baseUrl: big.url }).request({ method: 'GET', path: '/cars', auth: 'none' }));
      const heapAfter = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
      expect(err.kind).toBe('api');
      expect(err.exitCode).toBe(1);
      expect(err.message).toBe('the response to GET /cars is larger than 16 MiB: stopped reading it');
      expect(hintFor(err)).toContain('CARRENTAL_MAX_RESPONSE_BYTES');
      await big.done;
      // the server could push the cap plus what the socket buffers held, never the whole body
      expect(big.written()).toBeLessThan(30 * 1000 * 1000);
      // nothing like the 50 MB (or, as text, 100 MB) it would take to buffer it all
      expect(heapAfter - heapBefore).toBeLessThan(40 * MiB);
    } finally {
      await big.close();
    }
  });

  it('honours a lower cap, and refuses a declared Content-Length above it without reading', async () => {
    const big = await bigServer(40 * MiB, true);
    try {
      const err = await failure(client({ baseUrl: big.url, maxResponseBytes: 64 * 1024 }).request({ method: 'GET', path: '/cars', auth: 'none' }));
      expect(err.message).toBe('the response to GET /cars is larger than 64 KiB: stopped reading it');
      await big.done;
      expect(big.written()).toBeLessThan(20 * MiB);
    } finally {
      await big.close();
    }
  });

  it('reads a body right at the cap', async () => {
    const body = JSON.stringify({ data: 'x'.repeat(1000) });
    stub.handler = () => ({ raw: body });
    const res = await client({ maxResponseBytes: Buffer.byteLength(body) }).request<string>({ method: 'GET', path: '/cars', auth: 'none' });
    expect(res.data).toHaveLength(1000);
    const err = await failure(client({ maxResponseBytes: Buffer.byteLength(body) - 1 }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(err.message).toContain('is larger than');
  });

  it('is not retried: a second attempt would read as much again', async () => {
    stub.handler = () => ({ raw: JSON.stringify({ data: 'x'.repeat(5000) }) });
    await failure(client({ maxResponseBytes: 1024 }).request({ method: 'GET', path: '/cars', auth: 'none' }));
    expect(stub.requests).toHaveLength(1);
  });

  it('still drops a UTF-8 byte-order mark, as before', async () => {
    stub.handler = () => ({ raw: '\ufeff{"data":{"é":"✓"}}' });
    const res = await client().request<Record<string, string>>({ method: 'GET', path: '/cars', auth: 'none' });
    expect(res.data).toEqual({ é: '✓' });
  });
});

describe('--debug traces of a hostile server', () => {
  const ESC = '\u001b';
  it('shows control, C1 and bidi characters as visible escapes and never the key, even written with JSON escapes', async () => {
    stub.handler = () => ({
      // node sends header bytes as latin-1 and refuses C0 there: C1 is what a header can carry
      headers: { 'x-note': 'a\u009d0;title\u009cb' },
      raw: `{"data":{"a":"\u009b31m\u202eevil","k":"${KEY}","esc":"svc\\u005f0123456789abcdef0123456789abcdef"}}`,
    });
    await client({ apiKey: KEY }).request({ method: 'GET', path: '/my/profile', auth: 'key' });
    const trace = debugLines.join('\n');
    expect(trace).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(trace).toContain('< x-note: a\\u009d0;title\\u009cb');
    expect(trace).toContain('\\u009b31m\\u202eevil');
    expect(trace).not.toContain(KEY);
    expect(trace).not.toContain('0123456789abcdef0123456789abcdef');
  });

  it('masks a key that a server split with an escape sequence', async () => {
    const split = `${KEY.slice(0, 10)}\u009b0m${KEY.slice(10)}`;
    stub.handler = () => ({ headers: { 'x-echo': split }, json: { data: 1 } });
    await client({ apiKey: KEY }).request({ method: 'GET', path: '/my/profile', auth: 'key' });
    const trace = debugLines.join('\n');
    expect(trace).toContain('< x-echo: svc_…cdef');
    expect(trace).not.toContain(KEY.slice(10));
  });

  it('cleans the error code a retry progress line shows', async () => {
    const seen: string[] = [];
    stub.handler = (_r, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '1' }, json: { error_code: `busy${ESC}[2J\u202e` } } : { json: { data: 1 } });
    await client({ onRetry: ({ failure }) => void seen.push(failure.kind === 'status' ? (failure.errorCode ?? '') : '') }).request({ method: 'GET', path: '/cars', auth: 'none' });
    expect(seen).toEqual(['busy']);
  });
});
