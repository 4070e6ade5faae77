// The words for what the transport reports: a network failure, a certificate that cannot be
// trusted, a redirect that is refused or not followed. Split from client.ts, which sends
// the requests; these only turn what went wrong into a CliError.
import { CliError } from '../errors.js';
import { clean } from '../text/sanitize.js';
import type { Failure } from './client.js';
import { describeRoute, hasProxy, maskProxy, type Route } from './proxy.js';

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
    return new CliError('unavailable', `${label} timed out after ${+(timeoutMs / 1000).toFixed(2)} s`, {
      hint: 'the outcome is unknown; rerunning the same command is safe (raise --timeout if the API is slow)',
      cause: err,
    });
  }
  const reason =
    code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' ? 'connection closed before the answer' : (err as Error)?.message || String(err);
  if ('proxy' in route) {
    // the connection goes to the proxy: a refusal or an unknown host is the proxy's
    const tunnel = /Proxy response \((\d+)\)/.exec((err as Error)?.message ?? '');
    const what = tunnel ? `the proxy ${maskProxy(route.proxy.url)} (${route.proxy.from}) refused to open a tunnel to ${origin} (HTTP ${tunnel[1]})` : `could not reach ${origin} through the proxy ${maskProxy(route.proxy.url)} (${route.proxy.from}) (${label}): ${reason}`;
    return new CliError('unavailable', tunnel ? `${what} (${label})` : what, {
      hint: tunnel?.[1] === '407'
        ? 'the proxy wants credentials: put them in its URL (http://user:password@proxy:port)'
        : `check ${route.proxy.from}, or list the API's host in NO_PROXY to go direct; rerunning is safe`,
      cause: err,
    });
  }
  return new CliError('unavailable', `could not reach ${origin} (${label}): ${reason}`, {
    hint: 'check the base URL (`carrental config get base_url`) or run `carrental doctor`; rerunning is safe',
    cause: err,
  });
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
  let detail = problem;
  let hint = "if the API uses a private CA, trust it: NODE_EXTRA_CA_CERTS=/path/to/ca.pem (a PEM file, read when node starts); never turn verification off";
  if (/expired|not valid yet/.test(problem)) {
    // trusting another CA cannot help a certificate outside its dates
    hint = "the server must renew its certificate (or this machine's clock is wrong: check `date`); never turn verification off";
  } else if (/another host/.test(problem)) {
    const names = certificateNames(err);
    if (names) detail = `${problem} (it names ${names})`;
    hint = 'put a host name the certificate names in the base URL (`carrental config get base_url`); never turn verification off';
  } else if (/revoked/.test(problem)) {
    hint = 'the server must replace its certificate; never turn verification off';
  }
  return tagged(certificateErrors, new CliError('api', `could not verify the TLS certificate of ${whose} (${label}): ${detail}`, { hint, cause: err }));
}

/** The names a refused certificate is for ("DNS:a, IP Address:b" → "a, b"), when node's error carries them. */
function certificateNames(err: unknown): string | undefined {
  for (let e = err as { cert?: { subjectaltname?: string }; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    const san = e.cert?.subjectaltname;
    if (typeof san === 'string' && san) return san.split(/,\s*/).map((n) => n.replace(/^[^:]+:/, '')).join(', ');
  }
  return undefined;
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

const redirectErrors = new WeakSet<CliError>();
const certificateErrors = new WeakSet<CliError>();
/** A refused or unfollowed redirect: its hint holds the base URL to configure (doctor shows it). */
export function isRedirectError(err: unknown): boolean {
  return err instanceof CliError && redirectErrors.has(err);
}
/** The connection stopped at the server's certificate: the request was never sent. */
export function isCertificateError(err: unknown): boolean {
  return err instanceof CliError && certificateErrors.has(err);
}
function tagged(set: WeakSet<CliError>, err: CliError): CliError {
  set.add(err);
  return err;
}

/** A redirect the policy refused (src/api/transport.ts): named, with why, and what to configure. */
export function redirectRefused(label: string, err: { status: number; location: string; reason: 'other-origin' | 'method' }, url: string, baseUrl: string): CliError {
  const location = clean(err.location);
  const base = URL.canParse(err.location) ? movedBaseUrl(baseUrl, url, err.location) : undefined;
  const configure = base ? `; if the API moved, use its new base URL: \`carrental config set base_url ${clean(base)}\` (or --base-url)` : '';
  if (err.reason === 'other-origin') {
    return tagged(redirectErrors, new CliError('api', `${label} was redirected (HTTP ${err.status}) to ${location}: carrental follows a redirect only within ${new URL(url).origin}, so the API key never goes to another origin`, {
      hint: `check the base URL${configure}`,
    }));
  }
  return tagged(redirectErrors, new CliError('api', `${label} was redirected (HTTP ${err.status}) to ${location}: a ${err.status} is followed for GET only (it would turn the ${label.split(' ')[0]} into a GET)`, {
    hint: `check the base URL${configure}`,
  }));
}

/** A 3xx with a Location that reached us: more redirects than the transport follows, or a kind it does not (300). */
export function notFollowed(label: string, status: number, location: string, url: string): CliError {
  const why = status === 300 ? 'carrental does not choose among multiple choices' : `more than ${MAX_REDIRECTS} redirects in a row`;
  return tagged(redirectErrors, new CliError('api', `${label} was redirected (HTTP ${status}) to ${clean(location)}: ${why}`, {
    hint: `check the base URL (${new URL(url).origin}); \`carrental doctor\` shows where it leads`,
  }));
}
