// The idempotency journal's entry model: what an entry is, how a command is identified
// (the canonical request, the canonical base URL, the credential's fingerprint) and how a
// file's text is checked. No file access here: journal.ts is the store that reads, locks
// and writes the file.
import { canonicalBaseUrl } from '../api/base-url.js';
import { CliError } from '../errors.js';
import { hmacSha256Hex, sha256Hex } from './lazy-crypto.js';

export type JournalOperation = 'createReservation' | 'cancelReservation';
export type JournalState = 'pending' | 'done';

export interface JournalEntry {
  /** commandId(baseUrl, credential, operation, request): the same command always maps here. */
  id: string;
  /** The Idempotency-Key sent with every attempt of this command. */
  key: string;
  /** The profile that began it: shown by `pending`, used in its rerun line; not part of the identity. */
  profile: string;
  baseUrl: string;
  /** credentialFingerprint(key); null for an entry migrated from format 1 (owner unknown until resumed). */
  credential: string | null;
  operation: JournalOperation;
  /** What the command acts on, for people reading `pending` (car alias / reservation uuid). */
  target: string;
  /** The canonical request, as hashed into `id`. */
  request: unknown;
  createdAt: string;
  /** Last time the command was begun again or attempted; a pending entry's expiry counts from here. */
  updatedAt: string;
  /** Sends made with this key (every run and every in-process retry). */
  attempts: number;
  /** pending: the outcome is not known; done: the server answered 2xx. */
  state: JournalState;
  /** When it became done; the replay window counts from here. */
  doneAt?: string;
  /** The answer's `data` when it was a string: the reservation uuid, or "OK" for a cancel. */
  result?: string | null;
}

/** What identifies a command, and what is stored with it. */
export interface JournalCommand {
  profile: string;
  baseUrl: string;
  /** credentialFingerprint(apiKey). */
  credential: string;
  operation: JournalOperation;
  target: string;
  request: unknown;
  /** A key given by the caller (--idempotency-key). */
  key?: string;
  /** Start a new command even if this one is done within the replay window (reserve --new). */
  fresh?: boolean;
  /**
   * The request is the whole identity (a create): a live identical command (pending, or
   * done within the replay window) is resumed or replayed with its own key whatever `key`
   * says; `key` only names a command that starts anew. Without it a differing `key` starts
   * a new command (a cancel's --idempotency-key).
   */
  keyYields?: boolean;
}

export const FORMAT_VERSION = 2;

export const OPERATIONS: readonly JournalOperation[] = ['createReservation', 'cancelReservation'];

/** The API's rule for Idempotency-Key: 16 to 128 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  // Leading/trailing spaces would be stripped from the header in transit, so the key the
  // server saw would differ from the journaled one.
  return /^[\x21-\x7e][\x20-\x7e]{14,126}[\x21-\x7e]$/.test(key);
}

/**
 * JSON with object keys sorted (UTF-16 code unit order) and no whitespace, so equal
 * values always give the same text. Otherwise follows JSON.stringify: undefined,
 * functions and symbols are dropped from objects (null inside arrays), non-finite
 * numbers become null, toJSON() is honoured. A top-level undefined gives "null".
 * Throws TypeError on BigInt and on cycles.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, new Set()) ?? 'null';
}

function encode(value: unknown, ancestors: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw new TypeError('canonicalJson: a BigInt has no JSON form');
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (obj instanceof Number || obj instanceof String || obj instanceof Boolean) {
    return encode(obj.valueOf(), ancestors);
  }
  if (ancestors.has(obj)) throw new TypeError('canonicalJson: circular structure');
  ancestors.add(obj);
  try {
    if (Array.isArray(obj)) {
      return `[${obj.map((item) => encode(item, ancestors) ?? 'null').join(',')}]`;
    }
    const record = obj as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const encoded = encode(record[key], ancestors);
      if (encoded !== undefined) parts.push(`${JSON.stringify(key)}:${encoded}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    // Only the current path counts: the same object twice side by side is not a cycle.
    ancestors.delete(obj);
  }
}

/** `https://x/v1/` and `https://x/v1` are the same API; the spelling an entry shows. */
export function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

