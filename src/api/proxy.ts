// Which proxy a request goes through, from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case,
// the lowercase one first, as curl reads them). undici's EnvHttpProxyAgent makes the choice
// for the requests themselves (src/api/transport.ts); this module says the same thing in
// words, for --debug and `doctor`, without loading undici. Its NO_PROXY rules are undici's:
// `*` alone bypasses every host, an entry matches its host and every subdomain (a leading
// `.` or `*.` is ignored), and `host:port` only that port.
import { isLoopbackHost } from './loopback.js';

export interface ProxySettings {
  http?: { url: string; from: string };
  https?: { url: string; from: string };
  noProxy: string;
}

function pick(env: NodeJS.ProcessEnv, names: string[]): { url: string; from: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    // `host:port` without a scheme is http://, as curl, gh and pip read it (a URL parser
    // would take `localhost:` for the scheme)
    if (value) return { url: /^[a-z][a-z\d+.-]*:\/\//i.test(value) ? value : `http://${value}`, from: name };
  }
  return undefined;
}

/** The proxy schemes the transport speaks. */
export const PROXY_SCHEMES = ['http:', 'https:'];

/**
 * Why a proxy setting cannot be used (a SOCKS proxy, another scheme, not a URL), in words
 * naming what is supported; undefined for one that can.
 */
export function unusableProxy(proxy: { url: string; from: string }): string | undefined {
  const scheme = /^([a-z][a-z\d+.-]*):\/\//i.exec(proxy.url)?.[1].toLowerCase();
  const supported = 'carrental goes through http:// and https:// proxies only';
  if (scheme && /^socks/.test(scheme)) return `${proxy.from} names a SOCKS proxy (${scheme}://), and ${supported}`;
  if (!URL.canParse(proxy.url)) return `${proxy.from} is not a proxy URL (${supported}; \`host:port\` means http://host:port)`;
  if (!PROXY_SCHEMES.includes(new URL(proxy.url).protocol)) return `${proxy.from} names a ${scheme}:// proxy, and ${supported}`;
  return undefined;
}

export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const http = pick(env, ['http_proxy', 'HTTP_PROXY']);
  // like undici: an https request without an https proxy goes through the http one
  const https = pick(env, ['https_proxy', 'HTTPS_PROXY']) ?? http;
  return { http, https, noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

export function hasProxy(settings: ProxySettings): boolean {
  return !!(settings.http || settings.https);
}

/** Why a request goes direct, or the proxy it goes through. */
export type Route = { proxy: { url: string; from: string } } | { direct: 'no proxy set' | 'loopback' | 'NO_PROXY' };

export function routeFor(target: URL, settings: ProxySettings): Route {
  const proxy = target.protocol === 'https:' ? settings.https : settings.http;
  if (!proxy) return { direct: 'no proxy set' };
  // a proxy on another machine cannot reach this one's loopback, and the key may travel
  // over plain http only to loopback: such requests never go through a proxy
  if (isLoopbackHost(target.hostname)) return { direct: 'loopback' };
  if (noProxyMatches(target, settings.noProxy)) return { direct: 'NO_PROXY' };
  return { proxy };
}

function noProxyMatches(target: URL, noProxy: string): boolean {
  if (noProxy === '*') return true;
  const hostname = target.hostname.toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1] : entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number(parsed[2]) !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

/** A proxy URL fit to print: its password (and a user name alone) masked. */
export function maskProxy(proxyUrl: string): string {
  if (!URL.canParse(proxyUrl)) return '(not a URL)';
  const url = new URL(proxyUrl);
  if (url.password) url.password = '***';
  else if (url.username) url.username = '***';
  return url.toString().replace(/\/$/, '');
}

/** One line for --debug and doctor: `through proxy http://***@proxy:3128 (HTTPS_PROXY)`. */
export function describeRoute(route: Route): string {
  if ('proxy' in route) return `through proxy ${maskProxy(route.proxy.url)} (${route.proxy.from})`;
  return route.direct === 'no proxy set' ? 'direct' : route.direct === 'loopback' ? 'direct (a loopback address never goes through a proxy)' : 'direct (NO_PROXY)';
}
