// What a cancellation did to the money, read from the reservation after the cancel: what was
// owed for rent (and any cancellation fee), what was held for the deposit, what was paid, and
// what happens to each. `trips` showed "$250 due" a minute before; a bare "deposit hold
// not_required" read beside it sounds like a contradiction, so a terminal gets sentences that
// name the amount first, and a pipe gets a label and one plain value a line.
import type { CancellationOutcome, Trip } from '../api/schemas.js';
import { formatCents } from './money.js';
import type { Output } from './output.js';
import { cell } from './table.js';
import { formatUtc } from './dates.js';
import { zoneOf } from '../input/dates.js';

type Invoice = NonNullable<Trip['invoices']>[number];
type Pair = [label: string, value: unknown, shown?: unknown];

// the spec's invoice types: RENT and EXTEND are the rent, FEE_RENT a fee, DEPOSIT the deposit
const isRent = (i: Invoice) => i.type === 'RENT' || i.type === 'EXTEND';
// a charge's sign follows the ledger's convention, which the spec leaves open: its size is what was owed
const sum = (invoices: Invoice[]) => invoices.reduce((s, i) => s + Math.abs(i.amount), 0);
const all = (invoices: Invoice[], status: string) => invoices.length > 0 && invoices.every((i) => i.billing_status === status);

/** The rent's state after the cancel, one word for a pipe. */
function rentState(rent: Invoice[]): string {
  if (all(rent, 'PAID')) return 'paid';
  if (all(rent, 'CANCELLED')) return 'no_longer_owed';
  if (rent.some((i) => i.billing_status === 'ISSUED')) return 'owed';
  return 'partly_paid';
}

const RENT_SHOWN: Record<string, string> = {
  paid: 'paid (what happens to the payment: see "paid")',
  no_longer_owed: 'unpaid: no longer owed',
  owed: 'still owed',
  partly_paid: 'partly paid (what happens to the payment: see "paid")',
};

const HOLD_SHOWN: Record<string, string> = {
  not_required: 'never held on the card: nothing to release',
  pending: 'held on the card: the hold is not released yet (it is not charged)',
  released: 'held on the card: the hold is released, nothing is charged',
  manual_review: 'held on the card: its release is in manual review',
  unknown: 'the records cannot tell whether it was held or released',
};

const REVIEW_SHOWN: Record<string, string> = {
  pending: 'a refund review is open',
  closed: 'the refund review is closed',
  unknown: 'the records cannot tell whether a refund review is open',
};

const REFUND_SHOWN: Record<string, string> = {
  confirmed: 'refunded (confirmed)',
  recorded_unconfirmed: 'to be refunded (recorded, not confirmed)',
  failed: 'a refund that failed',
  unknown: 'a refund in an unknown state',
};

function rentPairs(rent: Invoice[]): Pair[] {
  if (!rent.length) return [['rent owed', 'not stated']];
  const owed = formatCents(sum(rent));
  const state = rentState(rent);
  return [
    ['rent owed', owed, `${owed}, ${RENT_SHOWN[state]}`],
    ['rent state', state, null],
  ];
}

function feePairs(fees: Invoice[], rentPaid: boolean): Pair[] {
  if (!fees.length) return [['cancellation fee', 'none']];
  const fee = formatCents(sum(fees));
  const state = all(fees, 'PAID') ? 'paid' : fees.some((i) => i.billing_status === 'ISSUED') ? 'owed' : 'cancelled';
  const shown = state === 'owed' ? 'owed: to pay' : state === 'paid' ? (rentPaid ? 'kept from the rent paid' : 'paid') : 'cancelled: not owed';
  return [
    ['cancellation fee', fee, `${fee}, ${shown}`],
    ['fee state', state, null],
  ];
}

function depositPairs(trip: Trip, deposits: Invoice[], hold: string | undefined): Pair[] {
  const cents = trip.financial_summary?.deposit_cents ?? (deposits.length ? sum(deposits) : null);
  if (!cents && !deposits.length) return [['deposit', 'none']];
  const amount = cents === null || cents === undefined ? 'an unknown amount' : formatCents(cents);
  // "no longer owed" only when the deposit's own record says so (its invoice is cancelled)
  const dropped = all(deposits, 'CANCELLED') ? ', and no longer owed' : '';
  const shown = hold ? `${HOLD_SHOWN[hold] ?? hold}${hold === 'not_required' ? dropped : ''}` : 'whether it was held is not reported';
  return [
    ['deposit', cell(cents, formatCents) ?? 'unknown', `${amount}, ${shown}`],
    ['deposit hold', hold ?? 'not_reported', null],
  ];
}

