// The state transitions of the sandbox: reservations, payment, extensions, agent flows (what
// records mean is in facts.ts, availability in availability.ts, request parsing in
// trip-request.ts). Each mutation validates first and mutates after, and calls forgetIndexes
// once it has mutated, so cached read indexes of a plain state object never go stale. Records
// a rule changes are reached through the draft (draftTagged, state.x[key]), never through the
// read-only lookups (invoicesOf, readTagged). The customer pages (pages.ts) and the admin
// endpoints use the same transitions: payRentInvoice, placeDepositHold, saveCard,
// extendCheckout, confirmRefunds.
import { formatCents } from '../render/money.js';
import { assertAvailable, isAvailable } from './availability.js';
import { addDaysToDate, localNow, localNowMinutes, parseLocal, utcStamp } from './clock.js';
import { ApiError, apiError } from './errors.js';
import { type RuleEnv, CHARGE_TYPES, activeReservations, carOf, effectiveStatus, isApprovedToDrive } from './facts.js';
import { type PriceBreakdown, priceTrip, tripDays } from './pricing.js';
import { type CheckedTrip, checkOperatingHours, checkTrip, parseTripRequest } from './trip-request.js';
import {
  type AgentFlowRec,
  type CardRec,
  type CustomerRec,
  type InvoiceItemRec,
  type InvoiceRec,
  type ReservationRec,
  type SandboxState,
  draftTagged,
  forgetIndexes,
  taggedCountAtMost,
} from './state.js';

// ---------------------------------------------------------------- reservations

function rentItems(env: RuleEnv, b: PriceBreakdown): InvoiceItemRec[] {
  const item = (amount: number, description: string) => ({ id: env.newId(), amount, description });
  const items = [item(b.rent_subtotal, `Rent: ${b.days} day${b.days === 1 ? '' : 's'} at ${formatCents(b.day_rate)} a day`)];
  if (b.rent_discount_amount) items.push(item(-b.rent_discount_amount, `Duration discount (${b.duration_discount_percent} %)`));
  if (b.promo_discount_amount) items.push(item(-b.promo_discount_amount, `Promo code ${b.promo_code}`));
  if (b.protection_total) items.push(item(b.protection_total, `Protection (${b.protection_plan})`));
  items.push(item(b.trip_fee_total, 'Trip fee'));
  if (b.delivery_total) items.push(item(b.delivery_total, 'Delivery'));
  for (const e of b.extras) items.push(item(e.total, `${e.title}: ${b.days} day${b.days === 1 ? '' : 's'}`));
  if (b.unlimited_mileage_total) items.push(item(b.unlimited_mileage_total, 'Unlimited mileage'));
  return items;
}

function addInvoice(
  state: SandboxState,
  env: RuleEnv,
  r: ReservationRec,
  type: string,
  billing_status: InvoiceRec['billing_status'],
  description: string,
  items: InvoiceItemRec[],
): InvoiceRec {
  const inv: InvoiceRec = {
    id: env.newId(),
    customer_id: r.customer_id,
    reservation_uuid: r.uuid,
    created_at: utcStamp(env.now),
    type,
    billing_status,
    amount: items.reduce((s, i) => s + i.amount, 0),
    description,
    items,
  };
  state.invoices[inv.id] = inv;
  return inv;
}

/** A reservation's invoices through the draft, for rules that change them. */
const scanInvoices = (state: SandboxState, uuid: string) => draftTagged(state, 'invoices', `r:${uuid}`).filter((i) => i.reservation_uuid === uuid);

