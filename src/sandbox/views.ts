// Resources as the API shows them, built to src/api/schemas.ts from the stored records.
// Nothing here mutates state.
import { compareStamps, localNowMinutes, parseLocal } from './clock.js';
import type { CarRec, City } from './fleet.js';
import { DEFAULT_SELECTION, carDateTotals, priceTrip, tripDays } from './pricing.js';
import { carBlocks, isAvailable } from './availability.js';
import { type RuleEnv, balanceOf, carOf, effectiveStatus, isBooked, licenceState, tripTotalCents } from './facts.js';
import { type CustomerRec, type InvoiceRec, type ReservationRec, type SandboxState, invoicesOf, readTagged } from './state.js';

export type ViewEnv = Pick<RuleEnv, 'now' | 'fleet'>;

/** Car-local "now" per city, computed once per request rather than once per car. */
export function nowByCity(now: Date): Record<City, number> {
  return { la: localNowMinutes(now, 'America/Los_Angeles'), miami: localNowMinutes(now, 'America/New_York') };
}

export interface CarViewOptions {
  nowLocal: Record<City, number>;
  dates?: { checkin: number; checkout: number };
  detail?: boolean;
}

export function carView(state: SandboxState, car: CarRec, opts: CarViewOptions): Record<string, unknown> {
  const nowLocal = opts.nowLocal[car.city];
  const current = carBlocks(state, car, nowLocal).filter((b) => b.to === null || (parseLocal(b.to) as number) > nowLocal);
  const view: Record<string, unknown> = {
    car_alias: car.car_alias,
    name: car.name,
    prices: car.prices,
    car_id: car.car_id,
    city: car.city,
    address: car.address,
    area: car.area,
    body_type: car.body_type,
    state: car.state,
    zip_code: car.zip_code,
    description: car.description,
    make: car.make,
    make_id: car.make_id,
    model: car.model,
    model_id: car.model_id,
    power_type: car.power_type,
    year: car.year,
    doors: car.doors,
    seats: car.seats,
    mpg: car.mpg,
    insurance_coverage_usd: car.insurance_coverage_usd,
    blended_day_rate_cents: car.day_rate_cents,
    discounted_day_rate_cents: car.day_rate_cents,
    is_hot_deal: car.is_hot_deal,
    date_next_block: current[0]?.from ?? null,
    photos: car.photos,
    previews: car.previews,
  };
  if (opts.dates) {
    const { checkin, checkout } = opts.dates;
    Object.assign(view, carDateTotals(priceTrip(car, tripDays(checkin, checkout), DEFAULT_SELECTION)));
    view.is_available = isAvailable(state, car, checkin, checkout);
  }
  if (opts.detail) view.blocked_ranges = current.map((b) => ({ from: b.from, kind: b.kind, to: b.to }));
  return view;
}

/** On the reservation detail a HOLD shows as PAID in the legacy `status`. */
export function invoiceView(inv: InvoiceRec, onReservationDetail = false): Record<string, unknown> {
  return {
    id: inv.id,
    created_at: inv.created_at,
    currency: 'USD',
    type: inv.type,
    status: onReservationDetail && inv.billing_status === 'HOLD' ? 'PAID' : inv.billing_status,
    billing_status: inv.billing_status,
    amount: inv.amount,
    description: inv.description,
    items: inv.items.map((i) => ({ id: i.id, amount: i.amount, description: i.description })),
    reservation_uuid: inv.reservation_uuid,
  };
}

export const sortedInvoices = (invoices: readonly InvoiceRec[]) =>
  [...invoices].sort((a, b) => compareStamps(a.created_at, b.created_at));

function paymentStatus(r: ReservationRec, invoices: readonly InvoiceRec[]): Record<string, unknown> {
  const balance = balanceOf(invoices);
  const debt = invoices.find((i) => i.type === 'DEBT' && i.billing_status === 'ISSUED');
  if (balance > 0 && debt) return { type: 'to_pay', amount: balance, invoice_id: debt.id };
  const pendingRefunds = invoices.filter((i) => i.type === 'REFUND' && i.billing_status === 'ISSUED');
  if (pendingRefunds.length > 0 && r.cancellation?.refund_date) {
    return { type: 'refund', amount: -pendingRefunds.reduce((s, i) => s + i.amount, 0), date: r.cancellation.refund_date };
  }
  return { type: 'settled' };
}

function cancellationOutcome(state: SandboxState, r: ReservationRec): Record<string, unknown> {
  if (r.legacy_cancellation) return { status: 'unknown' };
  if (r.status !== 'cancelled' || !r.cancellation) return { status: 'not_cancelled' };
  return {
    status: 'cancelled',
    hold_release: { status: r.cancellation.hold_release },
    refund_review: { status: r.cancellation.refund_review },
    refunds: readTagged(state, 'refunds', `r:${r.uuid}`)
      .filter((f) => f.reservation_uuid === r.uuid)
      .map((f) => ({ id: f.id, amount_cents: f.amount_cents, status: f.status, confirmed_at: f.confirmed_at })),
  };
}

/**
 * A Trip. The detail adds is_booked, payment_status, invoices and cancellation_outcome;
 * its payment_status is `to_pay` only once the debt invoice exists (the caller prepares it).
 */
export function tripView(state: SandboxState, env: ViewEnv, r: ReservationRec, detail: boolean): Record<string, unknown> {
  const invoices = invoicesOf(state, r.uuid);
  const car = carOf(env, r);
  const view: Record<string, unknown> = {
    uuid: r.uuid,
    status: effectiveStatus(r, env),
    date_checkin: r.date_checkin,
    date_checkout: r.date_checkout,
    days: r.days,
    balance_cents: balanceOf(invoices),
    car: carView(state, car, { nowLocal: nowByCity(env.now) }),
    financial_summary: { currency: 'USD', trip_total_cents: tripTotalCents(r, invoices), deposit_cents: r.pricing.deposit_cents },
    options: r.options,
    extras: r.extras,
    promo_code: r.promo?.code ?? null,
  };
  if (detail) {
    view.is_booked = isBooked(r, invoices);
    view.payment_status = paymentStatus(r, invoices);
    view.invoices = sortedInvoices(invoices).map((i) => invoiceView(i, true));
    view.cancellation_outcome = cancellationOutcome(state, r);
  }
  return view;
}

export function cardsView(customer: CustomerRec) {
  return customer.card ? [{ ...customer.card }] : [];
}

export function profileView(customer: CustomerRec, now: Date) {
  return {
    uuid: customer.id,
    first_name: customer.first_name,
    last_name: customer.last_name,
    email: customer.email,
    is_approved_to_drive: licenceState(customer, now).approved,
    payment_methods: cardsView(customer),
  };
}

/** `verified` means approved to drive; `pending` a licence awaiting a decision; else `unknown`. */
export function verificationView(customer: CustomerRec, now: Date) {
  const lic = licenceState(customer, now);
  return {
    status: lic.approved ? 'verified' : customer.licence.status === 'pending' ? 'pending' : 'unknown',
    is_approved_to_drive: lic.approved,
    drivers_license: {
      status: customer.licence.status,
      expires_at: customer.licence.expires_at,
      expired: lic.expired,
      expiring_soon: lic.expiringSoon,
    },
  };
}
