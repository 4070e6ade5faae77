import { describe, expect, it } from 'vitest';
import type { Invoice } from '../../src/api/schemas.js';
import { describeBillingStatus, invoiceNotes, renderInvoice, renderInvoiceTable } from '../../src/render/invoice.js';
import { fakeOutput } from '../helpers/output.js';

const hold: Invoice = {
  id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
  created_at: '2026-11-30T23:59',
  currency: 'USD',
  type: 'DEPOSIT',
  status: 'PAID',
  billing_status: 'HOLD',
  amount: 30000,
  description: 'Deposit',
  items: [{ id: 'aaaaaaaa-bbbb-4ccc-8ddd-ffffffffffff', amount: 30000, description: 'Refundable deposit' }],
};

describe('describeBillingStatus', () => {
  it('explains HOLD and shows the legacy status when it differs', () => {
    expect(describeBillingStatus(hold)).toBe('HOLD (card authorisation, not a charge; legacy status PAID)');
  });
  it('shows the billing status alone when both agree', () => {
    expect(describeBillingStatus({ billing_status: 'ISSUED', status: 'ISSUED' })).toBe('ISSUED');
  });
  it('shows a differing legacy status', () => {
    expect(describeBillingStatus({ billing_status: 'CANCELLED', status: 'ISSUED' })).toBe('CANCELLED (legacy status ISSUED)');
  });
});

describe('renderInvoice', () => {
  it('prints fields, created_at in UTC and line items', () => {
    const o = fakeOutput();
    renderInvoice(o.out, hold);
    const text = o.stdout();
    expect(text).toContain('type\tDEPOSIT');
    // in a pipe one value a line: the currency on its own, the legacy status on its own
    expect(text).toContain('amount\t300.00\ncurrency\tUSD\n');
    expect(text).toContain('billing status\tHOLD\n');
    expect(text).toContain('created\t2026-11-30 23:59 UTC');
    expect(text).toContain(`item\t${hold.id}\tRefundable deposit\t300.00`);
    const tty = fakeOutput({ tty: true });
    renderInvoice(tty.out, hold);
    expect(tty.stdout()).toMatch(/^amount +\$300\.00 USD$/m);
    expect(tty.stdout()).toMatch(/^billing status +HOLD \(card authorisation, not a charge/m);
  });

  it('keeps the ledger sign and boxes tables on a terminal', () => {
    const o = fakeOutput({ tty: true });
    renderInvoiceTable(o.out, [{ ...hold, amount: -30000, billing_status: 'PAID', type: 'DEBT' }]);
    expect(o.stdout()).toContain('-$300.00');
    expect(o.stdout()).toContain('INVOICE');
    expect(o.stdout()).toContain('Line items');
  });
});

describe('invoiceNotes', () => {
  it('explains holds and negative amounts once, on stderr', () => {
    const o = fakeOutput();
    invoiceNotes(o.out, [hold, { ...hold, billing_status: 'PAID', amount: -1 }]);
    expect(o.stdout()).toBe('');
    expect(o.stderr().match(/HOLD is an authorisation/g)).toHaveLength(1);
    expect(o.stderr()).toContain('sign of the billing ledger');
  });
  it('says nothing when there is nothing to explain', () => {
    const o = fakeOutput();
    invoiceNotes(o.out, [{ ...hold, billing_status: 'PAID' }]);
    expect(o.stderr()).toBe('');
  });
});
