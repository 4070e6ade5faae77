// `carrental quote <alias> --from D --to D [options]`: the price of a trip, line by line.
// Anonymous unless a key is configured; then the key is sent (so personal promo codes are
// checked) unless --anonymous. The refundable deposit is never part of the total.
import { NO_RETRY } from '../api/client.js';
import { payloadOf } from '../api/payload.js';
import type { Car, QuoteRequest } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { usageError } from '../errors.js';
import { zoneOf } from '../input/dates.js';
import { printQuote, QUOTE_CAVEAT } from '../render/quote.js';
import { parseAlias } from '../input/parse.js';
import { clockNow, hasRelative, refusePast, resolvedLine, resolveTripDates, zoneOrRefuse } from '../cmdkit/trip-dates.js';

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
  out.info(QUOTE_CAVEAT);
  return 0;
}
