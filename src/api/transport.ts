// The HTTP transport: undici, composed from its own pieces. One keep-alive Agent per
// client (an EnvHttpProxyAgent when a proxy variable is set), so sequential calls and the
// concurrent pages of `cars --all` reuse their connections, with undici's interceptors:
//
//   redirect   follows the redirects our policy allows (at most maxRedirects hops), the
//              body re-sent as is with the same headers (and so the same Idempotency-Key);
//   decompress decodes gzip, deflate and br answers, error answers too, and stops past
//              the size cap counted on decoded bytes.
//
// What stays ours is only what the API's rules make ours: which redirects may be followed
// (same origin only, and 301/302/303 for GET only: undici would turn a POST into a GET),
// the size cap on the body we read, and loopback never going through a proxy. The client
// (client.ts) loads this module only when it sends its first request, so `--help`,
// `--version` and commands that send nothing never load undici.
//
// Only undici's own files for these pieces are loaded: the package entry also loads fetch,
// WebSocket, EventSource, caches and mocks, which more than doubles a command's start.
import diagnostics from 'node:diagnostics_channel';
import { isIP } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import type { buildConnector, Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import undiciRequest from 'undici/lib/api/api-request.js';
import undiciConnect from 'undici/lib/api/api-connect.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';
import redirect from 'undici/lib/interceptor/redirect.js';
import decompress from 'undici/lib/interceptor/decompress.js';
import undiciSymbols from 'undici/lib/core/symbols.js';
import type { ProxySettings, Route } from './proxy.js';

export interface TransportOptions {
  timeoutMs: number;
  /** A body longer than this, once decoded, ends the request with ResponseTooLarge. */
  maxResponseBytes: number;
  proxy: ProxySettings;
  /** Hops followed at most; the next 3xx reaches the client as it is. */
  maxRedirects: number;
}

export interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Every URL the request was sent to after the first (the redirects followed), in order. */
  redirects: string[];
}

/** A redirect our policy does not follow; the client words it. */
export class RedirectRefused extends Error {
  constructor(
    readonly status: number,
    readonly location: string,
    readonly reason: 'other-origin' | 'method',
  ) {
    super(`redirect (HTTP ${status}) to ${location} not followed`);
    this.name = 'RedirectRefused';
  }
}

/** A redirect to where the request has already been (undici would throw its own advice). */
export class RedirectLoop extends Error {
  constructor(
    readonly status: number,
    readonly from: string,
    readonly location: string,
  ) {
    super(`redirect loop (HTTP ${status}) from ${from} back to ${location}`);
    this.name = 'RedirectLoop';
  }
}

/** The body went past the size cap (before or after decoding); reading stopped there. */
export class ResponseTooLarge extends Error {
  constructor() {
    super('response too large');
    this.name = 'ResponseTooLarge';
  }
}

// undici parses HTTP with llhttp compiled to WebAssembly. V8 then recompiles it with
// TurboFan in the background, and node waits for that at exit: 80-150 ms after the output
// of every command on Node 20. The baseline compiler is plenty for a CLI's few responses.
// Set before the first connection compiles the module, and not at load: V8's code-cache
// tag includes its flags, and node's compile cache (Node 22+) must see the same flags at
// every start.
let wasmTierUpOff = false;
function baselineWasmOnly(): void {
  if (wasmTierUpOff) return;
  setFlagsFromString('--liftoff-only');
  wasmTierUpOff = true;
}

// undici's HTTP/1.1 parser drops the connection on any `100 Continue` (it never asks for
// one), where curl skips it like any other interim answer: some servers and fronts send
// one unasked. Its parser is not exported: the first connection made hands it over (the
// `connected` channel fires before any byte of an answer is read), and from then on a 100
// goes the way undici already takes a 102 (the policy below skips every 1xx).
let continueSkipped = false;
function onConnected(message: unknown): void {
  const parser = (message as { socket?: Record<symbol, unknown> }).socket?.[undiciSymbols.kParser] as { onHeadersComplete?: unknown } | undefined;
  if (continueSkipped || !parser || typeof parser.onHeadersComplete !== 'function') return;
  const proto = Object.getPrototypeOf(parser) as { onHeadersComplete: (statusCode: number, upgrade: boolean, keepAlive: boolean) => number };
  const onHeadersComplete = proto.onHeadersComplete;
  proto.onHeadersComplete = function (statusCode, upgrade, keepAlive) {
    return onHeadersComplete.call(this, statusCode === 100 ? 102 : statusCode, upgrade, keepAlive);
  };
  continueSkipped = true;
  diagnostics.unsubscribe('undici:client:connected', onConnected);
}
diagnostics.subscribe('undici:client:connected', onConnected);

