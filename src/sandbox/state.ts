// The shape of the sandbox's mutable state: everything that is not derivable from
// (seed, anchor, fleetSize). store.ts persists it: an SQLite database, or one JSON document on Node 20.
import type { Capability } from '../api/operations.js';
import type { PriceBreakdown, PromoDiscount } from './pricing.js';

export const STATE_FORMAT = 'carrental-sandbox-state';
export const STATE_VERSION = 1;

export type LicenceStatus = 'unknown' | 'pending' | 'approved' | 'declined';
export type ReservationStatus = 'new' | 'complete' | 'cancelled';
export type BillingStatus = 'ISSUED' | 'PAID' | 'CANCELLED' | 'HOLD';
export type HoldRelease = 'not_required' | 'pending' | 'released' | 'manual_review' | 'unknown';
export type RefundReview = 'not_required' | 'pending' | 'closed' | 'unknown';
export type RefundStatus = 'confirmed' | 'recorded_unconfirmed' | 'failed' | 'unknown';

export interface ApiKeyRec {
  key: string;
  capability: Capability;
  revoked: boolean;
}

export interface CardRec {
  id: string;
  card_brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

export interface CustomerRec {
  id: string;
  /** Short stable name used by the admin endpoints (dana, omar, lee, sam, pat). */
  handle: string;
  first_name: string;
  last_name: string;
  email: string;
  licence: { status: LicenceStatus; expires_at: string | null };
  card_payments_enabled: boolean;
  card: CardRec | null;
  keys: ApiKeyRec[];
  /** The customer web application's own login token (also accepted on /my operations). */
  app_token: string;
}

export interface ReservationOptionsRec {
  protection_plan: 'minimum' | 'standard';
  mileage_type: 'limited' | 'unlimited';
  delivery_type: 'pickup' | 'delivery';
  delivery_address: string | null;
}

export interface ExtensionRec {
  from_checkout: string;
  to_checkout: string;
  invoice_id: string | null;
  at: string;
}

export interface ReservationRec {
  uuid: string;
  customer_id: string;
  car_id: number;
  /** Stored status; a `new` trip whose checkout has passed reads as `complete`. */
  status: ReservationStatus;
  date_checkin: string;
  date_checkout: string;
  days: number;
  options: ReservationOptionsRec;
  extras: string[];
  promo: PromoDiscount | null;
  /** The price at creation; extensions add EXTEND invoices. */
  pricing: PriceBreakdown;
  created_at: string;
  cancelled_at: string | null;
  cancellation: { hold_release: HoldRelease; refund_review: RefundReview; refund_date: string | null } | null;
  /** Cancelled before the outcome was recorded: outcome `unknown`, trip total null. */
  legacy_cancellation: boolean;
  /** A manual billing adjustment exists: the trip total cannot be classified. */
  manual_adjustment: boolean;
  extensions: ExtensionRec[];
}

export interface InvoiceItemRec {
  id: string;
  amount: number;
  description: string;
}

export interface InvoiceRec {
  id: string;
  customer_id: string;
  reservation_uuid: string;
  /** UTC `YYYY-MM-DDTHH:MM`. */
  created_at: string;
  type: string;
  billing_status: BillingStatus;
  amount: number;
  description: string;
  items: InvoiceItemRec[];
}

export interface RefundRec {
  id: string;
  customer_id: string;
  reservation_uuid: string;
  invoice_id: string;
  amount_cents: number;
  status: RefundStatus;
  confirmed_at: string | null;
}

export interface IdempotencyRec {
  operation: string;
  fingerprint: string;
  status: number;
  /** The exact response body, replayed byte for byte. */
  body: string;
  created_at: string;
}

export interface AgentFlowRec {
  id: string;
  customer_id: string;
  action: 'pay_reservation' | 'add_payment_card' | 'extend_reservation';
  reservation_uuid: string | null;
  payment_type: 'rent' | 'deposit' | null;
  checkout: string | null;
  agent_client: string | null;
  url: string;
  created_at: string;
}

export interface SandboxState {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  seed: number;
  fleetSize: number;
  /** ISO instant when the state was seeded; fixtures and the fleet are relative to its UTC date. */
  anchor: string;
  clockOffsetMs: number;
  customers: CustomerRec[];
  reservations: Record<string, ReservationRec>;
  invoices: Record<string, InvoiceRec>;
  refunds: Record<string, RefundRec>;
  /** Completed create/cancel commands, by `<customer id>:<Idempotency-Key>`; kept permanently. */
  idempotency: Record<string, IdempotencyRec>;
  /** One-time promo codes each customer has used, by customer id. */
  usedPromos: Record<string, string[]>;
  agentFlows: Record<string, AgentFlowRec>;
}

export const anchorDay = (state: Pick<SandboxState, 'anchor'>) => state.anchor.slice(0, 10);

/** The keyed collections of the state; the SQLite store keeps each record as a row of its own. */
export const COLLECTIONS = ['reservations', 'invoices', 'refunds', 'idempotency', 'usedPromos', 'agentFlows'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/**
 * The index tags of a record: what the read paths look records up by (a customer's
 * reservations, a reservation's invoices and refunds). `n:` (by customer) and `nc:` (by
 * car) mark a reservation stored as `new`, the only ones that can be active or hold a car:
 * a cancelled history is never read to answer a create or an availability question.
 */
export function tagsOf(coll: Collection, rec: unknown): string[] {
  const r = rec as Record<string, unknown>;
  switch (coll) {
    case 'reservations':
      return r.status === 'new' ? [`c:${r.customer_id}`, `n:${r.customer_id}`, `nc:${r.car_id}`] : [`c:${r.customer_id}`];
    case 'invoices':
    case 'refunds':
      return [`r:${r.reservation_uuid}`];
    case 'agentFlows':
      return [`c:${r.customer_id}`];
    default:
      return [];
  }
}

export interface StateIndex {
  /** Keys of `coll` carrying `tag`; may include records that no longer match (callers filter). */
  tagged(coll: Collection, tag: string): readonly string[];
  /** At least as many as `tagged` would list, without listing them. */
  countAtMost(coll: Collection, tag: string): number;
  /** The same state for reading without recording a before-image (see sqlite-store.ts). */
  raw: SandboxState;
  /**
   * Keys of the car's reservations stored `new` whose checkout is on `fromDay`
   * (`YYYY-MM-DD`) or later: what can still block the car. A car's history of completed
   * trips (stored `new` too) is never read for a catalog or availability question.
   */
  newOfCarSince?(carId: number, fromDay: string): readonly string[];
}

// The store attaches its index to every state object it hands out; a plain state object
// (seeding, unit tests) is indexed by a scan, cached until forgetIndexes.
const indexes = new WeakMap<SandboxState, StateIndex>();
const caches = new WeakMap<SandboxState, Map<string, unknown>>();

export function attachIndex(state: SandboxState, index: StateIndex): void {
  indexes.set(state, index);
}

/** Memoizes a value derived from a state object that is no longer being mutated. */
export function cached<T>(state: SandboxState, key: string, compute: () => T): T {
  let perState = caches.get(state);
  if (!perState) {
    perState = new Map();
    caches.set(state, perState);
  }
  if (perState.has(key)) return perState.get(key) as T;
  const value = compute();
  perState.set(key, value);
  return value;
}

/** Drops cached values of a state object that was mutated in place (a transaction draft). */
export function forgetIndexes(state: SandboxState): void {
  caches.delete(state);
}

export function taggedKeys(state: SandboxState, coll: Collection, tag: string): readonly string[] {
  const index = indexes.get(state);
  if (index) return index.tagged(coll, tag);
  const byTag = cached(state, `tags:${coll}`, () => {
    const out = new Map<string, string[]>();
    for (const [key, rec] of Object.entries(state[coll])) {
      for (const t of tagsOf(coll, rec)) {
        const list = out.get(t);
        if (list) list.push(key);
        else out.set(t, [key]);
      }
    }
    return out;
  });
  return byTag.get(tag) ?? [];
}

/** An upper bound of how many records `taggedKeys` lists: what a check against a maximum needs first. */
export function taggedCountAtMost(state: SandboxState, coll: Collection, tag: string): number {
  const index = indexes.get(state);
  return index ? index.countAtMost(coll, tag) : taggedKeys(state, coll, tag).length;
}

const readView = (state: SandboxState) => indexes.get(state)?.raw ?? state;

/**
 * Records of `coll` tagged `tag`. For reading only: inside a transaction, a record found
 * this way and then changed would not be written; rules that change records use `draftTagged`.
 */
export function readTagged<C extends Collection>(state: SandboxState, coll: C, tag: string): SandboxState[C][string][] {
  const view = readView(state)[coll] as Record<string, SandboxState[C][string]>;
  const out: SandboxState[C][string][] = [];
  for (const k of taggedKeys(state, coll, tag)) {
    const v = view[k];
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** The same, through the transaction's draft: each record is recorded as touched. */
export function draftTagged<C extends Collection>(state: SandboxState, coll: C, tag: string): SandboxState[C][string][] {
  const view = state[coll] as Record<string, SandboxState[C][string]>;
  const out: SandboxState[C][string][] = [];
  for (const k of taggedKeys(state, coll, tag)) {
    const v = view[k];
    if (v !== undefined) out.push(v);
  }
  return out;
}

/**
 * The car's reservations stored `new` with a checkout on `fromDay` or later (a superset of
 * those that can block it from that day on; callers filter). For reading only, as readTagged.
 */
export function newOfCarSince(state: SandboxState, carId: number, fromDay: string): ReservationRec[] {
  const index = indexes.get(state);
  const view = readView(state).reservations;
  if (index?.newOfCarSince) {
    const out: ReservationRec[] = [];
    for (const k of index.newOfCarSince(carId, fromDay)) {
      const v = view[k];
      if (v !== undefined) out.push(v);
    }
    return out;
  }
  return readTagged(state, 'reservations', `nc:${carId}`).filter((r) => r.date_checkout >= fromDay);
}

export const invoicesOf = (state: SandboxState, reservationUuid: string): InvoiceRec[] => readTagged(state, 'invoices', `r:${reservationUuid}`);
export const reservationsOf = (state: SandboxState, customerId: string): ReservationRec[] =>
  readTagged(state, 'reservations', `c:${customerId}`).filter((r) => r.customer_id === customerId);
export const lookupCredential = (state: SandboxState, token: string) =>
  cached(state, 'credentials', () => {
    const map = new Map<string, { customer: CustomerRec; key: ApiKeyRec | null }>();
    for (const c of state.customers) {
      for (const k of c.keys) map.set(k.key, { customer: c, key: k });
      map.set(c.app_token, { customer: c, key: null });
    }
    return map;
  }).get(token);

export function customerById(state: SandboxState, id: string): CustomerRec | undefined {
  return state.customers.find((c) => c.id === id);
}

/** By id or handle (admin endpoints accept both). */
export function findCustomer(state: SandboxState, idOrHandle: string): CustomerRec | undefined {
  return state.customers.find((c) => c.id === idOrHandle || c.handle === idOrHandle);
}
