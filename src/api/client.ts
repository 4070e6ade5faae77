// The one request sender: base-URL joining, exactly one credential header (or none),
// envelopes, zod validation of every response, retries that honour Retry-After, typed
// errors, timeouts and --debug tracing with credentials redacted.
//
// The transport is undici (src/api/transport.ts: proxies, redirects, compression), loaded
// when the first request is sent. An error records what failed (src/errors.ts); what to do
// about it is the front end's to say (src/cmdkit/hints.ts).
import { CliError, kindForStatus, usageError, type FailedRequest } from '../errors.js';
import { safeJsonText, scrubValue } from '../text/json-text.js';
import { clean, visible } from '../text/sanitize.js';
import { isLoopbackHost } from './loopback.js';
import { operationOf } from './operations.js';
import { isDotSegment } from './path.js';
import { describeRoute, hasProxy, maskProxy, routeFor, unusableProxy, type ProxySettings, type Route } from './proxy.js';
import { certificateError, certificateProblem, handshakeError, MAX_REDIRECTS, NetworkFailure, networkError, notFollowed, redirectLoop, redirectRefused } from './transport-errors.js';
import { holdsSecret, maskSecrets, maskSecretsIn, redactHeader, scrubSecrets } from '../text/redact.js';

export { isLoopbackHost } from './loopback.js';
export { isCertificateError, isRedirectError, MAX_REDIRECTS, movedBaseUrl } from './transport-errors.js';

export { redactHeader } from '../text/redact.js';

export type AuthMode = 'none' | 'key' | 'optional';

