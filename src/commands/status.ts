// `carrental status`: one answer to "what do I need to do?". For each active trip, what
// is owed or pending (rent, deposit, extension, refund) and the exact next command; for a
// trip cancelled lately, what its cancellation is still waiting for. `--exit-status`
// makes it a CI gate, like `gh pr checks`: exit 8 when something needs the customer.
import type { Invoice, Trip } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { requireKey, services } from '../session/services.js';
import { formatLocal } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import { clean } from '../text/sanitize.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { readReservation } from '../booking/read.js';

export type StatusInput = InputOf<'status'>;

/** `--exit-status` when something needs the customer (gh pr checks uses 8 for "pending"). */
export const NEEDS_ACTION_EXIT = 8;

/** A cancelled trip is followed this long after its check-out (refunds and holds settle within days). */
const RECENT_CANCELLED_DAYS = 30;

export type ItemKind = 'rent' | 'deposit' | 'extension' | 'refund' | 'cancellation';

export interface StatusItem {
  kind: ItemKind;
  /** What it is waiting for, in a word or two: to_pay, not_authorised, held, refund_expected, ... */
  state: string;
  /** The customer must act (pay, authorise); everything else only waits. */
  needs_action: boolean;
  amount_cents?: number;
  invoice_id?: string;
  date?: string;
  /** The exact command that does the next step. */
  next?: string;
}

export interface TripStatus {
  uuid: string;
  status: string;
  car_alias?: string;
  car_name?: string;
  city?: string;
  date_checkin?: string;
  date_checkout?: string;
  needs_action: boolean;
  items: StatusItem[];
}

const unpaid = (inv: Invoice) => inv.billing_status === 'ISSUED';

/** What one reservation (its detail) still needs. Pure: the tests feed it trips directly. */
export function tripStatus(trip: Trip, cli: string, asked: string): TripStatus {
  const items: StatusItem[] = [];
  const invoices = trip.invoices ?? [];
  // the spec requires no member of a trip: the uuid it was read by stands in
  const uuid = trip.uuid ?? asked;
  if (trip.status === 'cancelled') {
    const outcome = trip.cancellation_outcome;
    const waits: Array<[string, string | undefined]> = [
      ['hold_release', outcome?.hold_release?.status],
      ['refund_review', outcome?.refund_review?.status],
    ];
    for (const [what, state] of waits) {
      if (state === 'pending' || state === 'manual_review' || state === 'unknown') {
        items.push({ kind: 'cancellation', state: `${what}_${state}`, needs_action: false, next: `${cli} trips ${uuid}` });
      }
    }
    for (const refund of outcome?.refunds ?? []) {
      if (refund.status !== 'confirmed') items.push({ kind: 'refund', state: `refund_${refund.status}`, needs_action: false, amount_cents: refund.amount_cents });
    }
  } else {
    const ps = trip.payment_status;
    const extension = invoices.filter((i) => i.type === 'EXTEND' && unpaid(i));
    if (ps?.type === 'to_pay') {
      const extensionCents = extension.reduce((sum, i) => sum + Math.abs(i.amount), 0);
      const rest = (ps.amount ?? 0) - extensionCents;
      if (rest > 0 || extension.length === 0) {
        items.push({ kind: 'rent', state: 'to_pay', needs_action: true, amount_cents: extension.length ? rest : ps.amount, invoice_id: ps.invoice_id, next: `${cli} pay-link ${uuid}` });
      }
    } else if (ps?.type === 'refund') {
      items.push({ kind: 'refund', state: 'refund_expected', needs_action: false, amount_cents: ps.amount, date: ps.date });
    }
    for (const inv of extension) {
      items.push({ kind: 'extension', state: 'to_pay', needs_action: true, amount_cents: Math.abs(inv.amount), invoice_id: inv.id, next: `${cli} pay-link ${uuid}` });
    }
    const deposit = invoices.find((i) => i.type === 'DEPOSIT' && i.billing_status !== 'CANCELLED');
    if (deposit && unpaid(deposit)) {
      items.push({ kind: 'deposit', state: 'not_authorised', needs_action: true, amount_cents: Math.abs(deposit.amount), invoice_id: deposit.id, next: `${cli} pay-link ${uuid} --type deposit` });
    }
  }
  return {
    uuid,
    status: trip.status ?? 'not stated',
    car_alias: trip.car?.car_alias,
    car_name: trip.car?.name,
    city: trip.car?.city ?? undefined,
    date_checkin: trip.date_checkin,
    date_checkout: trip.date_checkout,
    needs_action: items.some((i) => i.needs_action),
    items,
  };
}