/** Creates the reservation with its RENT and DEPOSIT invoices, both ISSUED (unpaid). */
export function insertReservation(state: SandboxState, env: RuleEnv, customer: CustomerRec, trip: CheckedTrip): ReservationRec {
  const { car, request, breakdown } = trip;
  const r: ReservationRec = {
    uuid: env.newId(),
    customer_id: customer.id,
    car_id: car.car_id,
    status: 'new',
    date_checkin: request.date_checkin,
    date_checkout: request.date_checkout,
    days: breakdown.days,
    options: request.options,
    extras: request.extras,
    promo: trip.selection.promo,
    pricing: breakdown,
    created_at: env.now.toISOString(),
    cancelled_at: null,
    cancellation: null,
    legacy_cancellation: false,
    manual_adjustment: false,
    extensions: [],
  };
  state.reservations[r.uuid] = r;
  addInvoice(state, env, r, 'RENT', 'ISSUED', `Rent for ${car.name}, ${r.date_checkin} to ${r.date_checkout}`, rentItems(env, breakdown));
  if (breakdown.deposit_cents > 0) {
    addInvoice(state, env, r, 'DEPOSIT', 'ISSUED', `Refundable deposit for ${car.name}`, [
      { id: env.newId(), amount: breakdown.deposit_cents, description: 'Refundable deposit (card authorization)' },
    ]);
  }
  if (trip.promo?.one_time) {
    const used = (state.usedPromos[customer.id] ??= []);
    if (!used.includes(trip.promo.code)) used.push(trip.promo.code);
  }
  forgetIndexes(state);
  return r;
}

/** POST /my/reservation: revalidates price, eligibility and availability, then creates. */
export function createReservation(state: SandboxState, env: RuleEnv, customer: CustomerRec, body: unknown): string {
  const trip = checkTrip(state, env, parseTripRequest(body, 'create'), customer, 'create');
  if (!isApprovedToDrive(customer, env.now)) {
    throw apiError('driver_not_approved', 'The driver is not approved to drive: check GET /my/verification');
  }
  // The tag lists a superset of the active trips: fewer keys than the maximum need no record
  // read (a server with thousands of active trips would otherwise read them all per create).
  const max = env.config.maxActiveReservations;
  if (taggedCountAtMost(state, 'reservations', `n:${customer.id}`) >= max && activeReservations(state, env, customer.id).length >= max) {
    throw apiError(
      'active_reservation_exists',
      `You already have ${env.config.maxActiveReservations} active reservations, the maximum`,
    );
  }
  assertAvailable(state, trip.car, trip.request.checkin, trip.request.checkout);
  return insertReservation(state, env, customer, trip).uuid;
}

export function reservationOf(state: SandboxState, customer: CustomerRec, uuid: string): ReservationRec {
  const r = state.reservations[uuid];
  // Another customer's reservation is indistinguishable from a missing one.
  if (!r || r.customer_id !== customer.id) throw apiError('reservation_not_found', `No reservation ${uuid} for this customer`);
  return r;
}

/**
 * DELETE /my/reservation/{uuid}. Only a `new` trip that has not started can be cancelled.
 * Free until freeCancellationHours before check-in; later a FEE_RENT of one day's rent.
 * Unpaid charges are cancelled, a deposit HOLD is released, paid rent minus the fee goes
 * to refund review with a refund receipt recorded but not yet confirmed.
 */
