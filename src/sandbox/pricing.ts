// The one pricing function. Quotes, the date totals of the car list, reservation invoices
// and extension previews all come from priceTrip, so they agree to the cent.

export interface PricedCar {
  day_rate_cents: number;
  prices: {
    car: { price_delivery: number; price_deposit: number; price_unlimited_mileage: number };
    extras: { item_type: string; price_day: number; title: string }[];
    protection: Record<string, number>;
    trip_fee: number;
  };
}

export interface PromoDiscount {
  code: string;
  kind: 'percent' | 'fixed';
  /** Percent (1..100) or cents. */
  value: number;
}

export interface TripSelection {
  protection_plan: string;
  mileage_type: 'limited' | 'unlimited';
  delivery_type: 'pickup' | 'delivery';
  extras: readonly string[];
  promo: PromoDiscount | null;
}

export const DEFAULT_SELECTION: TripSelection = {
  protection_plan: 'minimum',
  mileage_type: 'limited',
  delivery_type: 'pickup',
  extras: [],
  promo: null,
};

export interface PriceBreakdown {
  days: number;
  day_rate: number;
  rent_subtotal: number;
  duration_discount_percent: number;
  rent_discount_amount: number;
  /** Rent after the duration discount, before any promo. */
  rent_after_discount: number;
  promo_code: string | null;
  promo_discount_amount: number;
  protection_plan: string;
  protection_total: number;
  trip_fee_total: number;
  delivery_total: number;
  extras: { item_type: string; title: string; price_day: number; total: number }[];
  extras_total: number;
  unlimited_mileage_total: number;
  final_total: number;
  blended_day_rate: number;
  discounted_day_rate: number;
  deposit_cents: number;
}

const MINUTES_PER_DAY = 24 * 60;

/** Days = ceil(hours / 24), at least 1; wall-clock minutes in. */
export function tripDays(checkinMinutes: number, checkoutMinutes: number): number {
  return Math.max(1, Math.ceil((checkoutMinutes - checkinMinutes) / MINUTES_PER_DAY));
}

/** 7+ days: 10 %, 30+ days: 20 %. */
export function durationDiscountPercent(days: number): number {
  if (days >= 30) return 20;
  if (days >= 7) return 10;
  return 0;
}

const percentOf = (amount: number, percent: number) => Math.round((amount * percent) / 100);

export function promoDiscount(promo: PromoDiscount | null, rentAfterDiscount: number): number {
  if (!promo) return 0;
  const off = promo.kind === 'percent' ? percentOf(rentAfterDiscount, promo.value) : promo.value;
  return Math.min(off, rentAfterDiscount);
}

/** Assumes a validated selection: a known protection plan and extras the car offers. */
export function priceTrip(car: PricedCar, days: number, sel: TripSelection): PriceBreakdown {
  const rentSubtotal = car.day_rate_cents * days;
  const durationPercent = durationDiscountPercent(days);
  const rentDiscount = percentOf(rentSubtotal, durationPercent);
  const rentAfter = rentSubtotal - rentDiscount;
  const promoOff = promoDiscount(sel.promo, rentAfter);
  const protectionDay = car.prices.protection[sel.protection_plan];
  if (protectionDay === undefined) throw new Error(`unknown protection plan ${sel.protection_plan}`);
  const extras = sel.extras.map((type) => {
    const extra = car.prices.extras.find((e) => e.item_type === type);
    if (!extra) throw new Error(`unknown extra ${type}`);
    return { item_type: extra.item_type, title: extra.title, price_day: extra.price_day, total: extra.price_day * days };
  });
  const extrasTotal = extras.reduce((sum, e) => sum + e.total, 0);
  const protectionTotal = protectionDay * days;
  const deliveryTotal = sel.delivery_type === 'delivery' ? car.prices.car.price_delivery : 0;
  const unlimitedTotal = sel.mileage_type === 'unlimited' ? car.prices.car.price_unlimited_mileage * days : 0;
  const tripFee = car.prices.trip_fee;
  return {
    days,
    day_rate: car.day_rate_cents,
    rent_subtotal: rentSubtotal,
    duration_discount_percent: durationPercent,
    rent_discount_amount: rentDiscount,
    rent_after_discount: rentAfter,
    promo_code: sel.promo?.code ?? null,
    promo_discount_amount: promoOff,
    protection_plan: sel.protection_plan,
    protection_total: protectionTotal,
    trip_fee_total: tripFee,
    delivery_total: deliveryTotal,
    extras,
    extras_total: extrasTotal,
    unlimited_mileage_total: unlimitedTotal,
    final_total: rentAfter - promoOff + protectionTotal + tripFee + deliveryTotal + extrasTotal + unlimitedTotal,
    blended_day_rate: Math.round(rentSubtotal / days),
    discounted_day_rate: Math.round(rentAfter / days),
    deposit_cents: car.prices.car.price_deposit,
  };
}

/** The Quote resource. Optional fields appear when the caller selected what they price. */
export function quoteFromBreakdown(b: PriceBreakdown, sel: TripSelection): Record<string, number | string> {
  const quote: Record<string, number | string> = {
    rent_subtotal: b.rent_subtotal,
    rent_discount_amount: b.rent_discount_amount,
    protection_total: b.protection_total,
    trip_fee_total: b.trip_fee_total,
    final_total: b.final_total,
    display_total: b.final_total,
    display_trip_total: b.final_total,
    display_mode: 'trip_total',
    blended_day_rate: b.blended_day_rate,
    discounted_day_rate: b.discounted_day_rate,
    deposit_cents: b.deposit_cents,
    days: b.days,
  };
  if (sel.delivery_type === 'delivery') quote.delivery_total = b.delivery_total;
  if (sel.extras.length > 0) quote.extras_total = b.extras_total;
  if (sel.promo) quote.promo_discount_amount = b.promo_discount_amount;
  if (sel.mileage_type === 'unlimited') quote.unlimited_mileage_total = b.unlimited_mileage_total;
  return quote;
}

/** The date-based fields of a car in a dated search: the default selection's price. */
export function carDateTotals(b: PriceBreakdown) {
  return {
    trip_days: b.days,
    blended_day_rate_cents: b.blended_day_rate,
    discounted_day_rate_cents: b.discounted_day_rate,
    display_trip_total_before_discount_cents: b.rent_subtotal + b.trip_fee_total,
    display_trip_total_cents: b.rent_after_discount + b.trip_fee_total,
    rent_trip_total_cents: b.rent_after_discount,
    rent_trip_savings_cents: b.rent_discount_amount,
  };
}
