// Issue 24: the transport is an Agent composed with undici's own interceptors, not code of
// ours doing their job. The behaviour is tested in client-network.test.ts; a hand-written
// redirect follower, decoder or proxy agent could pass those. Here undici's own handlers
// are watched (their prototypes, shared with the instances the transport makes: undici is
// loaded by node, once) while the client follows a redirect, decodes gzip and goes through
// a proxy, and each must have seen the answer.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { proxySettings } from '../../src/api/proxy.js';
import { ROOT } from '../helpers/bin.js';
import { serveHttp, startProxy } from '../helpers/network.js';

const require = createRequire(join(ROOT, 'package.json'));
type Proto = Record<PropertyKey, (...args: any[]) => unknown>;

const restores: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const r of restores.splice(0).reverse()) await r();
});

/** Records the calls of `proto[method]` until the test ends; the method still runs. */
function watch(proto: Proto, method: PropertyKey): unknown[][] {
  const calls: unknown[][] = [];
  const original = proto[method];
  proto[method] = function (this: unknown, ...args: unknown[]) {
    calls.push(args);
    return original.apply(this, args);
  };
  restores.push(() => void (proto[method] = original));
  return calls;
}

async function serve(answer: (url: string, res: ServerResponse) => void) {
  const l = await serveHttp((req, res) => answer(req.url ?? '', res));
  restores.push(() => l.close());
  return l;
}

function client(baseUrl: string, proxy = proxySettings({})) {
  const c = new ApiClient({ baseUrl, timeoutMs: 5_000, userAgent: 'carrental/test', proxy });
  restores.push(() => c.close());
  return c;
}

it("redirects are followed by undici's RedirectHandler", async () => {
  const RedirectHandler = require('undici/lib/handler/redirect-handler.js') as { prototype: Proto };
  const statuses = watch(RedirectHandler.prototype, 'onResponseStart');
  const s = await serve((url, res) =>
    url === '/v1/old' ? void res.writeHead(307, { location: '/v1/new' }).end() : res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}'),
  );
  const res = await client(`http://127.0.0.1:${s.port}/v1`).request({ method: 'GET', path: '/old', auth: 'none' });
  expect(res.data).toEqual({ ok: true });
  expect(statuses.map((args) => args[1])).toEqual([307, 200]);
});

it("compressed answers are decoded by undici's decompress interceptor", async () => {
  // its handler class is not exported: one made by the exported interceptor gives its prototype
  const decompress = require('undici/lib/interceptor/decompress.js') as (opts?: object) => (dispatch: (o: unknown, h: object) => boolean) => (o: unknown, h: object) => boolean;
  let made: object | undefined;
  const emitWarning = process.emitWarning;
  process.emitWarning = (() => undefined) as typeof process.emitWarning;
  try {
    decompress()((_opts, handler) => ((made = handler), true))({}, {});
  } finally {
    process.emitWarning = emitWarning;
  }
  const encodings = watch(Object.getPrototypeOf(made) as Proto, 'onResponseStart');
  const s = await serve((_url, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"data":{"ok":true}}')));
  const res = await client(`http://127.0.0.1:${s.port}/v1`).request({ method: 'GET', path: '/cars', auth: 'none' });
  expect(res.data).toEqual({ ok: true });
  expect(encodings.map((args) => (args[2] as Record<string, string>)['content-encoding'])).toEqual(['gzip']);
});

it("a proxy is reached through undici's EnvHttpProxyAgent", async () => {
  const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent.js') as { prototype: Proto };
  const { kDispatch } = require('undici/lib/core/symbols.js') as { kDispatch: symbol };
  const dispatched = watch(EnvHttpProxyAgent.prototype, kDispatch);
  const api = await serve((_url, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}'));
  const proxy = await startProxy({ httpPort: api.port });
  restores.push(() => proxy.close());
  const res = await client('http://api.internal.test/v1', proxySettings({ HTTP_PROXY: proxy.url })).request({ method: 'GET', path: '/cars', auth: 'none' });
  expect(res.data).toEqual({ ok: true });
  expect(proxy.seen.map((s) => s.line)).toEqual(['GET http://api.internal.test/v1/cars']);
  expect(dispatched.map((args) => (args[0] as { path: string }).path)).toEqual(['/v1/cars']);
});
