// "URI" as the spec types it: RFC 3986, section 3 (`URI = scheme ":" hier-part [ "?" query ]
// [ "#" fragment ]`), the grammar JSON Schema's `format: uri` names. Not WHATWG URL parsing:
// that refuses what the RFC allows (a numeric last host label such as `cdn.example.123`, a
// port above 65535) and accepts what it forbids (spaces, backslashes). Each piece below is
// the RFC's rule of the same name.
import { isIPv6 } from 'node:net';

const unreserved = "A-Za-z0-9\\-._~";
const subDelims = "!$&'()*+,;=";
const pct = '%[0-9A-Fa-f]{2}';
const pchar = `(?:[${unreserved}${subDelims}:@]|${pct})`;
const segment = `${pchar}*`;
const segmentNz = `${pchar}+`;
const userinfo = `(?:[${unreserved}${subDelims}:]|${pct})*`;
const regName = `(?:[${unreserved}${subDelims}]|${pct})*`;
// IP-literal = "[" ( IPv6address / IPvFuture ) "]"; the IPv6 part is checked by node:net below
const ipLiteral = `\\[(?<ip>[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\\.[${unreserved}${subDelims}:]+)\\]`;
const authority = `(?:${userinfo}@)?(?:${ipLiteral}|${regName})(?::[0-9]*)?`;
const hierPart = `(?://${authority}(?:/${segment})*|/(?:${segmentNz}(?:/${segment})*)?|${segmentNz}(?:/${segment})*|)`;
const queryOrFragment = `(?:${pchar}|[/?])*`;

const URI_RE = new RegExp(`^[A-Za-z][A-Za-z0-9+\\-.]*:${hierPart}(?:\\?${queryOrFragment})?(?:#${queryOrFragment})?$`);

/** True when `value` is a URI per RFC 3986 (absolute: it has a scheme). */
export function isUri(value: string): boolean {
  const m = URI_RE.exec(value);
  if (!m) return false;
  const ip = m.groups?.ip;
  return ip === undefined || /^[vV]/.test(ip) || isIPv6(ip);
}
