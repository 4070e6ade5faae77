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
    const value = env[name];
    if (value) return { url: value, from: name };
  }
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
