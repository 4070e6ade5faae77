// The MCP tools' inputs: their zod schemas, built from the API's request schemas, and their
// checks with the CLI's own parsers, down to the API request or query they send.
import type * as Zod from 'zod/mini';
import { z } from '../api/zod.js';
import type { $ZodType } from 'zod/v4/core';
import type { CarsQuery } from '../api/endpoints.js';
import { BODY_TYPES, CITIES, ORDER_BY } from '../api/enums.js';
import * as S from '../api/schemas.js';
import { buildCreateRequest } from '../booking/create-request.js';
import { parseAlias, parseIntOption } from '../input/parse.js';
import { usageError } from '../errors.js';
import { parseLocalDateTime } from '../input/dates.js';

/** Said once in the description of every tool that returns money, instead of a formatted copy of each amount. */
export const MONEY = 'Amounts are integer US cents (USD; 12345 is $123.45); _usd fields are whole dollars.';
export const LOCAL = 'car-local YYYY-MM-DDTHH:MM in the car’s city zone (la: America/Los_Angeles, miami: America/New_York); never UTC';

/** search_cars: the default page size, small enough for an agent's context. */
export const SEARCH_PAGE = 10;
/** The compact car of search_cars; `fields` adds others. */
export const COMPACT_CAR = ['car_alias', 'name', 'city', 'body_type', 'seats', 'discounted_day_rate_cents', 'display_trip_total_cents', 'is_available'] as const;
const CAR_FIELDS = Object.keys((S.Car as unknown as { _zod: { def: { shape: Record<string, unknown> } } })._zod.def.shape) as [string, ...string[]];

export const describe = <T extends $ZodType>(schema: T, text: string): T => (schema as unknown as { check(c: unknown): T }).check(z.describe(text));
export const shape = (schema: $ZodType) => (schema as unknown as { _zod: { def: { shape: Record<string, $ZodType> } } })._zod.def.shape;

export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const reservationUuid = describe(z.string().check(z.regex(UUID_RE, 'expected a UUID')), 'reservation uuid (list_trips)');

export const Q = shape(S.QuoteRequest);
const O = shape(S.ReservationOptions);
export const tripInput = {
  car_alias: describe(Q.car_alias, 'car alias (search_cars)'),
  date_checkin: describe(Q.date_checkin, `check-in, ${LOCAL}`),
  date_checkout: describe(Q.date_checkout, 'check-out, same form, after check-in'),
  options: describe(
    // closed, so that a misspelt option is an error rather than silently the default
    z.optional(
      z.strictObject({
        protection_plan: describe(z.optional(O.protection_plan), 'minimum (default) or standard'),
        mileage_type: describe(z.optional(O.mileage_type), 'limited (default) or unlimited'),
        delivery_type: describe(z.optional(O.delivery_type), 'pickup (default) or delivery'),
        delivery_address: describe(z.optional(z.string()), 'required with delivery_type delivery'),
      }),
    ),
    'trip options; defaults: minimum, limited, pickup',
  ),
  extras: describe(Q.extras, 'extra item types from get_car prices.extras'),
  promo_code: describe(Q.promo_code, 'promo code'),
};

export interface TripArgs {
  car_alias: string;
  date_checkin: string;
  date_checkout: string;
  options?: { protection_plan?: 'minimum' | 'standard'; mileage_type?: 'limited' | 'unlimited'; delivery_type?: 'pickup' | 'delivery'; delivery_address?: string };
  extras?: string[];
  promo_code?: string;
}

/** The CLI's alias check, in the tools' words for an empty one (the CLI's names a command). */
export function alias(value: string): string {
  if (!value.trim()) throw usageError('car_alias is empty: search_cars lists the car aliases');
  return parseAlias(value);
}

/** A car-local date checked as the CLI checks it (a real calendar date), named by its field. */
export const localDate = (value: string, field: string) => parseLocalDateTime(value, field);

function checkOrder(from: string, to: string, fromName: string, toName: string): void {
  if (to <= from) throw usageError(`${toName} (${to}) must be after ${fromName} (${from})`);
}

