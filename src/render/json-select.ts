// `--json a,b,c`: keep only those fields, of each item for a list (as `gh` does). The
// shape of the document stays: a page keeps its `total` and `has_more`, the trips list its
// `active` and `history`; only the items are cut down.
import { usageError } from '../errors.js';

export interface SelectOptions {
  /** Members of an object payload that are lists of items (a page's `cars`). */
  lists?: readonly string[];
  /** Fields the API documents for an item, offered even when no item carries them (asked for only when fields are selected). */
  known?: () => readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where the items are: the array itself, the named lists, an object made only of lists, or the object. */
function itemLists(value: unknown, lists?: readonly string[]): string[] | 'self' | 'array' {
  if (Array.isArray(value)) return 'array';
  if (!isObject(value)) return 'self';
  if (lists) return lists.filter((k) => Array.isArray(value[k]));
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every((k) => Array.isArray(value[k]))) return keys;
  return 'self';
}

/** The item with only `fields` (those it has), unchecked: for items of a list already checked. */
export function pick(item: unknown, fields: string[]): unknown {
  if (!isObject(item)) return item;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(item, f)) out[f] = item[f];
  return out;
}

/** The value with only `fields` kept; exit 2 naming the available fields when one is unknown. */
export function selectFields(value: unknown, fields: string[], opts: SelectOptions = {}): unknown {
  const where = itemLists(value, opts.lists);
  if (where === 'self' && !isObject(value)) {
    throw usageError('this command prints a single value, not an object: --json takes no field list here', 'use --json alone');
  }
  const items: unknown[] = where === 'self' ? [value] : where === 'array' ? (value as unknown[]) : where.flatMap((k) => (value as Record<string, unknown[]>)[k]);
  const available = new Set(opts.known?.() ?? []);
  for (const item of items) if (isObject(item)) for (const k of Object.keys(item)) available.add(k);
  const unknown = fields.filter((f) => !available.has(f));
  if (unknown.length) {
    throw usageError(
      `unknown JSON field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      available.size ? `available fields: ${[...available].sort().join(', ')}` : 'there are no items to take fields from; use --json alone',
    );
  }
  if (where === 'self') return pick(value, fields);
  if (where === 'array') return (value as unknown[]).map((item) => pick(item, fields));
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const k of where) out[k] = (out[k] as unknown[]).map((item) => pick(item, fields));
  return out;
}
