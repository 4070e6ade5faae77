// One spelling per API address, for the journal's identity of a command: `HTTP://Host/v1/`,
// `http://host:80/v1` and `http://host/x/../v1` are one API, and so are `localhost`,
// `127.0.0.1`, `127.1` and `[::1]` on the same port (all this machine's loopback). Two
// spellings of one API must never get two idempotency keys: that is a second booking.

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** localhost (any case, with or without the root dot), 127.0.0.0/8, ::1 and ::ffff:127.x. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(host)) return true;
  return host === '[::1]' || /^\[::ffff:(127\.\d+\.\d+\.\d+|7f[0-9a-f]{2}:[0-9a-f]{1,4})\]$/.test(host);
}

/**
 * The canonical form of a base URL: scheme and host lower-cased (WHATWG parsing also turns
 * `127.1` into `127.0.0.1`), the scheme's default port dropped, `.`/`..` segments (also
 * percent-encoded) resolved, trailing slashes removed, and every loopback spelling written
 * `localhost`. A text that is not a URL is only stripped of trailing slashes.
 */
export function canonicalBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
  const port = url.port === '' || url.port === DEFAULT_PORTS[url.protocol] ? '' : `:${url.port}`;
  const host = isLoopbackHost(url.hostname) ? 'localhost' : url.hostname.replace(/\.$/, '');
  const userinfo = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${userinfo}${host}${port}${path}${url.search}`;
}
