// What the transport reports, as CliErrors: a network failure, a certificate that cannot be
// trusted, a redirect that is refused or not followed. Split from client.ts, which sends
// the requests; these only turn what went wrong into an error line and its facts (what to
// do about it is the front end's to say: src/cmdkit/hints.ts).
import { CliError, type TransportFailure } from '../errors.js';
import { clean } from '../text/sanitize.js';
import type { Failure } from './client.js';
import { maskProxy, type Route } from './proxy.js';

/** Redirect hops followed (same origin only; see src/api/transport.ts). */
export const MAX_REDIRECTS = 5;

export class NetworkFailure extends Error {
  constructor(
    readonly failure: Failure,
    readonly cliError: CliError,
  ) {
    super(cliError.message);
  }
}

export function networkError(label: string, url: string, err: unknown, timedOut: boolean, code: string | undefined, timeoutMs: number, route: Route): CliError {
  const { origin } = new URL(url);
  if (timedOut) {
    return new CliError('unavailable', `${label} timed out after ${+(timeoutMs / 1000).toFixed(2)} s`, { transport: { kind: 'timeout' }, cause: err });
  }
  const reason =
    code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' ? 'connection closed before the answer' : (err as Error)?.message || String(err);
  if ('proxy' in route) {
    // the connection goes to the proxy: a refusal or an unknown host is the proxy's
    const tunnel = /Proxy response \((\d+)\)/.exec((err as Error)?.message ?? '');
    const what = tunnel ? `the proxy ${maskProxy(route.proxy.url)} (${route.proxy.from}) refused to open a tunnel to ${origin} (HTTP ${tunnel[1]})` : `could not reach ${origin} through the proxy ${maskProxy(route.proxy.url)} (${route.proxy.from}) (${label}): ${reason}`;
    return new CliError('unavailable', tunnel ? `${what} (${label})` : what, {
      transport: { kind: 'proxy', setting: route.proxy.from, ...(tunnel ? { tunnelStatus: Number(tunnel[1]) } : {}) },
      cause: err,
    });
  }
  return new CliError('unavailable', `could not reach ${origin} (${label}): ${reason}`, { transport: { kind: 'unreachable' }, cause: err });
}

/** node's TLS error codes, in words; undefined for an error that is not about the certificate. */
export function certificateProblem(code: string): string | undefined {
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT') return 'the certificate is self-signed';
  if (code === 'SELF_SIGNED_CERT_IN_CHAIN') return 'the certificate is issued by a CA this machine does not trust (a self-signed root)';
  if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' || code === 'UNABLE_TO_GET_ISSUER_CERT') return 'the certificate is issued by a CA this machine does not know';
  if (code === 'CERT_HAS_EXPIRED') return 'the certificate has expired';
  if (code === 'CERT_NOT_YET_VALID') return 'the certificate is not valid yet';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'the certificate is for another host name';
  if (code === 'CERT_REVOKED') return 'the certificate has been revoked';
  if (code === 'CERT_SIGNATURE_FAILURE' || code === 'CERT_UNTRUSTED' || code === 'CERT_REJECTED' || code === 'INVALID_CA') return 'the certificate cannot be trusted';
  return undefined;
}

/**
 * Nothing was sent: the connection stopped at the certificate. Not "unavailable" (exit 6,
 * "rerunning is safe"): a rerun fails the same way until the certificate or the trust changes.
 */
export function certificateError(label: string, url: string, problem: string, err: unknown, route: Route): CliError {
  const { origin } = new URL(url);
  // Through an https proxy there are two TLS handshakes, and node's error does not say
  // which one failed: name both rather than blame the API for the proxy's certificate.
  const viaTlsProxy = 'proxy' in route && route.proxy.url.startsWith('https:');
  const whose = viaTlsProxy ? `${origin} or of the proxy ${maskProxy(route.proxy.url)} (${route.proxy.from})` : origin;
  const reason = certificateReason(problem);
  const names = reason === 'wrong_host' ? certificateNames(err) : undefined;
  const detail = names ? `${problem} (it names ${names})` : problem;
  return new CliError('api', `could not verify the TLS certificate of ${whose} (${label}): ${detail}`, { transport: { kind: 'tls', reason }, cause: err });
}

/** What a certificateProblem says, as a fact the front end words advice from. */
function certificateReason(problem: string): Extract<TransportFailure, { kind: 'tls' }>['reason'] {
  if (/expired/.test(problem)) return 'expired';
  if (/not valid yet/.test(problem)) return 'not_yet_valid';
  if (/another host/.test(problem)) return 'wrong_host';
  if (/revoked/.test(problem)) return 'revoked';
  return 'untrusted';
}

