// Validation of command-line values shared by commands; every failure is a usage error
// raised before any request is sent.
import { isDotSegment } from '../api/path.js';
import { usageError } from '../errors.js';
import { isValidIdempotencyKey } from '../store/journal.js';
import { clean } from '../text/sanitize.js';

/**
 * A whole number within bounds. Without a max, the bound is the largest integer a number
 * holds exactly (2^53 - 1): beyond it `100000000000000000000000` would be sent as `1e+23`.
 */
export function parseIntOption(value: string | undefined, flag: string, range: { min?: number; max?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!/^-?\d+$/.test(text)) throw usageError(`${flag} must be a whole number, got "${clean(value)}"`);
  const n = Number(text);
  const { min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
  if (n < min || n > max || !Number.isSafeInteger(n)) {
    const bounds = range.min !== undefined && range.max !== undefined ? `${min}..${max}` : n < min ? `at least ${min}` : `at most ${max}`;
    throw usageError(`${flag} must be ${bounds}, got ${text}`);
  }
  return n;
}

/** The longest wait a flag may ask for: a week (timers overflow past 24.8 days). */
export const MAX_WAIT_SECONDS = 7 * 24 * 3600;

export function parseSeconds(value: string | undefined, flag: string, min = 0, max = MAX_WAIT_SECONDS): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    const bounds = n > max ? ` (at most ${max})` : min ? ` (at least ${min})` : '';
    throw usageError(`${flag} must be a number of seconds${bounds}, got "${clean(value)}"`);
  }
  return n;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseUuid(value: string | undefined, what: string): string {
  if (!value) throw usageError(`${what} is required`);
  if (!UUID_RE.test(value)) throw usageError(`${what} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

export function parseAlias(value: string | undefined): string {
  if (!value || !value.trim()) throw usageError('a car alias is required (see `carrental cars`)');
  if (/[\s/?#]/.test(value) || isDotSegment(value)) throw usageError(`"${value}" is not a car alias`);
  return value;
}

/** Printable ASCII, 16..128: the spec's Idempotency-Key rule. */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x20-\x7e]{16,128}$/.test(value)) throw usageError('--idempotency-key must be 16 to 128 printable ASCII characters');
  return value;
}

/** Validates --idempotency-key of a journaled write against the journal's rule (no spaces at either end). */
export function parseWriteKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isValidIdempotencyKey(value)) {
    throw usageError('--idempotency-key must be 16 to 128 printable ASCII characters, without spaces at either end');
  }
  return value;
}
