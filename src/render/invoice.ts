// Invoices: the billing status is the persisted truth; the legacy `status` is shown only
// where it says something else (on a reservation detail a HOLD reads as PAID there). A
// HOLD is a card authorisation, not a charge. Amounts keep the ledger sign.
import type { Invoice } from '../api/schemas.js';
import { formatUtc } from './dates.js';
import { formatCents } from './money.js';
import type { Output } from './output.js';
import { clean } from '../text/sanitize.js';
import { cell, MISSING } from './table.js';

const BILLING_MEANING: Record<string, string> = {
  ISSUED: 'issued, not paid',
  PAID: 'paid',
  CANCELLED: 'cancelled',
  HOLD: 'card authorisation, not a charge',
};

/** "HOLD (card authorisation, not a charge; legacy status PAID)". */
export function describeBillingStatus(invoice: Pick<Invoice, 'billing_status' | 'status'>): string {
  const notes: string[] = [];
  if (invoice.billing_status === 'HOLD') notes.push(BILLING_MEANING.HOLD);
  if (invoice.status !== invoice.billing_status) notes.push(`legacy status ${invoice.status}`);
  return notes.length ? `${invoice.billing_status} (${notes.join('; ')})` : invoice.billing_status;
}

/** One row per invoice, then one row per line item, each naming its invoice. */
export function renderInvoiceTable(out: Output, invoices: Invoice[]): void {
  out.table(
    ['INVOICE', 'TYPE', 'BILLING STATUS', 'AMOUNT', 'CREATED', 'DESCRIPTION'],
    // in a pipe the billing status alone: one value per field
    invoices.map((inv) => [inv.id, inv.type, out.tty ? describeBillingStatus(inv) : inv.billing_status, formatCents(inv.amount), formatUtc(inv.created_at), inv.description]),
    // a narrow terminal leaves out the creation time first (`invoice <id>` has it)
    { alignRight: [3], ids: [0], text: [2, 5], optional: [4] },
  );
  // the spec marks no member of a line item required: a missing one is a dash
  const items = invoices.flatMap((inv) => inv.items.map((item) => [inv.id, item.description, cell(item.amount, formatCents)]));
  // in a pipe, one invoice per line and nothing else: `invoice <id>` has its line items
  if (items.length && out.tty) {
    out.line();
    out.heading('Line items');
    out.table(['INVOICE', 'ITEM', 'AMOUNT'], items, { alignRight: [2], ids: [0], text: [1] });
  }
}

/**
 * A detail's invoices in a pipe: a record line each, named by its first field, after the
 * label/value lines: `invoice`, id, type, billing status, amount, created, description; then
 * `item`, invoice id, description, amount for each line item.
 */
export function invoiceRecords(out: Output, invoices: Invoice[], withInvoices = true): void {
  const rows: unknown[][] = [];
  if (withInvoices) for (const inv of invoices) rows.push(['invoice', inv.id, inv.type, inv.billing_status, formatCents(inv.amount), formatUtc(inv.created_at), inv.description]);
  for (const inv of invoices) for (const item of inv.items) rows.push(['item', inv.id, item.description, cell(item.amount, formatCents)]);
  for (const row of rows) out.record(row.map((c) => c ?? MISSING));
}

/** The whole invoice: its fields, then its line items. */
export function renderInvoice(out: Output, invoice: Invoice): void {
  out.section(`Invoice ${clean(invoice.id)}`);
  const amount = formatCents(invoice.amount);
  out.pairs([
    ['invoice', invoice.id, null],
    ['type', invoice.type],
    ['billing status', invoice.billing_status, describeBillingStatus(invoice)],
    ['legacy status', invoice.status === invoice.billing_status ? undefined : invoice.status, null],
    ['amount', amount, `${amount} ${clean(invoice.currency)}`],
    ['currency', invoice.currency, null],
    ['created', formatUtc(invoice.created_at)],
    ['description', invoice.description],
  ]);
  if (!out.tty) {
    invoiceRecords(out, [invoice], false);
    return;
  }
  out.line();
  out.heading('Line items');
  if (invoice.items.length === 0) out.info('no line items');
  else out.table(['ITEM', 'AMOUNT'], invoice.items.map((item) => [item.description, cell(item.amount, formatCents)]), { alignRight: [1], text: [0] });
}

/** Said once under any invoice listing: the sign convention is the ledger's, not ours. */
export function invoiceNotes(out: Output, invoices: Invoice[]): void {
  if (invoices.some((inv) => inv.amount < 0 || inv.items.some((i) => (i.amount ?? 0) < 0))) {
    out.info('note: amounts keep the sign of the billing ledger as the API records it (a charge against the customer can be negative); discounts are negative line items.');
  }
  if (invoices.some((inv) => inv.billing_status === 'HOLD')) {
    out.info('note: a HOLD is an authorisation on the card, not a charge.');
  }
  if (invoices.some((inv) => inv.type.toUpperCase() === 'DEBT')) {
    // the API prepares it when a reservation detail is read while money is owed; beside a RENT of the same amount it reads as a double charge
    out.info('note: a DEBT invoice is not a second charge: it is the payable of what is owed, the ISSUED charges beside it gathered into the one invoice the customer pays (the payment status points at it); paying it pays them.');
  }
}