function describe(item: StatusItem, withMoney = true): string {
  const money = withMoney && item.amount_cents !== undefined ? `${formatCents(item.amount_cents)} ` : '';
  switch (item.state) {
    case 'to_pay':
      return item.kind === 'extension' ? `${money}extension to pay` : `${money}to pay`;
    case 'not_authorised':
      return `${money}deposit not yet authorised`;
    case 'refund_expected':
      return `${money}refund expected${item.date ? ` by ${item.date}` : ''}`;
    default:
      return `${money}${item.state.replace(/_/g, ' ')}`;
  }
}

/** `    next: <command>`, or the label and then the command on a line of its own when that is wider than the terminal. */
export function nextLines(command: string, columns: number | undefined): string {
  const one = `    next: ${command}`;
  if (!columns || one.length <= columns) return one;
  // indented under its label when that fits, else from the first column: the fewer lines
  // wider than the terminal, the fewer a terminal wraps
  return `    next:\n${`    ${command}`.length <= columns ? '    ' : ''}${command}`;
}

const settled = (t: TripStatus) => (t.status === 'cancelled' ? 'cancellation settled' : 'nothing to do');

const recentlyCancelled = (trip: Trip, now: Date) =>
  trip.status === 'cancelled' && typeof trip.date_checkout === 'string' && Date.parse(`${trip.date_checkout}Z`) > now.getTime() - RECENT_CANCELLED_DAYS * 86_400_000;

export async function run(input: StatusInput, ctx: Context): Promise<number> {
  const { api, out, target } = await services(ctx);
  requireKey(target);
  const cli = cliPrefix(ctx);
  const list = (await api.trips()).data;
  // a trip listed without a uuid cannot be read, and so cannot be reported on
  const wanted = [...list.active, ...list.history.filter((t) => recentlyCancelled(t, ctx.now()))].filter((t): t is typeof t & { uuid: string } => t.uuid !== undefined);
  const trips: TripStatus[] = [];
  for (const t of wanted) {
    out.progress(`reading ${trips.length + 1} of ${wanted.length} trips`);
    trips.push(tripStatus((await readReservation(api, t.uuid, out)).data, cli, t.uuid));
  }
  out.clearProgress();
  const needsAction = trips.some((t) => t.needs_action);

  if (ctx.globals.json) {
    out.printJson({ needs_action: needsAction, trips }, { lists: ['trips'] });
  } else if (trips.length === 0) {
    out.info('no active trips');
  } else if (!out.tty) {
    // a pipe: one line per item, one plain value per field: the amount has a column of its
    // own (a number, as every pipe's money), not "$228.00" inside the words
    const rows: unknown[][] = [];
    for (const t of trips) {
      const when = formatLocal(t.date_checkin, t.city);
      if (t.items.length === 0) rows.push([t.uuid, t.car_alias ?? '', when, settled(t), '', '']);
      for (const item of t.items) rows.push([t.uuid, t.car_alias ?? '', when, describe(item, false), item.amount_cents === undefined ? '' : formatCents(item.amount_cents), item.next ?? '']);
    }
    out.table(['RESERVATION', 'CAR', 'CHECK-IN', 'STATUS', 'AMOUNT', 'NEXT'], rows);
  } else {
    // a terminal: a block per trip, so no uuid or command is ever cut to fit a column (the
    // title folds at spaces; a `next:` command stays one line, to be copied whole)
    const c = out.color;
    for (const t of trips) {
      out.prose(`${c.bold(t.uuid)}  ${clean(t.car_name ?? t.car_alias ?? '')}  ${t.status === 'cancelled' ? 'cancelled, ' : ''}check-in ${formatLocal(t.date_checkin, t.city)}`);
      if (t.items.length === 0) out.line(`  ${c.green(settled(t))}`);
      for (const item of t.items) {
        const what = describe(item);
        out.line(`  ${item.needs_action ? c.yellow(what) : what}`);
        // the command whole, to copy: on the label's line when it fits, else on its own below
        if (item.next) out.line(nextLines(item.next, out.columns));
      }
    }
    out.info(needsAction ? 'something needs you: run the `next:` commands above' : 'nothing needs you now');
  }
  return input.exitStatus && needsAction ? NEEDS_ACTION_EXIT : 0;
}
