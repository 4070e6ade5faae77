import { describe, expect, it } from 'vitest';
import { Quote } from '../../src/api/schemas.js';
import { parseLocal } from '../../src/sandbox/clock.js';
import { buildFleet } from '../../src/sandbox/fleet.js';
import {
  DEFAULT_SELECTION,
  type PricedCar,
  carDateTotals,
  durationDiscountPercent,
  priceTrip,
  promoDiscount,
  quoteFromBreakdown,
  tripDays,
} from '../../src/sandbox/pricing.js';

const car: PricedCar = {
  day_rate_cents: 5000,
  prices: {
    car: { price_delivery: 7900, price_deposit: 25000, price_unlimited_mileage: 1500 },
    extras: [
      { item_type: 'child_seat', price_day: 1200, title: 'Child seat' },
      { item_type: 'gps', price_day: 800, title: 'GPS navigation' },
    ],
    protection: { minimum: 0, standard: 1900 },
    trip_fee: 2900,
  },
};

const minutes = (s: string) => parseLocal(s) as number;

describe('tripDays', () => {
  it('is ceil(hours / 24), at least one day', () => {
    expect(tripDays(minutes('2026-04-01T10:00'), minutes('2026-04-02T10:00'))).toBe(1);
    expect(tripDays(minutes('2026-04-01T10:00'), minutes('2026-04-02T11:00'))).toBe(2);
    expect(tripDays(minutes('2026-04-01T10:00'), minutes('2026-04-01T12:00'))).toBe(1);
    expect(tripDays(minutes('2026-04-01T10:00'), minutes('2026-04-08T10:00'))).toBe(7);
    expect(tripDays(minutes('2026-04-01T10:00'), minutes('2026-04-08T10:01'))).toBe(8);
  });

  it('counts wall-clock time across a DST switch (the night of 2026-03-08 in the US)', () => {
    expect(tripDays(minutes('2026-03-07T10:00'), minutes('2026-03-09T10:00'))).toBe(2);
  });
});

describe('durationDiscountPercent', () => {
  it('gives 10 % from 7 days and 20 % from 30 days', () => {
    expect([1, 6, 7, 29, 30, 90].map(durationDiscountPercent)).toEqual([0, 0, 10, 10, 20, 20]);
  });
});

describe('priceTrip', () => {
  it('prices the default selection as rent plus trip fee', () => {
    const b = priceTrip(car, 3, DEFAULT_SELECTION);
    expect(b).toMatchObject({
      days: 3,
      rent_subtotal: 15000,
      rent_discount_amount: 0,
      rent_after_discount: 15000,
      protection_total: 0,
      trip_fee_total: 2900,
      delivery_total: 0,
      extras_total: 0,
      unlimited_mileage_total: 0,
      promo_discount_amount: 0,
      final_total: 17900,
      blended_day_rate: 5000,
      discounted_day_rate: 5000,
      deposit_cents: 25000,
    });
  });

  it('adds every selected option, and the total is the sum of its parts', () => {
    const b = priceTrip(car, 8, {
      protection_plan: 'standard',
      mileage_type: 'unlimited',
      delivery_type: 'delivery',
      extras: ['child_seat', 'gps'],
      promo: { code: 'SAVE50', kind: 'fixed', value: 5000 },
    });
    expect(b.rent_subtotal).toBe(40000);
    expect(b.rent_discount_amount).toBe(4000);
    expect(b.promo_discount_amount).toBe(5000);
    expect(b.protection_total).toBe(8 * 1900);
    expect(b.unlimited_mileage_total).toBe(8 * 1500);
    expect(b.delivery_total).toBe(7900);
    expect(b.extras_total).toBe(8 * 2000);
    expect(b.final_total).toBe(40000 - 4000 - 5000 + 15200 + 12000 + 7900 + 16000 + 2900);
    expect(b.discounted_day_rate).toBe(4500);
  });

  it('rounds percentages to whole cents and caps a promo at the rent', () => {
    expect(priceTrip({ ...car, day_rate_cents: 4999 }, 7, DEFAULT_SELECTION).rent_discount_amount).toBe(Math.round(34993 * 0.1));
    expect(promoDiscount({ code: 'X', kind: 'fixed', value: 99999 }, 12000)).toBe(12000);
    expect(promoDiscount({ code: 'X', kind: 'percent', value: 15 }, 12345)).toBe(1852);
    expect(promoDiscount(null, 12345)).toBe(0);
  });

  it('refuses a plan or extra the car does not have (validation happens before pricing)', () => {
    expect(() => priceTrip(car, 1, { ...DEFAULT_SELECTION, protection_plan: 'premium' })).toThrow(/protection plan/);
    expect(() => priceTrip(car, 1, { ...DEFAULT_SELECTION, extras: ['jetpack'] })).toThrow(/extra/);
  });
});

describe('quoteFromBreakdown', () => {
  it('is a valid Quote whose three totals agree, with optional fields only when selected', () => {
    const plain = quoteFromBreakdown(priceTrip(car, 2, DEFAULT_SELECTION), DEFAULT_SELECTION);
    const q = Quote.parse(plain);
    expect(q.final_total).toBe(q.display_total);
    expect(q.final_total).toBe(q.display_trip_total);
    expect(q.display_mode).toBe('trip_total');
    for (const f of ['delivery_total', 'extras_total', 'promo_discount_amount', 'unlimited_mileage_total']) expect(plain).not.toHaveProperty(f);

    const sel = { ...DEFAULT_SELECTION, mileage_type: 'unlimited' as const, delivery_type: 'delivery' as const, extras: ['gps'], promo: { code: 'W', kind: 'percent' as const, value: 10 } };
    const full = Quote.parse(quoteFromBreakdown(priceTrip(car, 2, sel), sel));
    expect(full).toMatchObject({ delivery_total: 7900, extras_total: 1600, promo_discount_amount: 1000, unlimited_mileage_total: 3000 });
  });
});

describe('car list totals', () => {
  it('equal the default quote final_total for every car of the fleet', () => {
    for (const c of buildFleet(1, '2026-03-10', 300).cars) {
      for (const days of [1, 3, 7, 30]) {
        const b = priceTrip(c, days, DEFAULT_SELECTION);
        const totals = carDateTotals(b);
        expect(totals.display_trip_total_cents).toBe(b.final_total);
        expect(totals.display_trip_total_before_discount_cents - totals.display_trip_total_cents).toBe(totals.rent_trip_savings_cents);
        expect(totals.rent_trip_total_cents).toBe(b.rent_subtotal - b.rent_discount_amount);
      }
    }
  });
});
