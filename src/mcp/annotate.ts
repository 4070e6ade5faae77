// Money and car-local dates made explicit for an agent, derived from the API's own zod
// schemas (src/api/schemas.ts) so that nothing here lists a field:
// - next to every money field (integer cents, or whole dollars for `_usd` fields) a
//   `<field>_formatted` string such as "$1,234.56";
// - next to every car-local date a `<field>_formatted` string with its zone, such as
//   "2026-12-01 10:00 America/Los_Angeles" (the invoice `created_at` is UTC, per the spec).
// The raw values stay exactly as the API sent them. `annotateSchema` describes the result
// (the tool's outputSchema), `annotateValue` builds it; both walk the schema the same way.
//
// Money fields are found by identity: schemas.ts types every cents field with one shared
// `Cents` schema, which is read here from a field known to hold it (Quote.final_total).
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import * as S from '../api/schemas.js';
import { formatLocal, formatUtc, zoneOf } from '../render/dates.js';
import { formatCents, formatCentsOrUnknown, formatUsd } from '../render/money.js';

type Def = {
  type: string;
  innerType?: $ZodType;
  element?: $ZodType;
  valueType?: $ZodType;
  keyType?: $ZodType;
  shape?: Record<string, $ZodType>;
};
const defOf = (schema: $ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

const CENTS = defOf(S.Quote).shape!.final_total;

function unwrap(schema: $ZodType): $ZodType {
  let s = schema;
  for (let d = defOf(s); d.type === 'optional' || d.type === 'nullable'; d = defOf(s)) s = d.innerType!;
  return s;
}

type Leaf = 'cents' | 'usd' | 'local' | 'utc' | 'cents-record';

/** What kind of value the field holds, as far as formatting goes; undefined for anything else. */
function leafKind(name: string, schema: $ZodType): Leaf | undefined {
  const s = unwrap(schema);
  if (s === CENTS) return 'cents';
  const d = defOf(s);
  if (d.type === 'number' && name.endsWith('_usd')) return 'usd';
  if (s === S.LocalDateTime || s === S.LocalDate) return name === 'created_at' ? 'utc' : 'local';
  if (d.type === 'record' && d.valueType === CENTS) return 'cents-record';
  return undefined;
}

const FORMATTED_DESCRIPTION: Record<Leaf, string> = {
  cents: 'the amount in dollars, e.g. $1,234.56 ("unknown" when the API reports null)',
  usd: 'whole dollars, e.g. $25,000',
  local: "car-local date and time with the car's time zone; never converted",
  utc: 'UTC date and time',
  'cents-record': 'each amount in dollars',
};

function formattedSchema(kind: Leaf): $ZodType {
  const text = kind === 'cents-record' ? z.record(z.string(), z.string()) : z.string();
  return z.optional(text.check(z.describe(FORMATTED_DESCRIPTION[kind])));
}

/** The schema of `annotateValue`'s result: the same schema with the `_formatted` siblings. */
export function annotateSchema(schema: $ZodType): $ZodType {
  const d = defOf(schema);
  switch (d.type) {
    case 'optional':
      return z.optional(annotateSchema(d.innerType!));
    case 'nullable':
      return z.nullable(annotateSchema(d.innerType!));
    case 'array':
      return z.array(annotateSchema(d.element!));
    case 'object': {
      const shape: Record<string, $ZodType> = {};
      for (const [name, field] of Object.entries(d.shape!)) {
        shape[name] = annotateSchema(field);
        const kind = leafKind(name, field);
        if (kind) shape[`${name}_formatted`] = formattedSchema(kind);
      }
      return z.looseObject(shape);
    }
    default:
      return schema;
  }
}

/** The car's city of an object: a Car has `city`, a Trip has `car.city`. */
function cityOf(value: Record<string, unknown>): string | undefined {
  if (typeof value.city === 'string') return value.city;
  const car = value.car as Record<string, unknown> | undefined;
  return car && typeof car.city === 'string' ? car.city : undefined;
}

function format(kind: Leaf, value: unknown, city: string | undefined): unknown {
  switch (kind) {
    case 'cents':
      return value === null ? 'unknown' : formatCentsOrUnknown(value as number);
    case 'usd':
      return value === null ? undefined : formatUsd(value as number);
    case 'local':
      // a date whose car is not known (a licence expiry) has no zone to name
      return value === null || !zoneOf(city) ? undefined : formatLocal(value as string, city);
    case 'utc':
      return value === null ? undefined : formatUtc(value as string);
    case 'cents-record':
      return Object.fromEntries(Object.entries(value as Record<string, number>).map(([k, v]) => [k, formatCents(v)]));
  }
}

/**
 * The value with a `_formatted` sibling after every money and date field the schema knows.
 * `city` labels car-local dates where the value itself does not say (a quote names no car).
 */
export function annotateValue(value: unknown, schema: $ZodType, city?: string): unknown {
  if (value === null || value === undefined) return value;
  const d = defOf(unwrap(schema));
  if (d.type === 'array' && Array.isArray(value)) return value.map((item) => annotateValue(item, d.element!, city));
  if (d.type !== 'object' || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const here = cityOf(record) ?? city;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(record)) {
    const field = d.shape![name];
    if (!field) {
      out[name] = item;
      continue;
    }
    out[name] = annotateValue(item, field, here);
    const kind = leafKind(name, field);
    const formatted = kind && item !== undefined ? format(kind, item, here) : undefined;
    if (formatted !== undefined) out[`${name}_formatted`] = formatted;
  }
  return out;
}