/** What the client needs of a response schema: any zod schema, mini or classic, fits. */
export interface Schema<T> {
  safeParse(data: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

/** What went wrong with one attempt, as a retry policy sees it. */
export type Failure =
  | { kind: 'status'; status: number; errorCode?: string; retryAfterMs?: number }
  | { kind: 'network'; timedOut: boolean; code?: string };

export interface RetryPolicy {
  /** Total attempts, the first included. */
  maxAttempts: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxTotalMs: number;
  retryable(failure: Failure, method: string): boolean;
  /** Lowest wait before the next attempt, e.g. a few seconds for a payment in progress. */
  minDelayMs?(failure: Failure): number;
}

/** Reads and anonymous calls: 429 and 503 honouring Retry-After, and a dropped connection on GET. */
export const READ_RETRY: RetryPolicy = {
  maxAttempts: 4,
  maxTotalMs: 30_000,
  retryable(f, method) {
    if (f.kind === 'status') return f.status === 429 || f.status === 503;
    return method === 'GET' && !f.timedOut && f.code !== 'ECONNREFUSED';
  },
};

export const NO_RETRY: RetryPolicy = { maxAttempts: 1, maxTotalMs: 0, retryable: () => false };

export interface RequestSpec<T> {
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A body sent as given (the `api` command). */
  rawBody?: string;
  auth: AuthMode;
  schema?: Schema<T>;
  /** `{"data": ...}` (default) or a bare payload such as the invoice list. */
  envelope?: boolean;
  headers?: Record<string, string>;
  retry?: RetryPolicy;
  /** Return non-2xx responses instead of throwing (the `api` command). */
  allowErrorStatus?: boolean;
  /**
   * Abandons this request, its retries and their waits (a page of `cars --all` that is no
   * longer wanted): nothing is sent after it fires.
   */
  signal?: AbortSignal;
  /** Called before each retry with the wait, e.g. to show progress; awaited, so it can record the attempt first. */
  onRetry?: (info: { attempt: number; maxAttempts: number; delayMs: number; failure: Failure }) => void | Promise<void>;
}

export interface ApiResponse<T> {
  data: T;
  /** The parsed JSON body as the server sent it. */
  body: unknown;
  text: string;
  status: number;
  headers: Record<string, string>;
  /** The URLs the answer came from after following redirects (same origin only), in order; empty when none. */
  redirects: string[];
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Which credential header carries the key. */
  credentialHeader?: 'authorization' | 'x-api-key';
  timeoutMs: number;
  userAgent: string;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
  debug?: (line: string) => void;
  /** Default progress reporter for retries. */
  onRetry?: RequestSpec<unknown>['onRetry'];
  random?: () => number;
  /** A response body longer than this ends the request with an error; reading stops there. */
  maxResponseBytes?: number;
  /** Called as a request starts (retries included); the function it returns, as it ends. */
  onRequest?: (label: string) => () => void;
  /** HTTPS_PROXY, HTTP_PROXY and NO_PROXY: from the command's environment (src/api/proxy.ts). */
  proxy?: ProxySettings;
}

const MAX_BACKOFF_MS = 8_000;
const NO_PROXY: ProxySettings = { noProxy: '' };
const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * The key travels only where nobody between us and the server can read it: https, or
 * plain http to this machine (127.0.0.0/8, ::1, localhost: the sandbox, a local proxy).
 */
export function keySafeOver(baseUrl: string): boolean {
  if (!URL.canParse(baseUrl)) return false;
  const url = new URL(baseUrl);
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  return isLoopbackHost(url.hostname);
}

/** The usage error for a key that would travel over plain http to another machine. */
export function insecureKeyTransport(baseUrl: string): CliError {
  return new CliError('usage', `refusing to send the API key to ${new URL(baseUrl).origin}: a key is sent only over https, or plain http to a loopback address`, {
    transport: { kind: 'key_over_http' },
  });
}

export class ApiClient {
  readonly baseUrl: string;
  private transport?: import('./transport.js').Transport;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** --debug output; every line passes through the key scrubber, whatever it echoes. */
  private readonly debug?: (line: string) => void;
  private readonly keySafe: boolean;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.keySafe = keySafeOver(this.baseUrl);
    const sink = opts.debug;
    if (sink) this.debug = (line) => sink(traceLine(line, opts.apiKey));
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
  }

  get hasKey(): boolean {
    return !!this.opts.apiKey;
  }

  async close(): Promise<void> {
    const transport = this.transport;
    this.transport = undefined;
    await transport?.close();
  }

  url(path: string, query?: RequestSpec<unknown>['query']): string {
    checkRoute(path);
    const url = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  async request<T>(spec: RequestSpec<T>): Promise<ApiResponse<T>> {
    const policy = spec.retry ?? READ_RETRY;
    const label = `${spec.method} ${spec.path}`;
    const ended = this.opts.onRequest?.(label);
    try {
      return await this.attempts(spec, policy, label);
    } finally {
      ended?.();
    }
  }

  private async attempts<T>(spec: RequestSpec<T>, policy: RetryPolicy, label: string): Promise<ApiResponse<T>> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      let failure: Failure;
      let error: CliError;
      if (spec.signal?.aborted) throw abandoned(label);
      try {
        const res = await this.once(spec, label);
        if (res.status < 300 || spec.allowErrorStatus) return this.finish(spec, res, label);
        error = scrubError(errorFromResponse(res.status, res.body, res.headers, label), this.opts.apiKey);
        // the code is shown in progress lines: a server's string, so cleaned
        const errorCode = error.api?.error_code === undefined ? undefined : clean(error.api.error_code);
        failure = { kind: 'status', status: res.status, errorCode, retryAfterMs: error.api?.retryAfter !== undefined ? error.api.retryAfter * 1000 : undefined };
      } catch (err) {
        if (!(err instanceof NetworkFailure)) throw err;
        error = err.cliError;
        failure = err.failure;
      }
      if (attempt >= policy.maxAttempts || !policy.retryable(failure, spec.method)) throw error;
      const delayMs = this.delayFor(failure, attempt, policy);
      if (Date.now() - started + delayMs > policy.maxTotalMs) throw error;
      await (spec.onRetry ?? this.opts.onRetry)?.({ attempt, maxAttempts: policy.maxAttempts, delayMs, failure });
      this.debug?.(`* retry ${attempt + 1}/${policy.maxAttempts} of ${label} in ${delayMs} ms`);
      await untilAborted(this.sleep(delayMs), spec.signal, label);
    }
  }