export function cancelReservation(state: SandboxState, env: RuleEnv, customer: CustomerRec, uuid: string): 'OK' {
  const r = reservationOf(state, customer, uuid);
  const car = carOf(env, r);
  const status = effectiveStatus(r, env);
  if (r.legacy_cancellation || status !== 'new') {
    throw apiError('reservation_not_cancellable', `A ${r.legacy_cancellation ? 'cancelled' : status} reservation cannot be cancelled`);
  }
  const nowLocal = localNowMinutes(env.now, car.timeZone);
  const checkin = parseLocal(r.date_checkin) as number;
  if (nowLocal >= checkin) throw apiError('reservation_not_cancellable', 'The trip has started and can no longer be cancelled');

  const invoices = scanInvoices(state, r.uuid);
  const paid = invoices
    .filter((i) => (i.type === 'RENT' || i.type === 'EXTEND') && i.billing_status === 'PAID')
    .reduce((s, i) => s + i.amount, 0);
  const late = checkin - nowLocal < env.config.freeCancellationHours * 60;
  const fee = late ? Math.min(r.pricing.discounted_day_rate, r.pricing.rent_after_discount) : 0;

  for (const inv of invoices) {
    if ((CHARGE_TYPES.has(inv.type) || inv.type === 'DEBT') && inv.billing_status === 'ISSUED') inv.billing_status = 'CANCELLED';
  }
  let holdRelease: 'not_required' | 'released' = 'not_required';
  for (const inv of invoices) {
    if (inv.type !== 'DEPOSIT') continue;
    if (inv.billing_status === 'HOLD') holdRelease = 'released';
    if (inv.billing_status === 'HOLD' || inv.billing_status === 'ISSUED') inv.billing_status = 'CANCELLED';
  }
  const feeCoveredByPaidRent = fee > 0 && paid >= fee;
  if (fee > 0) {
    addInvoice(state, env, r, 'FEE_RENT', feeCoveredByPaidRent ? 'PAID' : 'ISSUED', 'Late cancellation fee', [
      { id: env.newId(), amount: fee, description: `Cancellation less than ${env.config.freeCancellationHours} hours before check-in: one day's rent` },
    ]);
  }
  const refundAmount = paid - (feeCoveredByPaidRent ? fee : 0);
  let refundDate: string | null = null;
  if (refundAmount > 0) {
    const items = [{ id: env.newId(), amount: -paid, description: 'Refund of paid rent' }];
    if (feeCoveredByPaidRent) items.push({ id: env.newId(), amount: fee, description: 'Cancellation fee retained' });
    const refundInvoice = addInvoice(state, env, r, 'REFUND', 'ISSUED', 'Refund after cancellation', items);
    const refundId = `rfd_${env.newId().replace(/-/g, '').slice(0, 24)}`;
    state.refunds[refundId] = {
      id: refundId,
      customer_id: r.customer_id,
      reservation_uuid: r.uuid,
      invoice_id: refundInvoice.id,
      amount_cents: refundAmount,
      status: 'recorded_unconfirmed',
      confirmed_at: null,
    };
    refundDate = addDaysToDate(localNow(env.now, car.timeZone).slice(0, 10), env.config.refundDays);
  }
  r.status = 'cancelled';
  r.cancelled_at = env.now.toISOString();
  r.cancellation = { hold_release: holdRelease, refund_review: refundAmount > 0 ? 'pending' : 'not_required', refund_date: refundDate };
  forgetIndexes(state);
  return 'OK';
}

/** Marks recorded refunds of a reservation as confirmed and closes its refund review. */
export function confirmRefunds(state: SandboxState, env: RuleEnv, uuid: string): number {
  const r = state.reservations[uuid];
  if (!r) throw apiError('reservation_not_found', `No reservation ${uuid}`);
  const pending = draftTagged(state, 'refunds', `r:${uuid}`).filter((f) => f.reservation_uuid === uuid && f.status === 'recorded_unconfirmed');
  for (const f of pending) {
    f.status = 'confirmed';
    f.confirmed_at = utcStamp(env.now);
    const inv = state.invoices[f.invoice_id];
    if (inv && inv.billing_status === 'ISSUED') inv.billing_status = 'PAID';
  }
  if (pending.length > 0 && r.cancellation) r.cancellation.refund_review = 'closed';
  forgetIndexes(state);
  return pending.length;
}

// ---------------------------------------------------------------- debt and payment

function debtItems(charges: readonly InvoiceRec[]): InvoiceItemRec[] {
  // The item id is the charge invoice's id: stable across refreshes, and it names the charge.
  return charges.map((c) => ({ id: c.id, amount: c.amount, description: `${c.type}: ${c.description}` }));
}

const issuedCharges = (invoices: readonly InvoiceRec[]) =>
  invoices.filter((i) => CHARGE_TYPES.has(i.type) && i.billing_status === 'ISSUED');

const sameItems = (a: readonly InvoiceItemRec[], b: readonly InvoiceItemRec[]) =>
  a.length === b.length && a.every((x, i) => x.id === b[i].id && x.amount === b[i].amount);

/** Whether reading this reservation must create, refresh or retire its debt invoice. */
export function debtInvoiceStale(invoices: readonly InvoiceRec[]): boolean {
  const charges = issuedCharges(invoices);
  const debts = invoices.filter((i) => i.type === 'DEBT' && i.billing_status === 'ISSUED');
  if (charges.length === 0) return debts.length > 0;
  return debts.length !== 1 || !sameItems(debts[0].items, debtItems(charges));
}

/**
 * The side effect of reading a reservation that owes money: one ISSUED DEBT invoice whose
 * items are the outstanding charges. Returns the debt invoice, or null when nothing is owed.
 */
