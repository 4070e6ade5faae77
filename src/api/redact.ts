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

/** Replaces every occurrence of the given secrets, and anything key-shaped, by its mask. */
export function scrubSecrets(text: string, secrets: Array<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 8) out = out.split(secret).join(maskKey(secret));
  return out.replace(KEY_TOKEN_RE, (token) => maskKey(token));
}