/** The names a refused certificate is for ("DNS:a, IP Address:b" → "a, b"), when node's error carries them. */
function certificateNames(err: unknown): string | undefined {
  for (let e = err as { cert?: { subjectaltname?: string }; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    const san = e.cert?.subjectaltname;
    if (typeof san === 'string' && san) return san.split(/,\s*/).map((n) => n.replace(/^[^:]+:/, '')).join(', ');
  }
  return undefined;
}

/**
 * A TLS handshake that failed for another reason than the certificate, in words (node's
 * message is OpenSSL's: `...:SSL routines:ssl3_read_bytes:tlsv1 alert no application
 * protocol:...`); undefined for an error that is not one. Nothing was sent, and a rerun
 * fails the same way: not "unavailable".
 */
export function handshakeError(label: string, url: string, code: string | undefined, err: unknown, route: Route): CliError | undefined {
  if (typeof code !== 'string' || !code.startsWith('ERR_SSL_')) return undefined;
  const target = new URL(url);
  const viaTlsProxy = 'proxy' in route && route.proxy.url.startsWith('https:');
  const whose = viaTlsProxy ? `${target.origin} (or the proxy ${maskProxy(route.proxy.url)}, ${route.proxy.from})` : target.origin;
  // the server offered no protocol in common with our `http/1.1` (ALPN): it speaks h2 alone
  if (code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL') {
    return new CliError('api', `${whose} speaks HTTP/2 only, and carrental speaks HTTP/1.1 (${label})`, {
      hint: 'ask the API’s operators to accept HTTP/1.1 too (curl --http1.1 shows the same refusal), or put a proxy that speaks both in front of it',
      cause: err,
    });
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' || code === 'ERR_SSL_HTTP_REQUEST') {
    return new CliError('api', `${whose} does not speak TLS on port ${target.port || 443} (${label})`, {
      hint: 'if the API is plain http on that port, its base URL starts with http://',
      cause: err,
    });
  }
  const words = code.replace(/^ERR_SSL_/, '').replace(/_/g, ' ').toLowerCase();
  return new CliError('api', `the TLS handshake with ${whose} failed (${label}): ${words}`, {
    hint: 'the server and this machine share no TLS version or cipher; `curl -v` against the same URL shows the handshake',
    cause: err,
  });
}

/** A redirect back to a URL the request has been at: named once, with where it went round. */
export function redirectLoop(label: string, err: { status: number; from: string; location: string }, url: string): CliError {
  const where = err.from === err.location ? `${clean(err.from)} redirects to itself` : `${clean(err.from)} sends it back to ${clean(err.location)}`;
  return new CliError('api', `${label} was redirected in a loop: ${where} (HTTP ${err.status})`, {
    transport: { kind: 'redirect', why: 'too_many', location: err.location, origin: new URL(url).origin },
  });
}

/** The base URL to configure when `path` (under `base`) answers from `location`; undefined when the paths do not line up. */
export function movedBaseUrl(base: string, requested: string, location: string): string | undefined {
  const tail = requested.slice(base.length);
  const to = new URL(location);
  to.search = '';
  to.hash = '';
  const path = to.pathname;
  const prefix = tail.split('?')[0];
  if (!requested.startsWith(base) || !path.endsWith(prefix)) return undefined;
  to.pathname = path.slice(0, path.length - prefix.length);
  return to.href.replace(/\/+$/, '');
}

/** A refused or unfollowed redirect: its facts hold the base URL to configure (doctor shows it). */
export function isRedirectError(err: unknown): boolean {
  return err instanceof CliError && err.transport?.kind === 'redirect';
}
/** The connection stopped at the server's certificate: the request was never sent. */
export function isCertificateError(err: unknown): boolean {
  return err instanceof CliError && err.transport?.kind === 'tls';
}

/** A redirect the policy refused (src/api/transport.ts): named, with why, and what to configure. */
export function redirectRefused(label: string, err: { status: number; location: string; reason: 'other-origin' | 'method' }, url: string, baseUrl: string): CliError {
  const location = clean(err.location);
  const origin = new URL(url).origin;
  const base = URL.canParse(err.location) ? movedBaseUrl(baseUrl, url, err.location) : undefined;
  const transport = { kind: 'redirect', location: err.location, origin, ...(base ? { baseUrlToConfigure: base } : {}) } as const;
  if (err.reason === 'other-origin') {
    return new CliError('api', `${label} was redirected (HTTP ${err.status}) to ${location}: carrental follows a redirect only within ${origin}, so the API key never goes to another origin`, {
      transport: { ...transport, why: 'other_origin' },
    });
  }
  return new CliError('api', `${label} was redirected (HTTP ${err.status}) to ${location}: a ${err.status} is followed for GET only (it would turn the ${label.split(' ')[0]} into a GET)`, {
    transport: { ...transport, why: 'method' },
  });
}

/** A 3xx with a Location that reached us: more redirects than the transport follows, or a kind it does not (300). */
export function notFollowed(label: string, status: number, location: string, url: string): CliError {
  const why = status === 300 ? 'carrental does not choose among multiple choices' : `more than ${MAX_REDIRECTS} redirects in a row`;
  return new CliError('api', `${label} was redirected (HTTP ${status}) to ${clean(location)}: ${why}`, {
    transport: { kind: 'redirect', why: status === 300 ? 'multiple_choices' : 'too_many', location, origin: new URL(url).origin },
  });
}
