// What the sandbox's records mean, read without changing them: a trip's car, its effective
// status, what it owes and costs, whether it holds the calendar, and a customer's licence.
import { addDaysToDate, localNowMinutes, parseLocal } from './clock.js';
import type { SandboxConfig } from './config.js';
import type { CarRec, Fleet } from './fleet.js';
import { type CustomerRec, type InvoiceRec, type ReservationRec, type ReservationStatus, type SandboxState, readTagged } from './state.js';

export interface RuleEnv {
  now: Date;
  newId: () => string;
  config: SandboxConfig;
  fleet: Fleet;
  anchorDay: string;
}

/** Invoice types that charge the customer for the trip (the deposit is a hold, not a charge). */
export const CHARGE_TYPES: ReadonlySet<string> = new Set(['RENT', 'EXTEND', 'FEE_RENT']);

export function carOf(env: Pick<RuleEnv, 'fleet'>, r: ReservationRec): CarRec {
  const car = env.fleet.byId.get(r.car_id);
  if (!car) throw new Error(`reservation ${r.uuid} refers to car ${r.car_id}, which is not in the fleet`);
  return car;
}

/** A `new` trip whose checkout has passed reads as `complete`. */
export function effectiveStatus(r: ReservationRec, env: Pick<RuleEnv, 'fleet' | 'now'>): ReservationStatus {
  if (r.status !== 'new') return r.status;
  const nowLocal = localNowMinutes(env.now, carOf(env, r).timeZone);
  return nowLocal >= (parseLocal(r.date_checkout) as number) ? 'complete' : 'new';
}

export const balanceOf = (invoices: readonly InvoiceRec[]) =>
  invoices.filter((i) => CHARGE_TYPES.has(i.type) && i.billing_status === 'ISSUED').reduce((s, i) => s + i.amount, 0);

const isRentPaid = (invoices: readonly InvoiceRec[]) =>
  invoices.some((i) => (i.type === 'RENT' || i.type === 'EXTEND') && i.billing_status === 'PAID');

/** A paid, uncancelled trip holds the calendar; an unpaid reservation does not. */
export function isBooked(r: ReservationRec, invoices: readonly InvoiceRec[]): boolean {
  return r.status === 'new' && invoices.some((i) => i.type === 'RENT' && i.billing_status === 'PAID');
}

/** Null when the billing records cannot be classified; never an invented zero. */
export function tripTotalCents(r: ReservationRec, invoices: readonly InvoiceRec[]): number | null {
  if (r.manual_adjustment || r.legacy_cancellation) return null;
  if (r.status === 'cancelled' && isRentPaid(invoices)) return null;
  return invoices
    .filter((i) => CHARGE_TYPES.has(i.type) && i.billing_status !== 'CANCELLED')
    .reduce((s, i) => s + i.amount, 0);
}

const utcToday = (now: Date) => now.toISOString().slice(0, 10);

export function licenceState(customer: CustomerRec, now: Date) {
  const today = utcToday(now);
  const expires = customer.licence.expires_at;
  const expired = expires !== null && expires < today;
  const expiringSoon = expires !== null && !expired && expires <= addDaysToDate(today, 30);
  return { expired, expiringSoon, approved: customer.licence.status === 'approved' && expires !== null && !expired };
}

export const isApprovedToDrive = (customer: CustomerRec, now: Date) => licenceState(customer, now).approved;

export const activeReservations = (state: SandboxState, env: RuleEnv, customerId: string) =>
  readTagged(state, 'reservations', `n:${customerId}`).filter((r) => r.customer_id === customerId && effectiveStatus(r, env) === 'new');
