// A value the server left out (the spec requires it nowhere) is shown as missing: a dash
// in a table, "not stated" beside a label; never "undefined", never a crash, never $0.00.
import { describe, expect, it } from 'vitest';
import type { Invoice, Trip } from '../../src/api/schemas.js';
import { printCar } from '../../src/commands/car.js';
import { renderInvoice, renderInvoiceTable } from '../../src/render/invoice.js';
import { cell, MISSING, renderTable, stated } from '../../src/render/table.js';
import { formatTripDates, renderTripDetail, tripRow, TRIP_HEADERS } from '../../src/render/trip.js';
import { renderCancellationMoney, renderRefundRecords } from '../../src/render/cancellation.js';
import { fakeOutput } from '../helpers/output.js';

const PLACEHOLDERS = /undefined|NaN|null|\[object Object\]/;

describe('missing values', () => {
  it('stated() and cell() format what is there and mark what is not', () => {
    expect(stated(0)).toBe('0');
    expect(stated(undefined)).toBe('not stated');
    expect(stated(null)).toBe('not stated');
    expect(stated(1250, (c) => `$${c / 100}`)).toBe('$12.5');
    expect(cell(undefined)).toBeUndefined();
    expect(cell(false, String)).toBe('false');
  });

  it('a table draws an absent cell as a dash, on a terminal and in a pipe', () => {
    expect(renderTable(['A', 'B', 'C'], [['x', undefined, null]], { tty: false })).toBe(`x\t${MISSING}\t${MISSING}\n`);
    expect(renderTable(['A', 'B'], [['x', undefined]], { tty: true })).toBe('A  B\nx  -\n');
  });

  it('an empty trip (the spec requires no member) renders as a row of dashes and a detail of "not stated"', () => {
    const row = tripRow({} as Trip);
    expect(row).toHaveLength(TRIP_HEADERS.length);
    expect(renderTable(TRIP_HEADERS, [row], { tty: false })).toBe(`${Array(TRIP_HEADERS.length).fill(MISSING).join('\t')}\n`);
    expect(formatTripDates({})).toBe('not stated → not stated (car-local)');

    const { out, stdout, stderr } = fakeOutput();
    renderTripDetail(out, {}, 'carrental', '3f6c2a0e-7b1d-4c55-9a0e-1d2b3c4d5e6f');
    expect(stdout()).toContain('reservation\t3f6c2a0e-7b1d-4c55-9a0e-1d2b3c4d5e6f\n');
    for (const label of ['car', 'status', 'check-in', 'check-out', 'days', 'balance', 'payment', 'summary']) expect(stdout()).toContain(`${label}\tnot stated`);
    expect(stdout() + stderr()).not.toMatch(PLACEHOLDERS);
  });

  it('a null total is "unknown", an absent one a dash', () => {
    const row = tripRow({ financial_summary: { currency: 'USD', trip_total_cents: null, deposit_cents: 5000 } });
    expect(row.slice(6)).toEqual(['unknown', '$50.00', undefined]);
  });

  it('a cancellation outcome with bare sub-objects and refunds', () => {
    const { out, stdout, stderr } = fakeOutput();
    renderCancellationMoney(out, { financial_summary: { currency: 'USD', trip_total_cents: null, deposit_cents: 5000 } }, { status: 'cancelled', hold_release: {}, refund_review: {}, refunds: [{}] });
    renderRefundRecords(out, [{}]);
    expect(stdout()).toContain('deposit hold\tnot_reported');
    expect(stdout()).toContain('refund review\tnot_reported');
    expect(stdout()).toContain(`${MISSING}\t${MISSING}\t${MISSING}\t${MISSING}`);
    expect(stdout() + stderr()).not.toMatch(PLACEHOLDERS);
  });

  it('invoice line items without members', () => {
    const invoice: Invoice = {
      id: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      created_at: '2027-02-20T09:30',
      currency: 'USD',
      type: 'MYSTERY_FEE',
      status: 'ISSUED',
      billing_status: 'ISSUED',
      amount: 100,
      description: 'fee',
      items: [{}],
    };
    const { out, stdout } = fakeOutput();
    renderInvoiceTable(out, [invoice]);
    renderInvoice(out, invoice);
    expect(stdout()).toContain(`${invoice.id}\t${MISSING}\t${MISSING}`);
    expect(stdout()).toContain('MYSTERY_FEE');
    expect(stdout()).not.toMatch(PLACEHOLDERS);
  });

  it('a car with only its required members (and empty prices)', () => {
    // a terminal says what the server left out
    const { out, stdout } = fakeOutput({ tty: true });
    printCar({ car_alias: 'kia-soul-1', name: 'Kia Soul', prices: {} }, out);
    for (const label of ['Trip fee', 'Refundable deposit', 'Delivery', 'Miles included', 'Unlimited mileage', 'Minimum age']) expect(stdout()).toMatch(new RegExp(`${label}\\S*\\s+not stated`));
    expect(stdout()).toMatch(/Protection plans\S*\nnot stated/);
    expect(stdout()).toMatch(/Extras\S*\nnot stated/);
    expect(stdout()).not.toMatch(PLACEHOLDERS);
    // a pipe leaves the field empty: one (absent) value, no prose
    const pipe = fakeOutput();
    printCar({ car_alias: 'kia-soul-1', name: 'Kia Soul', prices: {} }, pipe.out);
    for (const label of ['trip fee', 'deposit', 'delivery', 'miles included', 'minimum age']) expect(pipe.stdout()).toContain(`\n${label}\t\n`);
    expect(pipe.stdout()).not.toMatch(/^(plan|extra|blocked)\t/m);
    expect(pipe.stdout()).not.toMatch(PLACEHOLDERS);
  });
});