// The proxy agent opens its CONNECT tunnels with the dispatcher's connect(), which undici's
// package entry puts on every dispatcher (with the other API methods we do not load).
const dispatcherProto = DispatcherBase.prototype as unknown as { connect?: typeof undiciConnect };
dispatcherProto.connect ??= undiciConnect;

const FOLLOW_ANY_METHOD = new Set([307, 308]);
const FOLLOW_GET_ONLY = new Set([301, 302, 303]);

/**
 * The redirect policy, an interceptor placed under undici's redirect interceptor so that it
 * sees every hop: a redirect it refuses ends the request with RedirectRefused before
 * undici's handler could follow it, and one back to a URL already visited with RedirectLoop.
 * It also skips interim answers (1xx other than 101), as curl does: `103 Early Hints` or
 * a `100 Continue` a server sends unasked precede the real answer, and undici's interceptors
 * above (decompress) take any answer they see for the final one.
 */
function redirectPolicy(): Dispatcher.DispatcherComposeInterceptor {
  // each hop is dispatched anew with the same redirect handler: what it visited, by handler
  const visited = new WeakMap<object, Set<string>>();
  return (dispatch) => (opts, handler) => {
    let refused = false;
    const here = new URL(opts.path, String(opts.origin)).href;
    const seen = visited.get(handler) ?? new Set<string>();
    visited.set(handler, seen.add(here));
    const policy: Dispatcher.DispatchHandler = {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
      onResponseStart(controller, statusCode, headers, statusMessage) {
        if (statusCode < 200) return;
        const location = headers.location;
        if (typeof location === 'string' && (FOLLOW_ANY_METHOD.has(statusCode) || FOLLOW_GET_ONLY.has(statusCode))) {
          const from = new URL(here);
          const to = URL.canParse(location, from.href) ? new URL(location, from) : undefined;
          const reason = !to || to.origin !== from.origin ? 'other-origin' : FOLLOW_GET_ONLY.has(statusCode) && opts.method !== 'GET' ? 'method' : undefined;
          if (reason) {
            refused = true;
            controller.abort(new RedirectRefused(statusCode, to?.href ?? location, reason));
            return;
          }
          if (to && seen.has(new URL(`${to.pathname}${to.search}`, to.origin).href)) {
            refused = true;
            controller.abort(new RedirectLoop(statusCode, here, to.href));
            return;
          }
        }
        handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
      },
      onResponseData: (controller, chunk) => (refused ? undefined : handler.onResponseData?.(controller, chunk)),
      onResponseEnd: (controller, trailers) => (refused ? undefined : handler.onResponseEnd?.(controller, trailers)),
      onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
    };
    return dispatch(opts, policy);
  };
}

/**
 * undici marks its decompress interceptor experimental and says so with a process warning
 * when one is created: a line on stderr of every command. The behaviour carrental relies
 * on is pinned by test/unit/client-network.test.ts on the version the lockfile holds.
 */
