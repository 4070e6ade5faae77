// A trip request (quote or create): parsing the body to the letter of the spec, then the rules a
// quote and a creation share (car, dates, operating hours, length, extras, promo code).
import { PROTECTION_PLANS } from '../api/schemas.js';
import { localNow, localNowMinutes, parseLocal } from './clock.js';
import type { SandboxConfig } from './config.js';
import { apiError } from './errors.js';
import type { RuleEnv } from './facts.js';
import type { CarRec } from './fleet.js';
import { type PriceBreakdown, type TripSelection, priceTrip, tripDays } from './pricing.js';
import { type PromoCodeDef, findPromo } from './promos.js';
import type { CustomerRec, ReservationOptionsRec, SandboxState } from './state.js';

const MINUTES_PER_DAY = 1440;

export interface TripRequest {
  car_alias: string;
  date_checkin: string;
  date_checkout: string;
  checkin: number;
  checkout: number;
  options: ReservationOptionsRec;
  extras: string[];
  promo_code: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A body field the spec does not define is refused (400 invalid_request) rather than ignored:
 * a misspelt `promo_code` would otherwise book at full price without a word.
 */
export function rejectUnknownFields(body: Record<string, unknown>, allowed: readonly string[], where = ''): void {
  const unknown = Object.keys(body).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw apiError('invalid_request', `Unknown field ${where}${unknown}; allowed: ${allowed.map((a) => where + a).join(', ')}`);
}

const TRIP_REQUEST_FIELDS = ['car_alias', 'date_checkin', 'date_checkout', 'options', 'extras', 'promo_code'] as const;
const OPTIONS_FIELDS = ['protection_plan', 'mileage_type', 'delivery_type', 'delivery_address'] as const;

function parseDateField(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (value === undefined || value === null) throw apiError('invalid_request', `${field} is required (YYYY-MM-DDTHH:MM, car-local)`);
  const minutes = parseLocal(value);
  if (minutes === null) throw apiError('invalid_date_format', `${field} must be a real date in the form YYYY-MM-DDTHH:MM`);
  return minutes;
}

function parseEnum<T extends string>(
  options: Record<string, unknown>,
  field: string,
  allowed: readonly T[],
  fallback: T | null,
  code: 'invalid_options' | 'invalid_protection_plan',
): T {
  const value = options[field];
  if (value === undefined) {
    if (fallback !== null) return fallback;
    throw apiError('invalid_options', `options.${field} is required: one of ${allowed.join(', ')}`);
  }
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw apiError(code, `options.${field} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/**
 * Validates the shape of a QuoteRequest (mode `quote`, options default) or a
 * ReservationCreateRequest (mode `create`, options and their three choices required).
 */
export function parseTripRequest(body: unknown, mode: 'quote' | 'create'): TripRequest {
  if (!isObject(body)) throw apiError('invalid_request_body', 'The body must be a JSON object');
  rejectUnknownFields(body, TRIP_REQUEST_FIELDS);
  if (typeof body.car_alias !== 'string' || body.car_alias.length === 0) {
    throw apiError('invalid_request', 'car_alias is required (string)');
  }
  const checkin = parseDateField(body, 'date_checkin');
  const checkout = parseDateField(body, 'date_checkout');
  const rawOptions = body.options;
  // `null` is not a value the spec gives these fields (options, extras, promo_code): refused, not read as absent.
  if (rawOptions === undefined) {
    if (mode === 'create') throw apiError('invalid_options', 'options is required with protection_plan, mileage_type and delivery_type');
  } else if (!isObject(rawOptions)) {
    throw apiError('invalid_options', 'options must be an object');
  }
  const opts = isObject(rawOptions) ? rawOptions : {};
  rejectUnknownFields(opts, OPTIONS_FIELDS, 'options.');
  const defaults = mode === 'quote';
  const protection_plan = parseEnum(opts, 'protection_plan', PROTECTION_PLANS, defaults ? 'minimum' : null, 'invalid_protection_plan');
  const mileage_type = parseEnum(opts, 'mileage_type', ['limited', 'unlimited'] as const, defaults ? 'limited' : null, 'invalid_options');
  const delivery_type = parseEnum(opts, 'delivery_type', ['pickup', 'delivery'] as const, defaults ? 'pickup' : null, 'invalid_options');
  const address = opts.delivery_address;
  if (address !== undefined && address !== null && typeof address !== 'string') {
    throw apiError('invalid_options', 'options.delivery_address must be a string or null');
  }
  const trimmed = typeof address === 'string' ? address.trim() : '';
  if (delivery_type === 'delivery' && trimmed === '') {
    throw apiError('delivery_address_required', 'options.delivery_address is required when delivery_type is delivery');
  }
  let extras: string[] = [];
  if (body.extras !== undefined) {
    if (!Array.isArray(body.extras) || body.extras.some((e) => typeof e !== 'string')) {
      throw apiError('invalid_request', 'extras must be an array of item_type strings');
    }
    extras = body.extras as string[];
    const dup = extras.find((e, i) => extras.indexOf(e) !== i);
    if (dup !== undefined) throw apiError('invalid_extra', `extra ${dup} is listed twice`);
  }
  let promo_code: string | null = null;
  if (body.promo_code !== undefined) {
    if (typeof body.promo_code !== 'string') throw apiError('invalid_request', 'promo_code must be a string');
    promo_code = body.promo_code;
  }
  return {
    car_alias: body.car_alias,
    date_checkin: body.date_checkin as string,
    date_checkout: body.date_checkout as string,
    checkin,
    checkout,
    options: { protection_plan, mileage_type, delivery_type, delivery_address: delivery_type === 'delivery' ? trimmed : null },
    extras,
    promo_code,
  };
}

const hhmm = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

export function checkOperatingHours(config: SandboxConfig, ...times: { field: string; minutes: number }[]): void {
  const open = hhmm(config.openingTime);
  const close = hhmm(config.closingTime);
  for (const t of times) {
    const tod = ((t.minutes % MINUTES_PER_DAY) + MINUTES_PER_DAY) % MINUTES_PER_DAY;
    if (tod < open || tod > close) {
      throw apiError(
        'outside_operating_hours',
        `${t.field} must be between ${config.openingTime} and ${config.closingTime} car-local time`,
      );
    }
  }
}

export interface CheckedTrip {
  car: CarRec;
  request: TripRequest;
  selection: TripSelection;
  breakdown: PriceBreakdown;
  promo: PromoCodeDef | null;
}

/**
 * The rules a quote and a creation share: the car, dates, hours, length, extras and the
 * promo code. `customer` is null for an anonymous quote, which skips personal promo
 * eligibility (checked again at creation).
 */
export function checkTrip(state: SandboxState, env: RuleEnv, req: TripRequest, customer: CustomerRec | null, mode: 'quote' | 'create' = 'quote'): CheckedTrip {
  const car = env.fleet.byAlias.get(req.car_alias);
  if (!car) {
    // The spec lists 404 for an unknown car on the quote, and no 404 for creation, whose
    // invalid input is a 400 (a sandbox choice, docs/sandbox.md).
    if (mode === 'create') throw apiError('invalid_request', `car_alias: no car with alias ${req.car_alias}`);
    throw apiError('car_not_found', `No car with alias ${req.car_alias}`);
  }
  if (req.checkout <= req.checkin) throw apiError('invalid_date_range', 'date_checkout must be after date_checkin');
  const nowLocal = localNowMinutes(env.now, car.timeZone);
  if (req.checkin < nowLocal) {
    throw apiError('date_in_past', `date_checkin is in the past (now is ${localNow(env.now, car.timeZone)} car-local)`);
  }
  checkOperatingHours(env.config, { field: 'date_checkin', minutes: req.checkin }, { field: 'date_checkout', minutes: req.checkout });
  if (req.checkout - req.checkin < env.config.minTripHours * 60) {
    throw apiError('trip_too_short', `A trip lasts at least ${env.config.minTripHours} hours`);
  }
  const days = tripDays(req.checkin, req.checkout);
  if (days > env.config.maxTripDays) throw apiError('trip_too_long', `A trip lasts at most ${env.config.maxTripDays} days`);
  for (const type of req.extras) {
    if (!car.prices.extras.some((e) => e.item_type === type)) {
      const offered = car.prices.extras.map((e) => e.item_type).join(', ') || 'none';
      throw apiError('invalid_extra', `This car offers no extra ${type} (offered: ${offered})`);
    }
  }
  const promo = req.promo_code === null ? null : checkPromo(state, env, req.promo_code, days, car, customer);
  const selection: TripSelection = {
    protection_plan: req.options.protection_plan,
    mileage_type: req.options.mileage_type,
    delivery_type: req.options.delivery_type,
    extras: req.extras,
    promo: promo && { code: promo.code, kind: promo.kind, value: promo.value },
  };
  return { car, request: req, selection, breakdown: priceTrip(car, days, selection), promo };
}

function checkPromo(
  state: SandboxState,
  env: RuleEnv,
  code: string,
  days: number,
  car: CarRec,
  customer: CustomerRec | null,
): PromoCodeDef {
  if (!env.config.promoCodesEnabled) throw apiError('promo_codes_disabled', 'Promo codes are currently turned off');
  const promo = findPromo(env.anchorDay, code);
  if (!promo) throw apiError('promo_code_not_found', `Unknown promo code ${code.trim()}`);
  const today = localNow(env.now, car.timeZone).slice(0, 10);
  if (today < promo.valid_from || (promo.valid_until !== null && today > promo.valid_until)) {
    throw apiError('promo_code_invalid', `Promo code ${promo.code} is not valid on ${today}`);
  }
  if (days < promo.min_days) {
    throw apiError('promo_code_invalid', `Promo code ${promo.code} needs a trip of at least ${promo.min_days} days`);
  }
  if (customer && promo.one_time && (state.usedPromos[customer.id] ?? []).includes(promo.code)) {
    throw apiError('promo_already_used', `Promo code ${promo.code} can be used once and you have used it`);
  }
  return promo;
}
