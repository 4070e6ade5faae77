// A reservation or invoice uuid as typed: a whole uuid, or a prefix of one that
// src/booking/resolve-id.ts resolves against the customer's own. Only the shape is read here.
import { usageError } from '../errors.js';
import { clean } from '../text/sanitize.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A prefix shorter than this matches too much to be worth a lookup. */
export const MIN_PREFIX = 4;
const PREFIX_RE = /^[0-9a-f][0-9a-f-]*$/i;

/** What the user typed: a whole uuid, or a prefix still to resolve. */
export interface UuidRef {
  text: string;
  whole: boolean;
  /** "the reservation uuid", for messages. */
  what: string;
}

/** Checks the shape (a usage error, exit 2, before any request). */
export function parseUuidRef(value: string | undefined, what: string): UuidRef {
  if (!value) throw usageError(`${what} is required`);
  if (UUID_RE.test(value)) return { text: value.toLowerCase(), whole: true, what };
  if (PREFIX_RE.test(value) && value.length >= MIN_PREFIX && value.length < 36) return { text: value.toLowerCase(), whole: false, what };
  throw usageError(`${what} must be a UUID or a unique prefix of one (at least ${MIN_PREFIX} characters), got "${clean(value)}"`);
}
