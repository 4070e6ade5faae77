/** A hostname as WHATWG URL normalises it (`127.1` is `127.0.0.1`, IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  // ::1, and 127.x.y.z written as an IPv4-mapped IPv6 address (::ffff:7fxx:xxxx)
  return host === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}