function paidPairs(trip: Trip, outcome: CancellationOutcome, paidCents: number, feeKept: number): Pair[] {
  // the API's word for the review, for scripts; a terminal reads an open or closed review
  // (none needed says nothing a person needs)
  const reviewStatus = outcome.refund_review?.status;
  const review: Pair = ['refund review', reviewStatus ?? 'not_reported', (reviewStatus && REVIEW_SHOWN[reviewStatus]) ?? null];
  if (paidCents === 0) return [['paid', formatCents(0), 'nothing was paid, so nothing is refunded'], review];
  const paid = formatCents(paidCents);
  const refunds = (outcome.refunds ?? []).filter((r) => r.status !== 'failed');
  const ps = trip.payment_status;
  const date = ps?.type === 'refund' ? ps.date : undefined;
  const pairs: Pair[] = [];
  let shown: string;
  if (refunds.length) {
    const refund = formatCents(refunds.reduce((s, r) => s + (r.amount_cents ?? 0), 0));
    const states = [...new Set(refunds.map((r) => r.status))];
    const state = states.length === 1 ? states[0]! : 'mixed';
    shown = `${refund} is ${REFUND_SHOWN[state] ?? `refunded in parts (${states.join(', ')})`}${date ? `, expected by ${date} ${zoneOf(trip.car?.city) ?? '(car-local)'}` : ''}`;
    pairs.push(['refund due', refund, null], ['refund state', state, null]);
    if (date) pairs.push(['refund expected', date, null]);
    // the records themselves, one id a line, for `trips <uuid>` and the support desk
    for (const r of refunds) pairs.push(['refund id', r.id, null]);
  } else if (outcome.refund_review?.status === 'pending') {
    shown = 'a refund review is open; no refund is recorded yet';
  } else {
    shown = 'no refund is recorded (that does not mean none is owed)';
  }
  if (feeKept) shown += `; ${formatCents(feeKept)} is kept as the cancellation fee`;
  return [['paid', paid, `${paid}: ${shown}`], review, ...pairs];
}

/**
 * The money of a cancelled reservation, from its detail read after the cancel. An outcome
 * other than `cancelled` (not cancelled, or unknown) says only what the records say.
 */
export function renderCancellationMoney(out: Output, trip: Trip, outcome: CancellationOutcome, opts: { inTripDetail?: boolean } = {}): void {
  // in a pipe, `trips <uuid>` has printed the deposit's amount in its financial summary: a
  // label is printed once per record (a terminal reads the deposit's sentence here as well)
  const pairs = (list: Pair[]) => out.pairs(opts.inTripDetail && !out.tty ? list.filter(([label]) => label !== 'deposit') : list);
  if (outcome.status !== 'cancelled') {
    renderNotCancelled(out, outcome);
    return;
  }
  if (trip.invoices === undefined) {
    // without the invoices nothing says what was owed or paid: "none" would be a guess
    out.section('Cancelled: what was owed, held and paid, and what happens to each');
    pairs([
      ['rent owed', 'not stated'],
      ['cancellation fee', 'not stated'],
      ...depositPairs(trip, [], outcome.hold_release?.status),
      ['paid', 'not stated'],
      ['refund review', outcome.refund_review?.status ?? 'not_reported', null],
    ]);
    out.info(`note: the API sent no invoices; \`trips ${trip.uuid ?? '<uuid>'}\` shows what it has.`);
    return;
  }
  const invoices = trip.invoices;
  const rent = invoices.filter(isRent);
  const fees = invoices.filter((i) => i.type === 'FEE_RENT');
  const paidCents = sum(rent.filter((i) => i.billing_status === 'PAID'));
  const feeKept = paidCents > 0 && all(fees, 'PAID') ? sum(fees) : 0;
  out.section('Cancelled: what was owed, held and paid, and what happens to each');
  pairs([
    ...rentPairs(rent),
    ...feePairs(fees, paidCents > 0),
    ...depositPairs(trip, invoices.filter((i) => i.type === 'DEPOSIT'), outcome.hold_release?.status),
    ...paidPairs(trip, outcome, paidCents, feeKept),
  ]);
  out.info('note: "cancelled" records the cancellation; money is returned only as the refunds above say.');
}

/** A reservation that is not cancelled, or whose records cannot tell. */
function renderNotCancelled(out: Output, outcome: CancellationOutcome): void {
  out.section('Cancellation');
  if (outcome.status === 'unknown') {
    out.pairs([['cancellation', 'unknown', 'unknown (the records cannot establish the outcome, e.g. a cancellation recorded before it was tracked)']]);
    out.info('note: whether money is owed or will be returned cannot be read from the cancellation records; check the payment status.');
    return;
  }
  out.pairs([['cancellation', 'not cancelled']]);
}

const REFUND_STATUS: Record<string, string> = {
  confirmed: 'confirmed',
  recorded_unconfirmed: 'recorded, not confirmed',
  failed: 'failed',
  unknown: 'unknown',
};

/**
 * A refund's confirmed_at is a record time like an invoice's created_at: `YYYY-MM-DDTHH:MM`
 * in UTC (the spec leaves its zone open; the sandbox documents UTC). Other forms, such as a
 * full ISO instant, name their own zone and are shown as sent.
 */
function formatRecordTime(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? formatUtc(value) : value;
}

/** Each refund record (`trips <uuid>`, for the support desk): its id, amount, state and when it was confirmed. */
export function renderRefundRecords(out: Output, refunds: NonNullable<CancellationOutcome['refunds']>): void {
  if (!refunds.length) return;
  const rows = refunds.map((r) => [
    r.id,
    cell(r.amount_cents, formatCents),
    // in a pipe the API's value, one word
    cell(r.status, (st) => (out.tty ? (REFUND_STATUS[st] ?? st) : st)),
    // null: recorded, not (yet) confirmed
    r.confirmed_at === null ? '' : cell(r.confirmed_at, formatRecordTime),
  ]);
  // in a pipe, a record line each, named by its first field: refund, id, amount, status, confirmed
  if (out.tty) {
    out.line();
    out.table(['REFUND', 'AMOUNT', 'STATUS', 'CONFIRMED'], rows, { alignRight: [1], ids: [0], text: [2] });
  } else out.table(['', 'REFUND', 'AMOUNT', 'STATUS', 'CONFIRMED'], rows.map((r) => ['refund', ...r]));
}
