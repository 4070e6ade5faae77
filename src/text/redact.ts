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

// A server may echo the key in another spelling than the one sent: another case, without
// its `svc_` prefix, or with characters a reader does not see between its characters:
// escape sequences (7- and 8-bit CSI, OSC), controls, and every character Unicode says
// prints as nothing (default-ignorable and format characters: zero-width space and
// joiners, word joiner, soft hyphen, BOM, bidi controls, variation selectors, tags, ...)
// or as a line break. Each of these still reads as the key, so each is matched.
const ESCAPES = String.raw`\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]`;
const INVISIBLE = String.raw`(?:${ESCAPES}|[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\u2028\u2029])*`;
// The same, for bytes read one latin-1 character each (src/cmdkit/masked-io.ts): an invisible
// character arrives as its UTF-8 sequence, so any multi-byte sequence counts as one (a key
// with a visible non-ASCII letter between each of its characters is masked too: harmless).
const INVISIBLE_BYTES = String.raw`(?:${ESCAPES}|[\x00-\x1f\x7f-\x9f\xad]|[\xc2-\xf4][\x80-\xbf]{1,3})*`;
/** A key's prefix (`svc_`, `app_`): an echo without it is still the key. */
const PREFIX_RE = /^[A-Za-z]{2,8}_/;
const patterns = new Map<string, RegExp>();

/** How a secret may be spelled, in the pattern syntax of its mode. */
function spelled(secret: string, mode: 'text' | 'bytes'): string {
  const between = mode === 'text' ? INVISIBLE : INVISIBLE_BYTES;
  const chars = (text: string) =>
    [...text].map((ch) => (/[A-Za-z0-9]/.test(ch) ? ch : mode === 'text' ? `\\u{${ch.codePointAt(0)!.toString(16)}}` : ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))).join(between);
  const prefix = PREFIX_RE.exec(secret)?.[0];
  const body = prefix ? secret.slice(prefix.length) : secret;
  // the prefix is optional only when what is left would still be masked on its own
  if (!prefix || body.length < MIN_SECRET_LENGTH) return chars(secret);
  // (captured: the mask of an echo without it has none either)
  return `(${chars(prefix)}${between})?${chars(body)}`;
}

function secretPattern(secret: string, mode: 'text' | 'bytes' = 'text'): RegExp {
  const id = `${mode}\u0000${secret}`;
  let re = patterns.get(id);
  if (!re) {
    re = new RegExp(spelled(secret, mode), mode === 'text' ? 'giu' : 'gi');
    patterns.set(id, re);
  }
  re.lastIndex = 0;
  return re;
}

/** Whether the text holds the secret in any spelling (case, no prefix, invisible characters inside). */
export function holdsSecret(text: string, secret: string): boolean {
  return secret.length >= MIN_SECRET_LENGTH && secretPattern(secret).test(text);
}

/** The mask of what matched: the secret's, without its prefix when the echo had none. */
function maskOf(secret: string): (match: string, prefix?: string) => string {
  const mask = maskKey(secret);
  return (_match, prefix) => (prefix === undefined && PREFIX_RE.test(secret) ? mask.slice(mask.indexOf('…')) : mask);
}

/**
 * `text` read as latin-1 (one character per byte) with every secret masked; each `…` of a
 * mask is the only character above U+00FF in the result.
 */
export function maskSecretBytes(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) out = out.replace(secretPattern(secret, 'bytes'), maskOf(secret));
  return out;
}

/** Replaces every occurrence of the given secrets by its mask. */
export function maskSecrets(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= MIN_SECRET_LENGTH) out = out.replace(secretPattern(secret), maskOf(secret));
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