export function ensureDebtInvoice(state: SandboxState, env: RuleEnv, uuid: string): InvoiceRec | null {
  const r = state.reservations[uuid];
  const invoices = scanInvoices(state, uuid);
  const charges = issuedCharges(invoices);
  const debts = invoices.filter((i) => i.type === 'DEBT' && i.billing_status === 'ISSUED');
  if (!debtInvoiceStale(invoices)) return debts[0] ?? null;
  if (charges.length === 0) {
    for (const d of debts) d.billing_status = 'CANCELLED';
    forgetIndexes(state);
    return null;
  }
  const [keep, ...extra] = debts;
  for (const d of extra) d.billing_status = 'CANCELLED';
  const items = debtItems(charges);
  let debt: InvoiceRec;
  if (keep) {
    keep.items = items;
    keep.amount = items.reduce((s, i) => s + i.amount, 0);
    debt = keep;
  } else {
    debt = addInvoice(state, env, r, 'DEBT', 'ISSUED', 'Amount due on this reservation', items);
  }
  forgetIndexes(state);
  return debt;
}

/**
 * Pays everything owed on a reservation (the page's payment_type `reservation`, API `rent`):
 * outstanding charges and the debt invoice become PAID. Paying the rent of an upcoming trip
 * revalidates availability, because an unpaid reservation holds no calendar slot.
 */
export function payRentInvoice(state: SandboxState, env: RuleEnv, uuid: string): { paid_cents: number; invoice_ids: string[] } {
  const r = state.reservations[uuid];
  if (!r) throw apiError('reservation_not_found', `No reservation ${uuid}`);
  const invoices = scanInvoices(state, uuid);
  const charges = issuedCharges(invoices);
  if (charges.length === 0) throw apiError('nothing_to_pay', 'Nothing is owed on this reservation');
  if (effectiveStatus(r, env) === 'new') {
    const car = carOf(env, r);
    assertAvailable(state, car, parseLocal(r.date_checkin) as number, parseLocal(r.date_checkout) as number, r.uuid);
  }
  const paidCents = charges.reduce((s, c) => s + c.amount, 0);
  const debt = invoices.find((i) => i.type === 'DEBT' && i.billing_status === 'ISSUED');
  for (const c of charges) c.billing_status = 'PAID';
  if (debt) {
    debt.items = debtItems(charges);
    debt.amount = paidCents;
    debt.billing_status = 'PAID';
  }
  forgetIndexes(state);
  return { paid_cents: paidCents, invoice_ids: charges.map((c) => c.id) };
}

/** The deposit becomes a card authorization (HOLD), not a charge. */
export function placeDepositHold(state: SandboxState, _env: RuleEnv, uuid: string): { held_cents: number; invoice_id: string } {
  const r = state.reservations[uuid];
  if (!r) throw apiError('reservation_not_found', `No reservation ${uuid}`);
  if (r.status === 'cancelled') throw apiError('reservation_cancelled', 'The reservation is cancelled');
  const deposit = scanInvoices(state, uuid).find((i) => i.type === 'DEPOSIT' && i.billing_status === 'ISSUED');
  if (!deposit) throw apiError('nothing_to_pay', 'No deposit is due on this reservation');
  deposit.billing_status = 'HOLD';
  forgetIndexes(state);
  return { held_cents: deposit.amount, invoice_id: deposit.id };
}

