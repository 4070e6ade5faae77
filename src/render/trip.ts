// Trips and their money. Each block says what it is and what it is not: a financial summary
// is the current record, not a final cost; a null total is "unknown", never $0.00; a
// cancellation does not mean money was returned.
import { cell, NOT_STATED, stated, type TableLayout } from './table.js';
import type { PaymentStatus, Trip } from '../api/schemas.js';
import { zoneOf } from '../input/dates.js';
import { formatLocal } from './dates.js';
import { invoiceNotes, invoiceRecords, renderInvoiceTable } from './invoice.js';
import { formatCents, formatCentsOrUnknown } from './money.js';
import type { Output } from './output.js';
import { clean } from '../text/sanitize.js';
import { renderBooking } from './trip-booking.js';
import { renderCancellationMoney, renderRefundRecords } from './cancellation.js';

type FinancialSummary = NonNullable<Trip['financial_summary']>;

// The spec requires no member of a Trip: every one below may be absent, and is then shown
// as missing (a dash in a table, "not stated" beside a label), never guessed.

const localTime = (value: string | undefined) => (value === undefined ? undefined : value.replace('T', ' '));

/** "2026-12-01 10:00 → 2026-12-04 10:00 America/Los_Angeles": both ends share the car's zone. */
export function formatTripDates(trip: Pick<Trip, 'date_checkin' | 'date_checkout' | 'car'>): string {
  const city = trip.car?.city;
  const from = localTime(trip.date_checkin) ?? NOT_STATED;
  const to = trip.date_checkout === undefined ? `${NOT_STATED} ${zoneOf(city) ?? '(car-local)'}` : formatLocal(trip.date_checkout, city);
  return `${from} → ${to}`;
}

/** null is the API's "unknown" (never $0.00); an absent member is a dash. */
const centsOrUnknown = (cents: number | null | undefined) => (cents === undefined ? undefined : formatCentsOrUnknown(cents));

/**
 * One trip as table cells, one value per cell: on a terminal the zone of the dates is in
 * the table's heading (see `tripTables`), so each date stays on one line.
 */
export function tripRow(trip: Trip): unknown[] {
  return [
    trip.uuid,
    trip.car?.name,
    localTime(trip.date_checkin),
    localTime(trip.date_checkout),
    trip.days,
    trip.status,
    centsOrUnknown(trip.financial_summary?.trip_total_cents),
    centsOrUnknown(trip.financial_summary?.deposit_cents),
    cell(trip.balance_cents, formatCents),
  ];
}

export const TRIP_HEADERS = ['UUID', 'CAR', 'CHECK-IN', 'CHECK-OUT', 'DAYS', 'STATUS', 'TRIP TOTAL', 'DEPOSIT', 'BALANCE'];
// a narrow terminal leaves out the amounts, then the days, then the check-out (`trips <uuid>` has them all)
export const TRIP_LAYOUT: TableLayout = { ids: [0], text: [1], alignRight: [4, 6, 7, 8], optional: [7, 8, 6, 4, 3] };

/** The zone a trip's dates are in: the car city's, or "car-local" when the city is unknown. */
export const tripZone = (trip: Pick<Trip, 'car'>): string => zoneOf(trip.car?.city) ?? 'car-local';

/**
 * Trips grouped by the zone of their dates, in first-seen order: one table per zone, with the
 * zone in its heading, so no row repeats it.
 */
export function groupByZone(trips: Trip[]): Array<[string, Trip[]]> {
  const groups = new Map<string, Trip[]>();
  for (const trip of trips) groups.set(tripZone(trip), [...(groups.get(tripZone(trip)) ?? []), trip]);
  return [...groups];
}

/**
 * In a pipe: one trip per line, one value per field; `section` (active or history) replaces
 * the headings of a terminal, the zone and the car alias have fields of their own.
 */
export const TRIP_PIPE_FIELDS = ['uuid', 'section', 'car alias', 'car', 'check-in', 'check-out', 'zone', 'days', 'status', 'trip total', 'deposit', 'balance'];
export function tripPipeRow(section: 'active' | 'history', trip: Trip): unknown[] {
  const [uuid, name, checkin, checkout, ...rest] = tripRow(trip);
  return [uuid, section, trip.car?.car_alias, name, checkin, checkout, zoneOf(trip.car?.city), ...rest];
}

/** A car-local calendar date (a refund date) labelled with the car's zone. */
function formatLocalDay(day: string, city?: string | null): string {
  const zone = zoneOf(city);
  return zone ? `${day} ${zone}` : `${day} (car-local)`;
}

