// `carrental quote <alias> --from D --to D [options]`: the price of a trip, line by line.
// Anonymous unless a key is configured; then the key is sent (so personal promo codes are
// checked) unless --anonymous. The refundable deposit is never part of the total.
import { NO_RETRY } from '../api/client.js';
import { payloadOf } from '../api/payload.js';
import type { Car, Quote, QuoteRequest } from '../api/schemas.js';
import type { InputOf } from '../cli/commands.js';
import type { Context } from '../cli/context.js';
import { services } from '../cli/services.js';
import { usageError } from '../errors.js';
import { formatLocal, zoneOf } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import type { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { parseAlias } from '../input/parse.js';
import { clockNow, hasRelative, refusePast, resolvedLine, resolveTripDates, zoneOrRefuse } from '../cli/trip-dates.js';

export type QuoteInput = InputOf<'quote'>;

/**
 * The QuoteRequest of the flags. Relative dates (`tomorrow 10:00`) resolve in `dates.zone`;
 * without one they are only checked, and the caller resolves them once the car's city is known.
 */
export function buildQuoteRequest(input: QuoteInput, dates: { now?: Date; zone?: string } = {}): QuoteRequest {
  const car_alias = parseAlias(input.alias);
  const range = resolveTripDates(input, { now: dates.now ?? new Date(), zone: dates.zone, required: true })!;
  const body: QuoteRequest = { car_alias, date_checkin: range.from, date_checkout: range.to };
  const options: NonNullable<QuoteRequest['options']> = {};
  if (input.protection !== undefined) options.protection_plan = input.protection as 'minimum' | 'standard';
  if (input.mileage !== undefined) options.mileage_type = input.mileage as 'limited' | 'unlimited';
  if (input.deliveryAddress !== undefined) {
    const address = input.deliveryAddress.trim();
    if (!address) throw usageError('--delivery-address must not be empty');
    options.delivery_type = 'delivery';
    options.delivery_address = address;
  }
  if (Object.keys(options).length) body.options = options;
  if (input.extra?.length) {
    const extras = input.extra.map((e) => e.trim());
    if (extras.some((e) => !e)) throw usageError('--extra needs an item type (see `carrental car <alias>`)');
    body.extras = [...new Set(extras)];
  }
  if (input.promo !== undefined) {
    const promo = input.promo.trim();
    if (!promo) throw usageError('--promo must not be empty');
    body.promo_code = promo;
  }
  return body;
}

export async function run(input: QuoteInput, ctx: Context): Promise<number> {
  let body = buildQuoteRequest(input);
  const { api, out, target } = await services(ctx);
  const withKey = !input.anonymous && !!target.apiKey;
  let car: Promise<Car | undefined> | undefined;
  const now = await clockNow(ctx, target);
  if (!hasRelative(input)) refusePast(body.date_checkin, '--from', now, undefined);
  if (hasRelative(input)) {
    // `tomorrow 10:00` is read in the car's zone: the car is needed first (a 404 stops here)
    const found = (await api.getCar(body.car_alias)).data;
    car = Promise.resolve(found);
    body = buildQuoteRequest(input, { now, zone: zoneOrRefuse(found.city) });
    refusePast(body.date_checkin, '--from', now, zoneOf(found.city));
    out.info(resolvedLine({ from: body.date_checkin, to: body.date_checkout }, zoneOf(found.city)));
  } else if (!ctx.globals.json) {
    // the car's city labels the dates with their zone; fetched alongside, so it costs no
    // time, and best effort: the quote is what matters
    car = api.getCar(body.car_alias, { retry: NO_RETRY }).then((r) => r.data, () => undefined);
  }
  const res = await api.quote(body, withKey);
  const quote = res.data;
  if (ctx.globals.json) {
    out.printJson(payloadOf(res));
    return 0;
  }
  printQuote(quote, body, out, await car);
  if (body.promo_code && !withKey) out.info('note: anonymous quote: personal promo eligibility is checked again when you reserve');
  out.info('A quote reserves nothing and fixes no price: `carrental reserve` revalidates price and availability.');
  return 0;
}

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