export interface CardInput {
  card_brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** Saves (or replaces) the customer's one card. */
export function saveCard(state: SandboxState, env: RuleEnv, customerId: string, input: CardInput): CardRec {
  const customer = state.customers.find((c) => c.id === customerId);
  if (!customer) throw apiError('not_found', `No customer ${customerId}`);
  if (!customer.card_payments_enabled) throw apiError('card_payments_not_enabled', 'Card payments are not enabled for this account');
  if (!/^\d{4}$/.test(input.last4)) throw apiError('invalid_request', 'last4 must be four digits');
  if (!Number.isInteger(input.exp_month) || input.exp_month < 1 || input.exp_month > 12) {
    throw apiError('invalid_request', 'exp_month must be 1..12');
  }
  const thisYear = env.now.getUTCFullYear();
  if (!Number.isInteger(input.exp_year) || input.exp_year < thisYear || input.exp_year > thisYear + 20) {
    throw apiError('invalid_request', 'exp_year must be this year or later');
  }
  const card: CardRec = { id: `card_${env.newId().replace(/-/g, '').slice(0, 24)}`, ...input };
  customer.card = card;
  forgetIndexes(state);
  return card;
}

// ---------------------------------------------------------------- extensions

export interface ExtensionQuote {
  additional_days: number;
  total_amount: number;
  current_checkout: string;
  new_checkout: string;
  days: number;
  is_available: boolean;
}

/**
 * The price of moving the checkout of a `new` reservation: the whole trip repriced with the
 * one pricing function (same options, extras and promo), minus what is already charged;
 * never negative, so a longer trip that crosses a discount threshold costs nothing extra.
 */
export function priceExtension(state: SandboxState, env: RuleEnv, r: ReservationRec, newCheckout: unknown): ExtensionQuote {
  if (effectiveStatus(r, env) !== 'new') throw apiError('reservation_not_active', 'Only a new reservation can be extended');
  const car = carOf(env, r);
  const target = parseLocal(newCheckout);
  if (target === null) throw apiError('invalid_checkout', 'The new checkout must be a real date in the form YYYY-MM-DDTHH:MM');
  const current = parseLocal(r.date_checkout) as number;
  if (target <= current) throw apiError('invalid_checkout', `The new checkout must be later than ${r.date_checkout}`);
  if (target < localNowMinutes(env.now, car.timeZone)) throw apiError('invalid_checkout', 'The new checkout is in the past');
  try {
    checkOperatingHours(env.config, { field: 'checkout', minutes: target });
  } catch (err) {
    throw err instanceof ApiError ? apiError('invalid_checkout', err.description) : err;
  }
  const checkin = parseLocal(r.date_checkin) as number;
  const days = tripDays(checkin, target);
  if (days > env.config.maxTripDays) throw apiError('invalid_checkout', `A trip lasts at most ${env.config.maxTripDays} days`);
  const repriced = priceTrip(car, days, {
    protection_plan: r.options.protection_plan,
    mileage_type: r.options.mileage_type,
    delivery_type: r.options.delivery_type,
    extras: r.extras,
    promo: r.promo,
  });
  const charged =
    r.pricing.final_total +
    scanInvoices(state, r.uuid)
      .filter((i) => i.type === 'EXTEND' && i.billing_status !== 'CANCELLED')
      .reduce((s, i) => s + i.amount, 0);
  return {
    additional_days: days - r.days,
    total_amount: Math.max(0, repriced.final_total - charged),
    current_checkout: r.date_checkout,
    new_checkout: newCheckout as string,
    days,
    is_available: isAvailable(state, car, current, target, r.uuid),
  };
}

/** Executes a confirmed extension: new checkout, and an ISSUED EXTEND invoice when it costs. */
export function extendCheckout(state: SandboxState, env: RuleEnv, uuid: string, newCheckout: string): ExtensionQuote & { invoice_id: string | null } {
  const r = state.reservations[uuid];
  if (!r) throw apiError('reservation_not_found', `No reservation ${uuid}`);
  const quote = priceExtension(state, env, r, newCheckout);
  if (!quote.is_available) throw apiError('car_not_available', 'The car is not available until the new checkout');
  let invoiceId: string | null = null;
  if (quote.total_amount > 0) {
    const inv = addInvoice(state, env, r, 'EXTEND', 'ISSUED', `Extension to ${newCheckout}`, [
      { id: env.newId(), amount: quote.total_amount, description: `Extension from ${r.date_checkout} to ${newCheckout} (${quote.additional_days} more days)` },
    ]);
    invoiceId = inv.id;
  }
  r.extensions.push({ from_checkout: r.date_checkout, to_checkout: newCheckout, invoice_id: invoiceId, at: env.now.toISOString() });
  r.date_checkout = newCheckout;
  r.days = quote.days;
  forgetIndexes(state);
  return { ...quote, invoice_id: invoiceId };
}

// ---------------------------------------------------------------- agent flows

export function recordAgentFlow(state: SandboxState, flow: AgentFlowRec): void {
  state.agentFlows[flow.id] = flow;
  forgetIndexes(state);
}
