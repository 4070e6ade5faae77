// node:crypto for the journal, loaded on first use. The commands that talk to the API share
// one chunk (docs/performance.md, item 2), and every ES import in it loads when any
// of them runs: an `import ... from 'node:crypto'` here made every read command load crypto
// and, through the module namespace node builds for an ES import of a builtin, webcrypto
// (~2 ms of `cars --json` on Node 22). Only a create or a cancel hashes or draws a key.
// test/e2e/startup.e2e.test.ts pins that `cars --json` does not load it.
const crypto = () => process.getBuiltinModule('node:crypto');

/** sha256 of `text` (UTF-8), in hex. */
export const sha256Hex = (text: string): string => crypto().createHash('sha256').update(text, 'utf8').digest('hex');

/** HMAC-SHA256 of `text` (UTF-8) under `key`, in hex. */
export const hmacSha256Hex = (key: string, text: string): string => crypto().createHmac('sha256', key).update(text, 'utf8').digest('hex');

/** A random (version 4) UUID. */
export const randomUUID = (): string => crypto().randomUUID();
