// JSON text that is safe to print: still valid JSON meaning exactly the same value, but
// with nothing a terminal or a reader could be fooled by, and without the active key.
//
// - C1 controls (U+0080-U+009F; U+009B is an 8-bit CSI), the bidi controls, the line and
//   paragraph separators and DEL become \uXXXX escapes. Outside strings JSON text is plain
//   ASCII, so a character-level replace only ever touches string contents. (C0 controls
//   are already escaped in any valid JSON text.)
// - Every occurrence of a secret is replaced by its mask. A secret written with JSON
//   escapes (`svc\u005f...`) would survive a text replace, so the result is parsed once
//   more and, if any string still holds a secret, re-serialised from the scrubbed value.
import { holdsSecret as textHoldsSecret, KEY_TOKEN_RE, maskKey, maskSecrets, MIN_SECRET_LENGTH, scrubSecrets } from './redact.js';

// eslint-disable-next-line no-control-regex
const UNSAFE_RE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE_RE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function holdsSecret(value: unknown, secrets: string[]): boolean {
  if (typeof value === 'string') return secrets.some((s) => textHoldsSecret(value, s));
  if (Array.isArray(value)) return value.some((v) => holdsSecret(v, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => holdsSecret(k, secrets) || holdsSecret(v, secrets));
  }
  return false;
}

/** A parsed JSON value with every string (keys too) scrubbed of the secrets and of key-shaped tokens. */
export function scrubValue(value: unknown, secrets: Array<string | undefined>): unknown {
  if (typeof value === 'string') return scrubSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrubSecrets(k, secrets), scrubValue(v, secrets)]));
  }
  return value;
}

/**
 * `text` must be valid JSON (the server's bytes as received, or JSON.stringify output).
 * Returns it with unsafe characters escaped and the secrets masked; byte-for-byte the
 * same when there was nothing to escape or mask.
 */
/** The secrets worth looking for: shorter ones would mask ordinary words. */
const liveSecrets = (secrets: Array<string | undefined>) => secrets.filter((s): s is string => !!s && s.length >= MIN_SECRET_LENGTH);

export function safeJsonText(text: string, secrets: Array<string | undefined> = []): string {
  const live = liveSecrets(secrets);
  if (!live.length) return escapeUnsafe(text);
  // the secrets first, then anything key-shaped: masking a prefix of an escaped secret
  // as a key-shaped token first would leave the rest of it unrecognisable
  let out = maskSecrets(text, live);
  // Only an escape can hide a secret from the text replace: in a text without a backslash
  // every string is its own bytes, so the parse (a second one of every page of
  // `cars --all`) is needed only when there is one.
  if (out.includes('\\')) {
    const value: unknown = JSON.parse(out);
    if (holdsSecret(value, live)) out = JSON.stringify(scrubValue(value, live), null, 2);
  }
  return escapeUnsafe(out.replace(KEY_TOKEN_RE, (token) => maskKey(token)));
}

/**
 * A run of comma-separated JSON values (the cars of a page of `cars --all`, streamed into
 * one array), made safe as safeJsonText makes a whole text. Without a secret to look for,
 * the character-level escape needs no brackets around it, which spares copying the run.
 */
export function safeJsonItems(items: string, secrets: Array<string | undefined> = []): string {
  if (!liveSecrets(secrets).length) return escapeUnsafe(items);
  return safeJsonText(`[${items}]`, secrets).slice(1, -1);
}
