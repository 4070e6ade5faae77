// The key is a secret: the most of it ever shown is `svc_…abcd`. Free of imports so the
// command tree, the config store and the client can all use it without loading anything.

/** `svc_…abcd`: the most of a key that is ever shown. */
export function maskKey(key: string | undefined): string {
  if (!key) return '';
  return `${key.startsWith('svc_') ? 'svc_' : ''}…${key.slice(-4)}`;
}

/** A header value as --debug prints it: credentials masked, everything else as is. */
export function redactHeader(name: string, value: string): string {
  if (/^(authorization|proxy-authorization)$/i.test(name)) {
    return value.replace(/^(\w+\s+)?(.*)$/, (_m, scheme = '', key: string) => `${scheme}${maskKey(key)}`);
  }
  if (/^(x-api-key|cookie|set-cookie)$/i.test(name)) return maskKey(value);
  return value;
}

/** A key-shaped token anywhere in a text (an argument, an echoed request). */
export const KEY_TOKEN_RE = /svc_[A-Za-z0-9_-]{4,}/g;

/** Shorter secrets are not scrubbed: too many ordinary words would match. */
export const MIN_SECRET_LENGTH = 8;

// What a terminal does not show: escape sequences (7- and 8-bit CSI, OSC), control, bidi
// and separator characters. A server that puts some inside an echoed key gets a text that
// prints as the key once they are stripped, so a secret is matched with any of them
// between its characters.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /(?:\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069])*/.source;
const patterns = new Map<string, RegExp>();

function secretPattern(secret: string): RegExp {
  let re = patterns.get(secret);
  if (!re) {
    re = new RegExp([...secret].map((ch) => ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join(INVISIBLE), 'g');
    patterns.set(secret, re);
  }
  re.lastIndex = 0;
  return re;
}

/** Whether the text holds the secret, even with invisible characters inside it. */
export function holdsSecret(text: string, secret: string): boolean {
  return secret.length >= MIN_SECRET_LENGTH && secretPattern(secret).test(text);
}

/** Replaces every occurrence of the given secrets by its mask. */
export function maskSecrets(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= MIN_SECRET_LENGTH) out = out.replace(secretPattern(secret), maskKey(secret));
  return out;
}

/** Replaces every occurrence of the given secrets, and anything key-shaped, by its mask. */
export function scrubSecrets(text: string, secrets: Array<string | undefined> = []): string {
  return maskSecrets(text, secrets).replace(KEY_TOKEN_RE, (token) => maskKey(token));
}

/**
 * A parsed value with the secrets masked in every string (keys included): what a server
 * sent is masked before any renderer can cut, wrap or pad it (a table cell truncated
 * mid-key would escape a mask applied to the printed text).
 */
export function maskSecretsIn(value: unknown, secrets: Array<string | undefined>): unknown {
  if (typeof value === 'string') return maskSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((v) => maskSecretsIn(v, secrets));
  // plain objects only: anything else a schema made (a Date) is not a server string
  if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [maskSecrets(k, secrets), maskSecretsIn(v, secrets)]));
  }
  return value;
}