// A fixed HMAC key separates this fingerprint from any other hash of the key (a server's
// or another tool's), so the journal cannot be matched against one; the API key itself is
// a long random secret, so the fingerprint cannot be guessed back. It must stay the same
// for as long as an entry lives, which is why it is not a per-machine secret that could be
// lost separately from the journal.
const FINGERPRINT_KEY = 'carrental idempotency journal: credential fingerprint v1';

/** 128 bits of HMAC-SHA256 of the API key: who an entry belongs to, without the key. */
export function credentialFingerprint(apiKey: string): string {
  return hmacSha256Hex(FINGERPRINT_KEY, apiKey).slice(0, 32);
}

/** sha256 (hex) of the canonical JSON of the command; the journal's identity of a command. */
export function commandId(cmd: { baseUrl: string; credential: string; operation: JournalOperation; request: unknown }): string {
  return idOf(canonicalBaseUrl(cmd.baseUrl), cmd);
}

/**
 * The id an entry got before identities used the canonical base URL (only trailing slashes
 * trimmed): a command journaled by an older carrental, still pending, is found by it.
 */
export function rawUrlCommandId(cmd: { baseUrl: string; credential: string; operation: JournalOperation; request: unknown }): string {
  return idOf(normalizeBaseUrl(cmd.baseUrl), cmd);
}

function idOf(baseUrl: string, cmd: { credential: string; operation: JournalOperation; request: unknown }): string {
  const text = canonicalJson({ baseUrl, credential: cmd.credential, operation: cmd.operation, request: cmd.request });
  return sha256Hex(text);
}

/** The identity format 1 used (profile instead of credential): finds a migrated entry. */
export function legacyCommandId(profile: string, baseUrl: string, operation: JournalOperation, request: unknown): string {
  const text = canonicalJson({ profile, baseUrl: normalizeBaseUrl(baseUrl), operation, request });
  return sha256Hex(text);
}

export const isStamp = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));

/** Format 1 fields; format 2 adds credential, state, doneAt, result. */
function isEntryV1(e: Record<string, unknown>): boolean {
  return (
    typeof e.id === 'string' &&
    typeof e.key === 'string' &&
    typeof e.profile === 'string' &&
    typeof e.baseUrl === 'string' &&
    typeof e.target === 'string' &&
    OPERATIONS.includes(e.operation as JournalOperation) &&
    'request' in e &&
    isStamp(e.createdAt) &&
    isStamp(e.updatedAt) &&
    Number.isInteger(e.attempts) &&
    (e.attempts as number) >= 0
  );
}

function isEntry(value: unknown, version: number): value is JournalEntry {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const e = value as Record<string, unknown>;
  if (!isEntryV1(e)) return false;
  if (version === 1) return true;
  if (!(e.credential === null || typeof e.credential === 'string')) return false;
  if (e.state === 'pending') return true;
  return e.state === 'done' && isStamp(e.doneAt) && (e.result === undefined || e.result === null || typeof e.result === 'string');
}

export type ParseResult = { ok: true; entries: JournalEntry[] } | { ok: false; reason: string };

export function parseJournal(text: string): ParseResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `not valid JSON: ${(err as Error).message}` };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, reason: 'not a JSON object' };
  }
  const { version, entries } = data as { version?: unknown; entries?: unknown };
  if (typeof version === 'number' && version > FORMAT_VERSION) {
    // A newer carrental owns this file; setting it aside would lose its pending keys.
    throw new CliError('api', `the idempotency journal was written by a newer carrental (format ${version})`, {
      hint: 'upgrade carrental, or use CARRENTAL_STATE_DIR to point this version elsewhere',
    });
  }
  if (version !== 1 && version !== FORMAT_VERSION) return { ok: false, reason: `unknown format version ${JSON.stringify(version)}` };
  if (!Array.isArray(entries)) return { ok: false, reason: '"entries" is not an array' };
  const seen = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    if (!isEntry(entry, version)) return { ok: false, reason: `entry ${i} is malformed` };
    if (seen.has(entry.id)) return { ok: false, reason: `entry ${i} repeats id ${entry.id}` };
    seen.add(entry.id);
  }
  if (version === FORMAT_VERSION) return { ok: true, entries: entries as JournalEntry[] };
  // Format 1 kept only unfinished commands, and did not record whose key sent them.
  return { ok: true, entries: (entries as JournalEntry[]).map((e) => ({ ...e, credential: null, state: 'pending' as const })) };
}
