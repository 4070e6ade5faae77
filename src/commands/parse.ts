// Validation of command-line values shared by commands; every failure is a usage error
// raised before any request is sent.
import { usageError } from '../errors.js';

export function parseIntOption(value: string | undefined, flag: string, range: { min?: number; max?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw usageError(`${flag} must be a whole number, got "${value}"`);
  const n = Number(value);
  const { min, max } = range;
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
    const bounds = max === undefined ? `at least ${min}` : min === undefined ? `at most ${max}` : `${min}..${max}`;
    throw usageError(`${flag} must be ${bounds}, got ${n}`);
  }
  return n;
}

export function parseSeconds(value: string | undefined, flag: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min) throw usageError(`${flag} must be a number of seconds${min ? ` (at least ${min})` : ''}, got "${value}"`);
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
  if (/[\s/?#]/.test(value)) throw usageError(`"${value}" is not a car alias`);
  return value;
}

/** Printable ASCII, 16..128: the spec's Idempotency-Key rule. */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x20-\x7e]{16,128}$/.test(value)) throw usageError('--idempotency-key must be 16 to 128 printable ASCII characters');
  return value;
}
