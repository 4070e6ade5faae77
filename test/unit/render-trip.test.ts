import { renderTable } from '../../src/render/table.js';
import { describe, expect, it } from 'vitest';
import type { CancellationOutcome, Trip } from '../../src/api/schemas.js';
import {
  describePaymentStatus,
  formatTripDates,
  groupByZone,
  renderFinancialSummary,
  renderTripDetail,
  TRIP_HEADERS,
  TRIP_LAYOUT,
  TRIP_PIPE_FIELDS,
  tripPipeRow,
  tripRow,
} from '../../src/render/trip.js';
import { renderCancellationMoney, renderRefundRecords } from '../../src/render/cancellation.js';
import { fakeOutput } from '../helpers/output.js';

const car = {
  car_alias: 'tesla-model-3-la-001',
  name: 'Tesla Model 3',
  city: 'la' as const,
  prices: {
    car: { miles_included: 200, min_age: 21, min_age_without_young_driver_fee: 25, price_delivery: 5000, price_deposit: 30000, price_extra_mile: 50, price_unlimited_mileage: 2000 },
    extras: [],
    protection: { minimum: 0, standard: 1500 },
    trip_fee: 999,
  },
};

function trip(over: Partial<Trip> = {}): Trip {
  return {
    uuid: '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10',
    status: 'new',
    date_checkin: '2026-12-01T10:00',
    date_checkout: '2026-12-04T10:00',
    days: 3,
    balance_cents: 34567,
    is_booked: false,
    car,
    financial_summary: { currency: 'USD', trip_total_cents: 34567, deposit_cents: 30000 },
    ...over,
  };
}

const invoice = {
  id: '11111111-2222-4333-8444-555555555555',
  created_at: '2026-11-20T18:30',
  currency: 'USD' as const,
  type: 'RENT',
  status: 'PAID' as const,
  billing_status: 'PAID' as const,
  amount: -34567,
  description: 'Rent',
  items: [
    { id: '11111111-2222-4333-8444-666666666666', amount: 36000, description: '3 days' },
    { id: '11111111-2222-4333-8444-777777777777', amount: -1433, description: 'Duration discount' },
  ],
};

describe('describePaymentStatus', () => {
  it('says settled means nothing to pay', () => {
    expect(describePaymentStatus({ type: 'settled' })).toBe('settled: nothing to pay');
  });
  it('names the amount and the payable invoice of to_pay', () => {
    expect(describePaymentStatus({ type: 'to_pay', amount: 12345, invoice_id: invoice.id })).toBe(`to pay: $123.45 (payable invoice ${invoice.id})`);
  });
  it('labels the refund date with the car zone', () => {
    expect(describePaymentStatus({ type: 'refund', amount: 5000, date: '2026-12-10' }, 'miami')).toBe('refund: $50.00 expected by 2026-12-10 America/New_York');
  });
  it('never invents an amount', () => {
    expect(describePaymentStatus({ type: 'to_pay' })).toBe('to pay: an unknown amount');
  });
});

describe('trip rows', () => {
  it('labels both dates with the zone of the car city', () => {
    expect(formatTripDates(trip())).toBe('2026-12-01 10:00 → 2026-12-04 10:00 America/Los_Angeles');
  });
  it('shows a null trip total as unknown, never $0.00', () => {
    const row = tripRow(trip({ financial_summary: { currency: 'USD', trip_total_cents: null, deposit_cents: null } }));
    expect(row).toEqual([trip().uuid, 'Tesla Model 3', '2026-12-01 10:00', '2026-12-04 10:00', 3, 'new', 'unknown', 'unknown', '$345.67']);
    expect(row.join(' ')).not.toContain('$0.00');
  });

  it('on a terminal each date is one line in its own column, the zone left to the heading', () => {
    const tty = renderTable(TRIP_HEADERS, [tripRow(trip())], { tty: true, columns: 160, ...TRIP_LAYOUT });
    expect(tty).toMatch(/ 2026-12-01 10:00  2026-12-04 10:00 /);
    expect(tty).not.toContain('America/Los_Angeles');
  });

  it('in a pipe one value per field: uuid, section, alias, name, both dates and the zone apart', () => {
    const line = renderTable(TRIP_PIPE_FIELDS, [tripPipeRow('active', trip())], { tty: false });
    expect(line.trimEnd().split('\t')).toEqual([
      trip().uuid,
      'active',
      'tesla-model-3-la-001',
      'Tesla Model 3',
      '2026-12-01 10:00',
      '2026-12-04 10:00',
      'America/Los_Angeles',
      '3',
      'new',
      '$345.67',
      '$300.00',
      '$345.67',
    ]);
  });

  it('groups trips by the zone of their car, in the order first seen', () => {
    const ny = trip({ uuid: 'ny', car: { ...car, city: 'miami' } });
    const groups = groupByZone([trip({ uuid: 'a' }), ny, trip({ uuid: 'b' }), trip({ uuid: 'c', car: undefined })]);
    expect(groups.map(([zone, trips]) => [zone, trips.map((t) => t.uuid)])).toEqual([
      ['America/Los_Angeles', ['a', 'b']],
      ['America/New_York', ['ny']],
      ['car-local', ['c']],
    ]);
  });
});

