// What was booked and where the deposit stands, for `trips <uuid>`. The spec's Trip lists
// neither the booked options nor extras nor the promo code ("other reservation fields: not
// shown"), but a server may return them (the sandbox does, with the names of the request:
// `options`, `extras`, `promo_code`): each is read defensively and shown only when present
// and well-formed, so a server that sends none of them gets no section at all.
import type { Invoice, Trip } from '../api/schemas.js';
import { formatCents } from './money.js';
import type { Output } from './output.js';
import { clean } from '../text/sanitize.js';

/** [label, what a terminal shows, the bare value a pipe gets]. */
type Pairs = Array<[string, string | null, string]>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const PROTECTION: Record<string, string> = { minimum: 'minimum (the default)', standard: 'standard' };
const MILEAGE: Record<string, string> = { limited: 'limited (the default)', unlimited: 'unlimited' };

/** The title of an extra from the car's `prices.extras`, when the car carries it. */
function extraTitle(trip: Trip, type: string): string {
  const extras = record(record(trip.car)?.prices)?.extras;
  const found = Array.isArray(extras) ? extras.map(record).find((e) => e?.item_type === type) : undefined;
  const title = text(found?.title);
  return title && title !== type ? `${clean(title)} (${clean(type)})` : clean(type);
}

/** Booked options, extras, delivery and promo, as label/value rows; empty when the server sends none. */
export function bookingPairs(trip: Trip): Pairs {
  const raw = trip as Record<string, unknown>;
  const options = record(raw.options);
  const rows: Pairs = [];
  const protection = text(options?.protection_plan);
  if (protection) rows.push(['protection', PROTECTION[protection] ?? clean(protection), clean(protection)]);
  const mileage = text(options?.mileage_type);
  if (mileage) rows.push(['mileage', MILEAGE[mileage] ?? clean(mileage), clean(mileage)]);
  const delivery = text(options?.delivery_type);
  const address = text(options?.delivery_address);
  if (delivery === 'delivery') rows.push(['delivery', `to ${address ? clean(address) : 'an address not stated'}`, 'delivery']);
  else if (delivery === 'pickup') rows.push(['delivery', 'none: picked up at the car (the default)', 'pickup']);
  else if (delivery) rows.push(['delivery', `${clean(delivery)}${address ? ` to ${clean(address)}` : ''}`, clean(delivery)]);
  // its own field in a pipe; a terminal reads it in the delivery line (null: not shown there)
  if (delivery && address) rows.push(['delivery address', null, clean(address)]);
  if (Array.isArray(raw.extras)) {
    const types = raw.extras.filter((e): e is string => typeof e === 'string' && e !== '');
    rows.push(['extras', types.length ? types.map((t) => extraTitle(trip, t)).join(', ') : 'none', types.map((t) => clean(t)).join(',')]);
  }
  if ('promo_code' in raw && (raw.promo_code === null || typeof raw.promo_code === 'string')) {
    rows.push(['promo code', text(raw.promo_code) ? clean(raw.promo_code as string) : 'none', text(raw.promo_code) ? clean(raw.promo_code as string) : '']);
  }
  return rows;
}

export type DepositState = 'held' | 'paid' | 'due' | 'none' | 'unknown';

/** The deposit invoices' actual state (`billing_status`: the legacy `status` shows a HOLD as PAID). */
export function depositState(invoices: readonly Invoice[] | undefined): DepositState {
  if (!invoices) return 'unknown';
  const deposits = invoices.filter((i) => i.type.toUpperCase() === 'DEPOSIT' && i.billing_status !== 'CANCELLED');
  if (deposits.some((i) => i.billing_status === 'ISSUED')) return 'due';
  if (deposits.some((i) => i.billing_status === 'HOLD')) return 'held';
  if (deposits.some((i) => i.billing_status === 'PAID')) return 'paid';
  return 'none';
}

/** The deposit, in words: due (and how to pay it), authorised, paid, or no open deposit invoice. */
export function depositPair(trip: Trip, cli: string, uuid: string | undefined): [string, string, string] | undefined {
  const state = depositState(trip.invoices);
  if (state === 'unknown') return undefined;
  const deposits = (trip.invoices ?? []).filter((i) => i.type.toUpperCase() === 'DEPOSIT');
  const open = deposits.find((i) => i.billing_status === (state === 'due' ? 'ISSUED' : state === 'held' ? 'HOLD' : 'PAID'));
  const amount = open ? `${formatCents(Math.abs(open.amount))} ` : '';
  switch (state) {
    case 'due':
      return ['deposit status', `${amount}due, not authorised yet${uuid ? ` (the customer authorises it on the page from \`${cli} pay-link ${uuid} --type deposit\`)` : ''}`, 'due'];
    case 'held':
      return ['deposit status', `${amount}authorised: a hold on the card, not a charge`, 'held'];
    case 'paid':
      return ['deposit status', `${amount}paid`, 'paid'];
    default:
      return ['deposit status', deposits.length ? 'no open deposit invoice (cancelled or released)' : 'no deposit invoice', 'none'];
  }
}

/** The "Booking" section of `trips <uuid>`: nothing at all when the server sends none of it. */
export function renderBooking(out: Output, trip: Trip, cli: string, uuid: string | undefined): void {
  const rows = bookingPairs(trip);
  const deposit = depositPair(trip, cli, uuid);
  if (deposit) rows.push(deposit);
  if (rows.length === 0) return;
  // a terminal gets a section in words; a pipe one `label<TAB>value` line each, bare values
  if (out.tty) out.line();
  out.section('Booking');
  out.pairs(rows.map(([label, shown, bare]) => [label, bare, shown]));
}