function quietDecompress(maxSize: number): Dispatcher.DispatcherComposeInterceptor {
  const emitWarning = process.emitWarning;
  process.emitWarning = (() => undefined) as typeof process.emitWarning;
  try {
    // error answers decoded too: their JSON body carries the error code
    return decompress({ skipErrorResponses: false, maxSize });
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * The connections to the proxy itself. undici names the proxy in the TLS handshake by its
 * host even when that is an IP address, which RFC 6066 does not allow: node then prints a
 * deprecation warning (DEP0123) on stderr. An https proxy given by address sends no name
 * (the certificate is checked against the address all the same).
 */
function proxyClient(origin: URL, opts: { connect: buildConnector.connector }): Dispatcher {
  const connect = opts.connect;
  const noAddressName: buildConnector.connector = (options, callback) =>
    connect({ ...options, servername: options.servername && isIP(options.servername) ? undefined : options.servername }, callback);
  const pool = new Pool(origin, { ...opts, connect: noAddressName });
  // A proxy that closes the connection instead of answering CONNECT fails the tunnel with
  // undici's "socket" error, which undici takes for a passing one: it keeps the request
  // queued and asks again at once, for ever, past any timeout. Given as what it is, the
  // failure ends the request.
  const tunnel = (pool as unknown as { connect: (o: unknown) => Promise<unknown> }).connect.bind(pool);
  (pool as unknown as { connect: (o: unknown) => Promise<unknown> }).connect = async (options) => {
    try {
      return await tunnel(options);
    } catch (err) {
      throw (err as { code?: string })?.code === 'UND_ERR_SOCKET' ? new ProxyClosed(err) : err;
    }
  };
  return pool;
}

/** The proxy closed the connection without answering the CONNECT request. */
export class ProxyClosed extends Error {
  readonly code = 'ERR_PROXY_CLOSED'; // not CARRENTAL_-prefixed: that prefix names environment variables
  constructor(cause: unknown) {
    super('the proxy closed the connection without answering the tunnel request', { cause });
    this.name = 'ProxyClosed';
  }
}

/**
 * The request's promise, rejected as soon as `signal` aborts. undici honours an abort only
 * once a request has a connection: one still queued behind a connection that cannot be
 * made would wait for ever. (The request left behind ends when the transport is closed.)
 */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export class Transport {
  private direct?: Dispatcher;
  private proxied?: Dispatcher;
  private readonly owned: Dispatcher[] = [];

  constructor(private readonly opts: TransportOptions) {}

  private compose(base: Dispatcher): Dispatcher {
    this.owned.push(base);
    // compose wraps in order: the last interceptor is the outermost (decompress sees the
    // final answer), the first the innermost (the policy sees each hop)
    return base.compose(redirectPolicy(), redirect({ maxRedirections: this.opts.maxRedirects }), quietDecompress(this.opts.maxResponseBytes));
  }

  private dispatcherFor(route: Route): Dispatcher {
    const agentOptions = { keepAliveTimeout: 10_000, connections: 8, headersTimeout: this.opts.timeoutMs, bodyTimeout: this.opts.timeoutMs };
    if (!('proxy' in route)) return (this.direct ??= this.compose(new Agent(agentOptions)));
    const { http, https, noProxy } = this.opts.proxy;
    // EnvHttpProxyAgent with the values read from the command's environment (not
    // process.env), so tests and `doctor` see the same choice. proxyTunnel off: plain http
    // goes to the proxy as an absolute URL, as curl sends it; https is always a CONNECT
    // tunnel, so the proxy never sees what travels inside it.
    return (this.proxied ??= this.compose(new EnvHttpProxyAgent({ ...agentOptions, httpProxy: http?.url ?? '', httpsProxy: https?.url ?? '', noProxy, proxyTunnel: false, clientFactory: proxyClient })));
  }

  /** `route` is routeFor(url, proxy) (src/api/proxy.ts): the client decides it, and says it in --debug. */
  async send(url: URL, route: Route, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<Sent> {
    baselineWasmOnly();
    const dispatcher = this.dispatcherFor(route);
    let res: Dispatcher.ResponseData;
    try {
      res = await abortable(undiciRequest.call(dispatcher, { origin: url.origin, path: `${url.pathname}${url.search}`, method: method as Dispatcher.HttpMethod, headers, body, signal }), signal);
    } catch (err) {
      throw tooLargeOr(err);
    }
    const text = await this.readCapped(res);
    // undici hands a kept-alive socket back to its pool one event-loop turn after the
    // answer ends (setImmediate, in case the server closes it after all): a request sent
    // sooner, such as the next page of `cars --all`, would open a second connection.
    // Waiting that turn here keeps sequential calls on one connection.
    await new Promise((resolve) => setImmediate(resolve));
    const history = (res.context as { history?: URL[] } | undefined)?.history ?? [];
    return { status: res.statusCode, headers: res.headers, text, redirects: history.slice(1).map(String) };
  }

  /**
   * The body as text, read chunk by chunk up to the cap: a server that sends gigabytes
   * (by mistake or on purpose, or a small gzip bomb) costs at most the cap in memory, then
   * the connection is dropped. A connection that closes in the middle of the body rejects
   * (UND_ERR_SOCKET).
   */
  private async readCapped(res: Dispatcher.ResponseData): Promise<string> {
    const cap = this.opts.maxResponseBytes;
    const tooLarge = () => {
      // destroy() without a reason makes undici emit RequestAbortedError on the body: with
      // no reader left (the declared-length check runs before reading), nobody would catch it
      res.body.on('error', () => undefined);
      res.body.destroy();
      return new ResponseTooLarge();
    };
    // a declared length is of the bytes on the wire; decompress drops it for a coded body
    if (Number(res.headers['content-length']) > cap) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > cap) throw tooLarge();
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      throw tooLargeOr(err);
    }
    // TextDecoder, like undici's own text(), drops a leading byte-order mark
    return new TextDecoder().decode(Buffer.concat(chunks, size));
  }

  async close(): Promise<void> {
    const owned = this.owned.splice(0);
    this.direct = this.proxied = undefined;
    // destroy, not close: a command that ends (or is interrupted) must not wait for idle sockets
    await Promise.all(owned.map((d) => d.destroy()));
  }
}

/** undici's decompress stops past its maxSize with its own error: ours says the same thing. */
function tooLargeOr(err: unknown): unknown {
  return (err as { code?: string })?.code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' ? new ResponseTooLarge() : err;
}