describe('renderFinancialSummary', () => {
  it('prints unknown for a null total and says it is not a guarantee', () => {
    const o = fakeOutput({ tty: true });
    renderFinancialSummary(o.out, { currency: 'USD', trip_total_cents: null, deposit_cents: 0 });
    expect(o.stdout()).toMatch(/^trip total +unknown \(/m);
    expect(o.stdout()).toMatch(/^deposit +\$0\.00 \(required by the booking/m);
    expect(o.stdout()).toContain('not a final cost guarantee');
    // in a pipe, the values without the explanations, and no heading
    const piped = fakeOutput();
    renderFinancialSummary(piped.out, { currency: 'USD', trip_total_cents: null, deposit_cents: 0 });
    expect(piped.stdout()).toBe('trip total\tunknown\ndeposit\t0.00\n');
  });
});

describe('a cancellation outcome other than cancelled, and the refund records', () => {
  it('prints not cancelled without a reminder', () => {
    const o = fakeOutput();
    renderCancellationMoney(o.out, {}, { status: 'not_cancelled' });
    expect(o.stdout()).toBe('cancellation\tnot cancelled\n');
    expect(o.stderr()).toBe('');
  });

  it('explains unknown', () => {
    const o = fakeOutput({ tty: true });
    renderCancellationMoney(o.out, {}, { status: 'unknown' });
    expect(o.stdout()).toMatch(/cancellation +unknown \(the records cannot establish/);
    expect(o.stderr()).toContain('payment status');
  });

  it('lists each refund as a record: a pipe line named by its first field, a table on a terminal', () => {
    const refunds: NonNullable<CancellationOutcome['refunds']> = [
      { id: 'rf_1', amount_cents: 34567, status: 'recorded_unconfirmed', confirmed_at: null },
      { id: 'rf_2', amount_cents: 100, status: 'confirmed', confirmed_at: '2026-12-02T09:15' },
    ];
    const o = fakeOutput();
    renderRefundRecords(o.out, refunds);
    expect(o.stdout()).toBe('refund\trf_1\t345.67\trecorded_unconfirmed\t\nrefund\trf_2\t1.00\tconfirmed\t2026-12-02 09:15 UTC\n');
    const tty = fakeOutput({ tty: true });
    renderRefundRecords(tty.out, refunds);
    expect(tty.stdout()).toMatch(/^rf_1 +\$345\.67 {2}recorded, not confirmed/m);
    const none = fakeOutput();
    renderRefundRecords(none.out, []);
    expect(none.stdout()).toBe('');
  });
});

describe('renderTripDetail', () => {
  it('prints every block in a pipe as label/tab/value lines, one value each, invoices and items as record lines', () => {
    const o = fakeOutput();
    renderTripDetail(o.out, trip({
      payment_status: { type: 'to_pay', amount: 34567, invoice_id: invoice.id },
      invoices: [invoice],
      cancellation_outcome: { status: 'not_cancelled' },
    }));
    const text = o.stdout();
    expect(text).not.toMatch(/^#/m);
    expect(text).toContain('reservation\t0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10\n');
    expect(text).toContain('car\tTesla Model 3\ncar alias\ttesla-model-3-la-001\n');
    expect(text).toContain('status\tnew\nbooked\tno\n');
    expect(text).toContain('check-in\t2026-12-01 10:00\ncheck-out\t2026-12-04 10:00\nzone\tAmerica/Los_Angeles\n');
    expect(text).toContain(`payment\tto_pay\npayment amount\t345.67\npayable invoice\t${invoice.id}\n`);
    expect(text).toContain(`invoice\t${invoice.id}\tRENT\tPAID\t-345.67\t2026-11-20 18:30 UTC\tRent\n`);
    expect(text).toContain(`item\t${invoice.id}\tDuration discount\t-14.33\n`);
    expect(text).toContain('cancellation\tnot cancelled\n');
    const tty = fakeOutput({ tty: true });
    renderTripDetail(tty.out, trip({ payment_status: { type: 'to_pay', amount: 34567, invoice_id: invoice.id } }));
    expect(tty.stdout()).toMatch(/^check-in +2026-12-01 10:00 America\/Los_Angeles$/m);
    expect(tty.stdout()).toMatch(/^status +new \(not booked\)$/m);
    expect(tty.stdout()).toMatch(/^car +Tesla Model 3 \(tesla-model-3-la-001\)$/m);
    expect(tty.stdout()).not.toMatch(/^(car alias|zone|booked|reservation) /m);
    expect(o.stderr()).toContain('carrental pay-link 0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10');
    expect(o.stderr()).toContain('sign of the billing ledger');
  });

  it('strips terminal control characters from server strings', () => {
    const o = fakeOutput({ tty: true });
    renderTripDetail(o.out, trip({ car: { ...car, name: 'Evil\u001b[2J Car' } }));
    expect(o.stdout()).not.toContain('\u001b[2J');
    expect(o.stdout()).toContain('Evil Car');
  });
});