/** The canonical ReservationCreateRequest, the same the `reserve` command builds (same journal entry). */
export function tripRequest(args: TripArgs): S.ReservationCreateRequest {
  const carAlias = alias(args.car_alias);
  const from = localDate(args.date_checkin, 'date_checkin');
  const to = localDate(args.date_checkout, 'date_checkout');
  checkOrder(from, to, 'date_checkin', 'date_checkout');
  const o = args.options ?? {};
  const address = o.delivery_address?.trim();
  if (o.delivery_type === 'delivery' && !address) throw usageError('options.delivery_address is required when options.delivery_type is delivery');
  if (o.delivery_type === 'pickup' && address) throw usageError('options.delivery_address goes with options.delivery_type delivery, not pickup');
  if (o.delivery_address !== undefined && !address) throw usageError('options.delivery_address is empty');
  const extras = args.extras?.map((e) => e.trim());
  if (extras?.some((e) => !e)) throw usageError('extras holds an empty item type (get_car lists the car’s extras)');
  const promo = args.promo_code?.trim();
  if (args.promo_code !== undefined && !promo) throw usageError('promo_code is empty');
  return buildCreateRequest({
    alias: carAlias,
    from,
    to,
    protection: o.protection_plan,
    mileage: o.mileage_type,
    deliveryAddress: address || undefined,
    extras,
    promo,
  });
}

export const searchInput = z.strictObject({
  city: describe(z.optional(z.enum(CITIES)), 'la or miami'),
  date_from: describe(z.optional(S.LocalDateTime), `trip start, ${LOCAL}; with date_to each car says is_available and its trip total`),
  date_to: describe(z.optional(S.LocalDateTime), 'trip end, same form, after date_from'),
  body_type: describe(z.optional(z.enum(BODY_TYPES)), 'body type'),
  make_id: describe(z.optional(z.int().check(z.minimum(0))), 'numeric make id (make filter)'),
  model_id: describe(z.optional(z.int().check(z.minimum(0))), 'numeric model id (model filter)'),
  order_by: describe(z.optional(z.enum(ORDER_BY)), 'order by price'),
  limit: describe(z.optional(z.int().check(z.minimum(1), z.maximum(200))), `cars per page, 1..200 (default ${SEARCH_PAGE})`),
  offset: describe(z.optional(z.int().check(z.minimum(0))), 'skip this many cars; next_offset of the previous page'),
  fields: describe(z.optional(z.array(z.enum(CAR_FIELDS))), `more car fields than the default ${COMPACT_CAR.join(', ')}`),
});
export type SearchArgs = Zod.infer<typeof searchInput>;

/** Every query parameter of GET /cars has an input of the same name: a compile error names the one missing. */
type MissingSearchInput = Exclude<keyof CarsQuery, keyof SearchArgs>;
const searchCoversQuery: [MissingSearchInput] extends [never] ? true : MissingSearchInput = true;
void searchCoversQuery;

export function searchQuery(args: SearchArgs, defaultCity: string | undefined): CarsQuery {
  if ((args.date_from === undefined) !== (args.date_to === undefined)) throw usageError('date_from and date_to go together: give both or neither');
  const from = args.date_from === undefined ? undefined : localDate(args.date_from, 'date_from');
  const to = args.date_to === undefined ? undefined : localDate(args.date_to, 'date_to');
  if (from && to) checkOrder(from, to, 'date_from', 'date_to');
  const int = (v: number | undefined, name: string, range: { min?: number; max?: number }) => parseIntOption(v === undefined ? undefined : String(v), name, range);
  return {
    city: args.city ?? defaultCity,
    date_from: from,
    date_to: to,
    limit: int(args.limit, 'limit', { min: 1, max: 200 }) ?? SEARCH_PAGE,
    offset: int(args.offset, 'offset', { min: 0 }),
    body_type: args.body_type,
    make_id: int(args.make_id, 'make_id', { min: 0 }),
    model_id: int(args.model_id, 'model_id', { min: 0 }),
    order_by: args.order_by,
  };
}