  /** Capped exponential backoff with jitter, never shorter than Retry-After. */
  private delayFor(failure: Failure, attempt: number, policy: RetryPolicy): number {
    const backoff = Math.min(MAX_BACKOFF_MS, 500 * 2 ** (attempt - 1));
    const jittered = Math.round(backoff / 2 + (this.random() * backoff) / 2);
    const retryAfter = failure.kind === 'status' ? (failure.retryAfterMs ?? 0) : 0;
    return Math.max(jittered, retryAfter, policy.minDelayMs?.(failure) ?? 0);
  }

  /**
   * What `request(spec)` would send first, credentials masked (`--dry-run`). It throws
   * what the request would throw before sending: no key, a key over plain http.
   */
  describe(spec: RequestSpec<unknown>): { method: string; url: string; headers: Record<string, string>; body?: unknown } {
    const headers = this.headersFor(spec);
    for (const [k, v] of Object.entries(headers)) headers[k] = redactHeader(k, v);
    const body = spec.rawBody !== undefined ? JSON.parse(spec.rawBody) : spec.body;
    return { method: spec.method, url: this.url(spec.path, spec.query), headers, ...(body === undefined ? {} : { body }) };
  }

  private headersFor(spec: RequestSpec<unknown>): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br', 'user-agent': this.opts.userAgent, ...(spec.headers ?? {}) };
    // the client alone decides credentials: exactly one on a keyed call, none on an anonymous
    // one, whatever the caller passed in
    for (const k of Object.keys(headers)) if (/^(authorization|x-api-key)$/i.test(k)) delete headers[k];
    const wantsKey = spec.auth === 'key' || (spec.auth === 'optional' && !!this.opts.apiKey);
    if (wantsKey) {
      if (!this.opts.apiKey) {
        throw new CliError('auth', 'this command needs an API key', { transport: { kind: 'no_key' } });
      }
      if (!this.keySafe) throw insecureKeyTransport(this.baseUrl);
      if (this.opts.credentialHeader === 'x-api-key') headers['x-api-key'] = this.opts.apiKey;
      else headers.authorization = `Bearer ${this.opts.apiKey}`;
    }
    if (spec.body !== undefined || spec.rawBody !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  private async once(spec: RequestSpec<unknown>, label: string) {
    const url = this.url(spec.path, spec.query);
    const headers = this.headersFor(spec);
    const body = spec.rawBody ?? (spec.body !== undefined ? JSON.stringify(spec.body) : undefined);
    const debug = this.debug;
    if (debug) {
      debug(`> ${spec.method} ${url}`);
      for (const [k, v] of Object.entries(headers)) debug(`> ${k}: ${redactHeader(k, v)}`);
      if (body !== undefined) debug(`> ${truncate(traceBody(body, this.opts.apiKey))}`);
    }
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const signals = [this.opts.signal, timeout, spec.signal].filter((x): x is AbortSignal => x !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : timeout;
    const t0 = Date.now();
    let status: number;
    let text: string;
    let resHeaders: Record<string, string>;
    let redirects: string[];
    const proxy = this.opts.proxy ?? NO_PROXY;
    const target = new URL(url);
    const route = routeFor(target, proxy);
    if ('proxy' in route) {
      const unusable = unusableProxy(route.proxy);
      if (unusable) throw usageError(unusable, `unset ${route.proxy.from} or point it at an HTTP proxy (http://host:port); NO_PROXY lists the hosts reached directly`);
    }
    try {
      const res = await this.send(target, route, spec.method, headers, body, signal);
      status = res.status;
      resHeaders = flattenHeaders(res.headers);
      text = res.text;
      redirects = res.redirects;
      if (debug) {
        if (hasProxy(proxy)) debug(`* ${describeRoute(route)}`);
        for (const hop of res.redirects) debug(`* redirected to ${hop}`);
      }
      if (status >= 300 && status < 400 && resHeaders.location !== undefined && !spec.allowErrorStatus) throw notFollowed(label, status, resHeaders.location, url);
    } catch (err) {
      if (this.opts.signal?.aborted) throw new CliError('interrupted', 'interrupted');
      if (err instanceof CliError) throw err;
      if (spec.signal?.aborted) throw abandoned(label);
      const { RedirectLoop, RedirectRefused, ResponseTooLarge } = await import('./transport.js');
      if (err instanceof ResponseTooLarge) throw tooLarge(label, this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      if (err instanceof RedirectRefused) throw redirectRefused(label, err, url, this.baseUrl);
      if (err instanceof RedirectLoop) throw redirectLoop(label, err, url);
      const timedOut = timeout.aborted || /timeout/i.test((err as Error)?.name ?? '') || /Timeout/.test((err as { code?: string })?.code ?? '');
      const code = (err as { code?: string })?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
      debug?.(`< network error after ${Date.now() - t0} ms: ${code ?? (err as Error).message}`);
      const certificate = code === undefined ? undefined : certificateProblem(code);
      if (certificate) throw certificateError(label, url, certificate, err, route);
      const handshake = handshakeError(label, url, code, err, route);
      if (handshake) throw handshake;
      throw new NetworkFailure({ kind: 'network', timedOut, code }, networkError(label, url, err, timedOut, code, this.opts.timeoutMs, route));
    }
    if (debug) {
      debug(`< ${status} (${Date.now() - t0} ms)`);
      for (const [k, v] of Object.entries(resHeaders)) debug(`< ${k}: ${redactHeader(k, v)}`);
      if (text) debug(`< ${truncate(traceBody(text, this.opts.apiKey))}`);
    }
    let parsed: unknown = undefined;
    let parseError = false;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parseError = true;
      }
    }
    return { status, headers: resHeaders, text, body: parsed, parseError, redirects };
  }

  private async send(url: URL, route: Route, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol} (http: or https: only)`);
    if (!this.transport) {
      const { Transport } = await import('./transport.js');
      this.transport ??= new Transport({
        timeoutMs: this.opts.timeoutMs,
        maxResponseBytes: this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        proxy: this.opts.proxy ?? NO_PROXY,
        maxRedirects: MAX_REDIRECTS,
      });
    }
    return this.transport.send(url, route, method, headers, body, signal);
  }

  private finish<T>(spec: RequestSpec<T>, res: { status: number; headers: Record<string, string>; text: string; body: unknown; parseError: boolean; redirects: string[] }, label: string): ApiResponse<T> {
    if (spec.allowErrorStatus) {
      // an answer returned as it is (`api`, `doctor --contract`) is read whole or in part by
      // what shows it (a finding cut at 80 characters): the key a server echoed, in any
      // spelling, is masked before anyone can cut through it
      const key = this.opts.apiKey;
      const headers = key ? (maskSecretsIn(res.headers, [key]) as Record<string, string>) : res.headers;
      if (!key || !(holdsSecret(res.text, key) || res.text.includes('\\'))) return { data: res.body as T, body: res.body, text: res.text, status: res.status, headers, redirects: res.redirects };
      const body = maskSecretsIn(res.body, [key]);
      return { data: body as T, body, text: maskSecrets(res.text, [key]), status: res.status, headers, redirects: res.redirects };
    }
    if (res.parseError || res.text === '') {
      throw new CliError('api', `malformed response from ${label}: the body is not JSON`, { transport: { kind: 'malformed', why: 'not_json' } });
    }
    let payload: unknown = res.body;
    if (spec.envelope !== false) {
      if (typeof res.body !== 'object' || res.body === null || !('data' in res.body)) {
        throw new CliError('api', `malformed response from ${label}: no "data" envelope`, { transport: { kind: 'malformed', why: 'no_envelope' } });
      }
      payload = (res.body as { data: unknown }).data;
    }
    if (spec.schema) {
      const result = spec.schema.safeParse(payload);
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = ['data', ...issue.path.map(String)].join('.');
        throw new CliError('api', `unexpected response from ${label}: ${spec.envelope === false ? where.replace(/^data/, 'body') : where}: ${issue.message}`, {
          transport: { kind: 'malformed', why: 'schema' },
        });
      }
      // the validated copy loses nothing: schemas are loose, so extra fields stay
      payload = result.data;
    }
    // the key a server echoed is masked before any renderer sees it (the output mask,
    // src/cmdkit/masked-io.ts, then covers what renderers print whole)
    // (walked only when the text may hold it: literally, or behind a JSON escape)
    const key = this.opts.apiKey;
    if (key && (holdsSecret(res.text, key) || res.text.includes('\\'))) payload = maskSecretsIn(payload, [key]);
    return { data: payload as T, body: res.body, text: res.text, status: res.status, headers: res.headers, redirects: res.redirects };
  }
}

/** The error of a request whose RequestSpec.signal fired: its caller no longer wants it. */
function abandoned(label: string): CliError {
  return new CliError('interrupted', `${label} abandoned`);
}

/** A retry's wait, cut short (as a rejection) when the request is abandoned. */
function untilAborted(wait: Promise<void>, signal: AbortSignal | undefined, label: string): Promise<void> {
  if (!signal) return wait;
  if (signal.aborted) return Promise.reject(abandoned(label));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abandoned(label));
    signal.addEventListener('abort', onAbort, { once: true });
    wait.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** A server that echoes the key back, in any field, must not make us print it. */
function scrubError(err: CliError, apiKey: string | undefined): CliError {
  const scrub = (text: string) => scrubSecrets(text, [apiKey]);
  const api = err.api && {
    ...err.api,
    error_code: err.api.error_code === undefined ? undefined : scrub(err.api.error_code),
    request_id: err.api.request_id === undefined ? undefined : scrub(err.api.request_id),
    description: err.api.description === undefined ? undefined : scrub(err.api.description),
    // string by string: a key written with escape sequences inside is still found
    body: err.api.body === undefined ? undefined : scrubValue(err.api.body, [apiKey]),
  };
  return new CliError(err.kind, scrub(err.message), { api });
}

function tooLarge(label: string, cap: number): CliError {
  return new CliError('api', `the response to ${label} is larger than ${formatBytes(cap)}: stopped reading it`, { transport: { kind: 'too_large', capBytes: cap } });
}

/** Maps a non-2xx response to a typed error; the only place statuses become kinds. */
export function errorFromResponse(status: number, body: unknown, headers: Record<string, string>, label: string, raw = false): CliError {
  const obj = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const retryAfterHeader = headers['retry-after'];
  const retryAfter = retryAfterSeconds(retryAfterHeader, Date.now());
  const errorCode = str(obj.error_code);
  const description = str(obj.description);
  const message = str(obj.error) ?? `${label} failed with HTTP ${status}`;
  const kind = kindForStatus(status);
  return new CliError(kind, message, {
    api: { status, error_code: errorCode, request_id: str(obj.request_id), description, body: body ?? { status }, retryAfter, request: failedRequest(label, raw) },
  });
}

/**
 * A path whose `.` or `..` segment a URL parser would resolve (`\\` counts as `/` there)
 * reaches another route than the one named: refused before anything is sent.
 */
function checkRoute(path: string): void {
  const [route] = path.split(/[?#]/, 1);
  if (route.split(/[/\\]/).some(isDotSegment)) throw usageError(`the path ${clean(route)} has a "." or ".." segment: it would reach another route than the one named`);
}

/**
 * Retry-After in seconds: RFC 9110 allows delay-seconds or an HTTP date; a date is counted
 * from now (a date already past is 0). The caller caps the wait (the policy's time budget).
 */
export function retryAfterSeconds(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // an IMF-fixdate, or the obsolete forms Date.parse also reads; never a bare number
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The label is `METHOD /path`: the request, and the operation it is for. */
function failedRequest(label: string, typed: boolean): FailedRequest {
  const [method, path = ''] = label.split(' ');
  return { method, path, operation: operationOf(method, path), typed };
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * A --debug line: the key masked (even split by escape sequences), and every control or
 * bidi character shown as a visible escape.
 */
function traceLine(line: string, apiKey: string | undefined): string {
  return visible(scrubSecrets(line, [apiKey]));
}

/** A body in a --debug trace: JSON with C1 and bidi escaped and the key masked, even when written with escapes. */
function traceBody(text: string, apiKey: string | undefined): string {
  try {
    return safeJsonText(text, [apiKey]);
  } catch {
    // not JSON: masked here all the same, since the trace cuts it at 2000 characters
    return scrubSecrets(text, [apiKey]);
  }
}

function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}

function truncate(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more bytes)` : text;
}
