// A quote as a person reads it (a table of its lines, the total, the deposit) or, in a pipe,
// a value per field: printed by `quote`, and by `reserve` before it asks to book.
import type { Car, Quote, QuoteRequest } from '../api/schemas.js';
import { zoneOf } from '../input/dates.js';
import { formatLocal } from './dates.js';
import { formatCents } from './money.js';
import type { Output } from './output.js';

/**
 * What a quote is not, said once for `quote` and for `reserve` (which quotes before it
 * asks): it holds nothing, and the booking checks both again.
 */
export const QUOTE_CAVEAT = 'a quote holds nothing, neither the car nor the price: both are checked again when `carrental reserve` books';

/** Discounts arrive as positive amounts taken off; shown with a minus (a negative amount keeps its sign). */
const minus = (cents: number) => formatCents(cents > 0 ? -cents : cents);

/** `carOrCity`: the car (name, zone, extras titles) or only its city (zone). */
export function printQuote(
  quote: Quote,
  req: QuoteRequest,
  out: Output,
  carOrCity?: string | Pick<Car, 'city' | 'name' | 'prices'>,
  /** `words`: always the reader's form (reserve's conversation on stderr, which is no data). */
  form: 'auto' | 'words' = 'auto',
): void {
  const opts = req.options ?? {};
  const car = typeof carOrCity === 'string' ? undefined : carOrCity;
  const city = typeof carOrCity === 'string' ? carOrCity : car?.city;
  const extraTitle = (type: string) => car?.prices.extras?.find((e) => e.item_type === type)?.title ?? type;
  const plan = opts.protection_plan ?? 'minimum';
  const days = typeof quote.days === 'number' ? quote.days : undefined;
  const rows: Array<[string, string]> = [
    ['Rent subtotal', formatCents(quote.rent_subtotal)],
    ['Duration discount', minus(quote.rent_discount_amount)],
  ];
  rows.push([`Protection (${plan})`, formatCents(quote.protection_total)]);
  if (quote.extras_total !== undefined) rows.push([`Extras (${(req.extras ?? []).map(extraTitle).join(', ')})`, formatCents(quote.extras_total)]);
  if (quote.delivery_total !== undefined) rows.push(['Delivery', formatCents(quote.delivery_total)]);
  if (quote.unlimited_mileage_total !== undefined) rows.push(['Unlimited mileage', formatCents(quote.unlimited_mileage_total)]);
  if (quote.promo_discount_amount !== undefined) rows.push([`Promo discount (${req.promo_code ?? ''})`, minus(quote.promo_discount_amount)]);
  rows.push(['Trip fee', formatCents(quote.trip_fee_total)]);

  if (!out.tty && form === 'auto') {
    // a pipe: one value per field, and each price line a record named by its first field
    out.pairs([
      ['car alias', req.car_alias],
      ['check-in', req.date_checkin.replace('T', ' ')],
      ['check-out', req.date_checkout.replace('T', ' ')],
      ['zone', zoneOf(city) ?? ''],
      ['days', days === undefined ? '' : String(days)],
      ['day rate', formatCents(quote.discounted_day_rate)],
      ['day rate before discount', formatCents(quote.blended_day_rate)],
    ]);
    for (const [label, amount] of rows) out.record(['item', label, amount]);
    out.pairs([
      ['total', formatCents(quote.final_total)],
      ['deposit', formatCents(quote.deposit_cents)],
    ]);
    return;
  }
  out.heading(`Quote for ${car ? `${car.name} (${req.car_alias})` : req.car_alias}`);
  out.pairs([
    ['Check-in', formatLocal(req.date_checkin, city)],
    ['Check-out', formatLocal(req.date_checkout, city)],
    ['Days', days === undefined ? undefined : String(days)],
    ['Day rate', quote.discounted_day_rate !== quote.blended_day_rate ? `${formatCents(quote.discounted_day_rate)} (before discount ${formatCents(quote.blended_day_rate)})` : formatCents(quote.blended_day_rate)],
  ]);
  out.line();
  out.table(['ITEM', 'AMOUNT'], [...rows, ['TOTAL', formatCents(quote.final_total)]], [1]);
  out.line();
  out.pairs([['Refundable deposit', `${formatCents(quote.deposit_cents)} (not included in the total; held separately)`]]);
}
