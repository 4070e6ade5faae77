// What `pay-link --wait` counts as done, per type, from one read of the reservation: the
// pure logic behind the sandbox tests of test/booking/pay-wait.sandbox.test.ts.
import { describe, expect, it } from 'vitest';
import type { Invoice, Trip } from '../../src/api/schemas.js';
import { finalLine, paymentSeen as seenOf } from '../../src/commands/pay-link.js';
import { depositState } from '../../src/render/trip-booking.js';

const UUID = '6f1c1d7e-1111-4222-8333-444455556666';
const invoice = (type: string, billing_status: Invoice['billing_status'], amount = 25_000): Invoice => ({
  id: '7a1c1d7e-1111-4222-8333-444455556666',
  created_at: '2026-11-20T10:00',
  currency: 'USD',
  type,
  status: billing_status === 'HOLD' ? 'PAID' : billing_status,
  billing_status,
  amount,
  description: type,
  items: [],
});
const trip = (payment: Trip['payment_status'], invoices?: Invoice[]): Trip => ({ uuid: UUID, status: 'new', payment_status: payment, invoices });
/** One read: the detail and the invoices it carries. */
const paymentSeen = (type: 'rent' | 'deposit', t: Trip) => seenOf(type, t, t.invoices);
const owed: Trip['payment_status'] = { type: 'to_pay', amount: 31_100, invoice_id: '8a1c1d7e-1111-4222-8333-444455556666' };

describe('depositState reads billing_status, never the legacy status', () => {
  it.each([
    [[invoice('DEPOSIT', 'ISSUED')], 'due'],
    [[invoice('DEPOSIT', 'HOLD')], 'held'],
    [[invoice('DEPOSIT', 'PAID')], 'paid'],
    [[invoice('DEPOSIT', 'CANCELLED')], 'none'],
    [[invoice('RENT', 'ISSUED')], 'none'],
    [[invoice('deposit', 'HOLD')], 'held'],
    [[invoice('DEPOSIT', 'CANCELLED'), invoice('DEPOSIT', 'ISSUED')], 'due'],
  ] as const)('%j → %s', (invoices, state) => {
    expect(depositState(invoices as unknown as Invoice[])).toBe(state);
  });
  it('no invoices on the read: unknown, never "none"', () => {
    expect(depositState(undefined)).toBe('unknown');
  });
});

describe('paymentSeen', () => {
  it('rent: done once nothing is owed (settled or a refund on its way), whatever the deposit', () => {
    expect(paymentSeen('rent', trip(owed, [invoice('DEPOSIT', 'HOLD')])).done).toBe(false);
    expect(paymentSeen('rent', trip({ type: 'settled' }, [invoice('DEPOSIT', 'ISSUED')]))).toEqual({
      done: true,
      saw: 'nothing is owed (payment status settled); the deposit is still due',
    });
    expect(paymentSeen('rent', trip({ type: 'refund', amount: 1000, date: '2026-12-01' })).done).toBe(true);
    expect(paymentSeen('rent', trip(undefined)).done).toBe(false);
  });
  it('deposit: done once held or paid, whatever the rent; settled alone is not enough', () => {
    expect(paymentSeen('deposit', trip({ type: 'settled' }, [invoice('DEPOSIT', 'ISSUED')]))).toEqual({ done: false, saw: 'the deposit is still due' });
    expect(paymentSeen('deposit', trip(owed, [invoice('DEPOSIT', 'HOLD')])).done).toBe(true);
    expect(paymentSeen('deposit', trip({ type: 'settled' }, [invoice('DEPOSIT', 'PAID')])).done).toBe(true);
    expect(paymentSeen('deposit', trip({ type: 'settled' }, undefined))).toEqual({ done: false, saw: 'the deposit state is not reported' });
  });
});

describe('finalLine', () => {
  it('says the other half when it is still open, with the command that pays it', () => {
    expect(finalLine('rent', UUID, trip({ type: 'settled' }, [invoice('DEPOSIT', 'ISSUED')]), [invoice('DEPOSIT', 'ISSUED')], 'carrental')).toBe(
      `settled: reservation ${UUID} has nothing left to pay; the deposit is still due (\`carrental pay-link ${UUID} --type deposit\`)`,
    );
    expect(finalLine('deposit', UUID, trip({ type: 'settled' }), [invoice('DEPOSIT', 'PAID')], 'carrental')).toBe(`deposit paid: reservation ${UUID}: the deposit is paid`);
    expect(finalLine('deposit', UUID, trip(owed), [invoice('DEPOSIT', 'HOLD')], 'carrental')).toMatch(
      new RegExp(`^deposit authorised: reservation ${UUID}: the deposit is authorised \\(a hold on the card, not a charge\\); rent is still owed, to pay: \\$311\\.00 .*\`carrental pay-link ${UUID}\`\\)$`),
    );
  });
});
