// URIs as the spec types them: RFC 3986, not WHATWG URL parsing.
import { describe, expect, it } from 'vitest';
import { isUri } from '../../src/api/uri.js';
import { ManualAction } from '../../src/api/schemas.js';

describe('isUri (RFC 3986 URI)', () => {
  it.each([
    // RFC 3986 section 1.1.2
    'ftp://ftp.is.co.za/rfc/rfc1808.txt',
    'http://www.ietf.org/rfc/rfc2396.txt',
    'ldap://[2001:db8::7]/c=GB?objectClass?one',
    'mailto:John.Doe@example.com',
    'news:comp.infosystems.www.servers.unix',
    'tel:+1-816-555-1212',
    'telnet://192.0.2.16:80/',
    'urn:oasis:names:specification:docbook:dtd:xml:4.1.2',
    // allowed by the RFC, refused by WHATWG URL parsing
    'https://cdn.example.123/p.jpg',
    'https://cdn.example.com:70000/p.jpg',
    'https://app.example.com/trips/x?intent=pay&agent_flow_id=0c1d#top',
    'http://user:pa%20ss@host.example/a%2Fb',
    'http://[v7.fe80::a+en1]/',
    'file:///etc/hosts',
    'http:',
  ])('accepts %s', (uri) => {
    expect(isUri(uri)).toBe(true);
  });

  it.each([
    ['a relative reference', 'car-1.jpg'],
    ['a network-path reference', '//example.com/a'],
    ['the empty string', ''],
    ['a space', 'https://exa mple.com/'],
    ['a backslash', 'https://example.com\\a'],
    ['a bad percent escape', 'https://example.com/%zz'],
    ['a bad IPv6 literal', 'http://[::g]/'],
    ['a scheme starting with a digit', '1http://example.com'],
    ['a non-digit port', 'https://example.com:80a/'],
    ['a control character', 'https://example.com/\u001b[31m'],
    ['a non-ASCII character', 'https://exämple.com/'],
  ])('refuses %s', (_why, uri) => {
    expect(isUri(uri)).toBe(false);
  });

  it("is what a ManualAction's url is checked with", () => {
    const action = { action: 'add_payment_card', status: 'requires_user_action', agent_flow_id: '0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5' };
    expect(ManualAction.safeParse({ ...action, url: 'https://app.example.123:70000/billing/cards' }).success).toBe(true);
    const refused = ManualAction.safeParse({ ...action, url: 'billing/cards' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0].message).toBe('expected a URI (RFC 3986)');
  });
});