/** One line: what, if anything, moves money next. */
export function describePaymentStatus(ps: PaymentStatus, city?: string | null): string {
  const amount = ps.amount === undefined ? 'an unknown amount' : formatCents(ps.amount);
  switch (ps.type) {
    case 'settled':
      return 'settled: nothing to pay';
    case 'to_pay':
      return `to pay: ${amount}${ps.invoice_id ? ` (payable invoice ${clean(ps.invoice_id)})` : ''}`;
    case 'refund':
      return `refund: ${amount}${ps.date ? ` expected by ${formatLocalDay(ps.date, city)}` : ''}`;
    default:
      return clean(ps.type);
  }
}

export function renderFinancialSummary(out: Output, fs: FinancialSummary): void {
  out.section('Financial summary (the current record, not a final cost guarantee)');
  const total = formatCentsOrUnknown(fs.trip_total_cents);
  const deposit = formatCentsOrUnknown(fs.deposit_cents);
  out.pairs([
    [
      'trip total',
      total,
      fs.trip_total_cents === null
        ? 'unknown (the billing records cannot be classified, e.g. a paid trip that was cancelled or a manual adjustment)'
        : `${total} (after discounts, extensions, fees and adjustments; without the deposit)`,
    ],
    ['deposit', deposit, `${deposit} (required by the booking; says nothing about whether it was held, charged, released or refunded)`],
  ]);
}

/**
 * The whole reservation: trip, payment status, financial summary, invoices, cancellation.
 * `cli` is how the next-step hint spells the command (e.g. `carrental --sandbox`);
 * `requested` is the uuid the command asked for, used when the trip does not state its own.
 */
export function renderTripDetail(out: Output, trip: Trip, cli = 'carrental', requested?: string): void {
  const city = trip.car?.city;
  const uuid = trip.uuid ?? requested;
  out.section(`Trip ${uuid === undefined ? '(uuid not stated)' : clean(uuid)}`);
  const ps = trip.payment_status;
  const zone = zoneOf(city);
  out.pairs([
    ['reservation', uuid ?? NOT_STATED, null],
    ['car', trip.car ? trip.car.name : NOT_STATED, trip.car ? `${trip.car.name} (${trip.car.car_alias})` : undefined],
    ['car alias', trip.car?.car_alias, null],
    ['status', stated(trip.status), `${stated(trip.status)}${trip.is_booked === undefined ? '' : ` (${trip.is_booked ? 'booked' : 'not booked'})`}`],
    ['booked', trip.is_booked === undefined ? undefined : trip.is_booked ? 'yes' : 'no', null],
    ['check-in', stated(localTime(trip.date_checkin)), stated(trip.date_checkin, (d) => formatLocal(d, city))],
    ['check-out', stated(localTime(trip.date_checkout)), stated(trip.date_checkout, (d) => formatLocal(d, city))],
    ['zone', zone ?? 'car-local', null],
    ['days', stated(trip.days)],
    ['balance', stated(trip.balance_cents, formatCents)],
    ['payment', stated(ps?.type), stated(ps, (p) => describePaymentStatus(p, city))],
    ['payment amount', ps?.amount === undefined ? undefined : formatCents(ps.amount), null],
    ['payable invoice', ps?.invoice_id, null],
    ['refund expected by', ps?.date, null],
  ]);
  // options, extras, delivery, promo and the deposit's state: their own section (trip-booking.ts)
  renderBooking(out, trip, cli, uuid);
  if (out.tty) out.line();
  if (trip.financial_summary) renderFinancialSummary(out, trip.financial_summary);
  else {
    out.section('Financial summary');
    out.pairs([['summary', NOT_STATED]]);
  }
  if (trip.invoices) {
    if (!out.tty) invoiceRecords(out, trip.invoices);
    else {
      out.line();
      out.heading('Invoices');
      if (trip.invoices.length === 0) out.info('no invoices');
      else renderInvoiceTable(out, trip.invoices);
    }
    invoiceNotes(out, trip.invoices);
  }
  if (trip.cancellation_outcome) {
    if (out.tty) out.line();
    // worded as `cancel` words it (one wording for one thing), then each refund as a record
    renderCancellationMoney(out, trip, trip.cancellation_outcome, { inTripDetail: true });
    if (trip.cancellation_outcome.status === 'cancelled') renderRefundRecords(out, trip.cancellation_outcome.refunds ?? []);
  }
  if (trip.payment_status?.type === 'to_pay' && uuid !== undefined) {
    out.info(`next: the customer pays on the page from \`${cli} pay-link ${uuid}\`; then re-read with \`${cli} trips ${uuid}\`.`);
  }
}
