// One answer checked against the spec: the envelope (or the bare invoice array), then the
// payload against the client's own zod schema (required fields, types, closed sets, date
// forms: the schemas coerce nothing), each issue filed under the rule it breaks, then the
// raw JSON text for what JSON.parse hides (`3500.0` is an integer to JSON.parse, a decimal
// in the body), then Retry-After on a 429 or 503.
import type { Schema } from '../api/client.js';
import { arrayElements, objectMembers, rootSpan, type Span } from '../text/json-scan.js';
import { clean } from '../text/sanitize.js';
import { RULES, type RuleId } from './rules.js';

export interface Finding {
  /** The operation id (listCars, getReservation, ...) or a step of the write flow. */
  operation: string;
  rule: RuleId;
  /** The spec's words. */
  spec: string;
  /** Where in the body: `data.cars[0].prices.trip_fee`, `header Retry-After`. */
  path: string;
  /** What was seen, short and printable. */
  saw: string;
}

/** Keys whose numbers are money (integer cents; `_usd`: whole dollars), besides every `*_cents`. */
const MONEY_KEYS = new Set([
  'amount',
  'total_amount',
  'trip_fee',
  'price_day',
  'price_delivery',
  'price_deposit',
  'price_extra_mile',
  'price_unlimited_mileage',
  'rent_subtotal',
  'rent_discount_amount',
  'protection_total',
  'trip_fee_total',
  'final_total',
  'display_total',
  'display_trip_total',
  'blended_day_rate',
  'discounted_day_rate',
  'delivery_total',
  'extras_total',
  'promo_discount_amount',
  'unlimited_mileage_total',
]);
const CAR_LOCAL_KEYS = new Set(['date_checkin', 'date_checkout', 'from', 'to', 'date_next_block', 'current_checkout', 'new_checkout']);

type Key = string | number;

export function isMoneyPath(path: readonly Key[]): boolean {
  const key = path[path.length - 1];
  if (typeof key !== 'string') return false;
  // prices.protection is a map from plan to a per-day price
  if (path[path.length - 2] === 'protection') return true;
  return key.endsWith('_cents') || key.endsWith('_usd') || MONEY_KEYS.has(key);
}

export function formatPath(root: string, path: readonly Key[]): string {
  let out = root;
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : `${out ? '.' : ''}${k}`;
  return out;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** A value as a finding shows it: JSON, at most 80 characters, no terminal controls. */
export function seen(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = clean(JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

interface Issue {
  path: PropertyKey[];
  code?: string;
  expected?: string;
  format?: string;
}

/** The rule a schema issue breaks. */
function ruleOf(issue: Issue, value: unknown): RuleId {
  const path = issue.path.filter((k): k is Key => typeof k === 'string' || typeof k === 'number');
  const key = path[path.length - 1];
  if (issue.code === 'invalid_type' && value === undefined) return 'required';
  if (issue.code === 'invalid_value') return 'closed-set';
  if (isMoneyPath(path) && typeof value === 'number') return 'integer-cents';
  if (issue.code === 'invalid_format' && typeof key === 'string') {
    if (key === 'created_at') return 'utc-date';
    if (CAR_LOCAL_KEYS.has(key)) return 'car-local-date';
    if (key === 'date' || key === 'expires_at') return 'date-form';
  }
  return 'type';
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** JSON.parse of the text; undefined when it is not JSON. */
  body: unknown;
}

export interface PayloadCheck {
  operation: string;
  schema?: Schema<unknown>;
  /** false: the answer is a bare JSON array (the invoice list of a reservation). */
  envelope?: boolean;
}

/** Findings for a 2xx answer; the payload is returned for the next step (undefined when unusable). */
export function checkPayload(answer: Answer, check: PayloadCheck): { findings: Finding[]; payload: unknown } {
  const findings: Finding[] = [];
  const add = (rule: RuleId, path: string, saw: string) => findings.push({ operation: check.operation, rule, spec: RULES[rule].spec, path, saw });
  const bare = check.envelope === false;
  if (answer.body === undefined) {
    add('envelope', 'body', answer.text === '' ? 'an empty body' : `not JSON: ${seen(answer.text.slice(0, 60))}`);
    return { findings, payload: undefined };
  }
  const body = answer.body;
  const enveloped = typeof body === 'object' && body !== null && !Array.isArray(body) && 'data' in body;
  if (bare && !Array.isArray(body)) {
    add('envelope', 'body', enveloped ? 'an envelope {"data": ...} where the spec says a bare JSON array' : `${seen(body)} where the spec says a bare JSON array`);
    return { findings, payload: undefined };
  }
  if (!bare && !enveloped) {
    add('envelope', 'body', `${seen(body)}: no {"data": ...} envelope`);
    return { findings, payload: undefined };
  }
  const payload = bare ? body : (body as { data: unknown }).data;
  const root = bare ? 'body' : 'data';
  const flagged = new Set<string>();
  // what JSON.parse hides: a money number written with a fraction or an exponent
  for (const { path, literal } of numberLiterals(answer.text)) {
    const inPayload = bare ? path : path[0] === 'data' ? path.slice(1) : undefined;
    if (!inPayload || !isMoneyPath(inPayload) || !/[.eE]/.test(literal)) continue;
    const where = formatPath(root, inPayload);
    flagged.add(where);
    add('integer-cents', where, clean(literal));
  }
  if (check.schema) {
    const result = check.schema.safeParse(payload);
    if (!result.success) {
      for (const issue of result.error.issues as ReadonlyArray<Issue>) {
        const path = issue.path.filter((k): k is Key => typeof k === 'string' || typeof k === 'number');
        const where = formatPath(root, path);
        if (flagged.has(where)) continue;
        flagged.add(where);
        const value = valueAt(payload, issue.path);
        add(ruleOf(issue, value), where, seen(value));
      }
    }
  }
  return { findings, payload };
}

/** `Retry-After` on a 429 or 503: integer seconds, at least 1. Undefined when it holds or does not apply. */
export function checkRetryAfter(answer: Pick<Answer, 'status' | 'headers'>, operation: string): Finding | undefined {
  if (answer.status !== 429 && answer.status !== 503) return undefined;
  const value = answer.headers['retry-after'];
  if (value !== undefined && /^\d+$/.test(value.trim()) && Number(value) >= 1) return undefined;
  return {
    operation,
    rule: 'retry-after',
    spec: RULES['retry-after'].spec,
    path: `HTTP ${answer.status}: header Retry-After`,
    saw: value === undefined ? 'missing' : seen(value),
  };
}

/** Every number literal of a JSON text, with its path and its text as written. */
export function numberLiterals(text: string): Array<{ path: Key[]; literal: string }> {
  const found: Array<{ path: Key[]; literal: string }> = [];
  const visit = (span: Span, path: Key[]) => {
    const c = text[span.start];
    if (c === '{') {
      for (const m of objectMembers(text, span.start)) visit(m.value, [...path, m.key]);
    } else if (c === '[') {
      let i = 0;
      for (const el of arrayElements(text, span.start)) visit(el, [...path, i++]);
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      found.push({ path, literal: text.slice(span.start, span.end) });
    }
  };
  visit(rootSpan(text), []);
  return found;
}
