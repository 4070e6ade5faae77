// The API's resources, described once. The client validates every response with these,
// the sandbox builds its responses to them and generates its OpenAPI document from them.
// Objects are loose: the spec allows fields beyond those listed, and --json prints the
// payload as the server sent it.
//
// zod/mini, not the classic API: the same validation core, but a fifth of the code to
// load and cheap schema objects, which is ~12 ms of every command's start-up (docs/performance.md).
// Schemas still have .parse() and .safeParse(); wrappers are functions (z.optional(x)).
// Every schema is built on first use, `lazy(() => …)` (src/api/lazy-schema.ts says why), and
// zod itself is set up then too (src/api/zod.ts).
import type * as Zod from 'zod/mini';
import { z } from './zod.js';

import {
  CITIES,
  DELIVERY_TYPES,
  INVOICE_STATUSES,
  MILEAGE_TYPES,
  PAYMENT_TYPES,
  PROTECTION_PLANS,
} from './enums.js';
import { isUri } from './uri.js';
import { lazy } from './lazy-schema.js';

export * from './enums.js';

/** Car-local wall-clock time, `YYYY-MM-DDTHH:MM`. */
export const LOCAL_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
export const LocalDateTime = lazy(() => z.string().check(z.regex(LOCAL_DATE_TIME_RE, 'expected YYYY-MM-DDTHH:MM')));
export const LocalDate = lazy(() => z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')));
const Int = () => z.number().check(z.int());
const Cents = lazy(Int);
const Uuid = lazy(() => z.string().check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a UUID')));

// What is required below is what the spec marks required ("required", "Required: yes"),
// and nothing more: every other member is optional, and where an item shape is written
// `{a: T, b: T}` with no "required", its members are optional too. Lists the spec leaves
// open (reservation status, invoice type, blocked-range kind, extras and protection plans)
// are plain strings; lists it closes (cities, invoice statuses, payment status type...)
// are enums. Renderers show an absent member as missing (docs/compatibility.md).

/**
 * `format: uri` in the OpenAPI document. A registry is keyed by the object it is given, and
 * every schema holds the stand-in, so the stand-in is what is registered, when it is built
 * (the OpenAPI generator builds a schema before it looks up its metadata).
 */
function uriFormat<T extends Zod.ZodMiniString>(standIn: () => T, schema: T): T {
  z.globalRegistry.add(standIn(), { format: 'uri' });
  return schema;
}

/** A URI as the spec types it (RFC 3986), not a WHATWG URL; `format: uri` in the OpenAPI. */
export const Uri: Zod.ZodMiniString = lazy(() => uriFormat(() => Uri, z.string().check(z.refine(isUri, 'expected a URI (RFC 3986)'))));
/**
 * A photo link: typed as a URI in the OpenAPI, but not refused when it is not one, so that
 * a bad photo never fails a command (a car's photos are shown as a count).
 */
const PhotoLink: Zod.ZodMiniString = lazy(() => uriFormat(() => PhotoLink, z.string()));

export const CarPrices = lazy(() => z.looseObject({
  car: z.optional(
    z.looseObject({
      miles_included: z.optional(Int()),
      min_age: z.optional(Int()),
      min_age_without_young_driver_fee: z.optional(Int()),
      price_delivery: z.optional(Cents),
      price_deposit: z.optional(Cents),
      price_extra_mile: z.optional(Cents),
      price_unlimited_mileage: z.optional(Cents),
    }),
  ),
  extras: z.optional(z.array(z.looseObject({ item_type: z.optional(z.string()), price_day: z.optional(Cents), title: z.optional(z.string()) }))),
  protection: z.optional(z.record(z.string(), Cents)),
  trip_fee: z.optional(Cents),
}));

export const BlockedRange = lazy(() => z.looseObject({
  from: z.optional(LocalDateTime),
  kind: z.optional(z.string()),
  to: z.optional(z.nullable(LocalDateTime)),
}));

export const Car = lazy(() => z.looseObject({
  car_alias: z.string(),
  name: z.string(),
  prices: CarPrices,
  car_id: z.optional(Int()),
  city: z.optional(z.enum(CITIES)),
  address: z.optional(z.nullable(z.string())),
  area: z.optional(z.nullable(z.string())),
  body_type: z.optional(z.nullable(z.string())),
  state: z.optional(z.nullable(z.string())),
  zip_code: z.optional(z.nullable(z.string())),
  description: z.optional(z.string()),
  make: z.optional(z.string()),
  model: z.optional(z.string()),
  power_type: z.optional(z.string()),
  year: z.optional(z.string()),
  doors: z.optional(Int()),
  seats: z.optional(Int()),
  mpg: z.optional(z.nullable(Int())),
  insurance_coverage_usd: z.optional(z.nullable(Int())),
  blended_day_rate_cents: z.optional(Cents),
  discounted_day_rate_cents: z.optional(Cents),
  display_trip_total_before_discount_cents: z.optional(Cents),
  display_trip_total_cents: z.optional(Cents),
  rent_trip_total_cents: z.optional(Cents),
  rent_trip_savings_cents: z.optional(Cents),
  trip_days: z.optional(Int()),
  is_available: z.optional(z.boolean()),
  is_hot_deal: z.optional(z.boolean()),
  date_next_block: z.optional(z.nullable(LocalDateTime)),
  blocked_ranges: z.optional(z.array(BlockedRange)),
  photos: z.optional(z.array(PhotoLink)),
  previews: z.optional(z.array(z.string())),
}));

export const CarsPage = lazy(() => z.looseObject({
  cars: z.array(Car),
  total: Int(),
  has_more: z.boolean(),
}));

export const ReservationOptions = lazy(() => z.looseObject({
  protection_plan: z.optional(z.enum(PROTECTION_PLANS)),
  mileage_type: z.optional(z.enum(MILEAGE_TYPES)),
  delivery_type: z.optional(z.enum(DELIVERY_TYPES)),
  delivery_address: z.optional(z.nullable(z.string())),
}));

export const QuoteRequest = lazy(() => z.object({
  car_alias: z.string(),
  date_checkin: LocalDateTime,
  date_checkout: LocalDateTime,
  options: z.optional(ReservationOptions),
  extras: z.optional(z.array(z.string())),
  promo_code: z.optional(z.string()),
}));

export const ReservationCreateRequest = lazy(() => z.extend(QuoteRequest, {
  options: z.looseObject({
    protection_plan: z.enum(PROTECTION_PLANS),
    mileage_type: z.enum(MILEAGE_TYPES),
    delivery_type: z.enum(DELIVERY_TYPES),
    delivery_address: z.optional(z.nullable(z.string())),
  }),
}));

export const Quote = lazy(() => z.looseObject({
  rent_subtotal: Cents,
  rent_discount_amount: Cents,
  protection_total: Cents,
  trip_fee_total: Cents,
  final_total: Cents,
  display_total: Cents,
  display_trip_total: Cents,
  display_mode: z.literal('trip_total'),
  blended_day_rate: Cents,
  discounted_day_rate: Cents,
  deposit_cents: Cents,
  delivery_total: z.optional(Cents),
  extras_total: z.optional(Cents),
  promo_discount_amount: z.optional(Cents),
  unlimited_mileage_total: z.optional(Cents),
}));

export const FinancialSummary = lazy(() => z.looseObject({
  currency: z.literal('USD'),
  trip_total_cents: z.nullable(Cents),
  deposit_cents: z.nullable(Cents),
}));

export const PaymentStatus = lazy(() => z.looseObject({
  type: z.enum(['settled', 'to_pay', 'refund']),
  amount: z.optional(Cents),
  invoice_id: z.optional(Uuid),
  date: z.optional(LocalDate),
}));

export const InvoiceItem = lazy(() => z.looseObject({ id: z.optional(Uuid), amount: z.optional(Cents), description: z.optional(z.string()) }));

export const Invoice = lazy(() => z.looseObject({
  id: Uuid,
  created_at: LocalDateTime,
  currency: z.literal('USD'),
  type: z.string(),
  status: z.enum(INVOICE_STATUSES),
  billing_status: z.enum(INVOICE_STATUSES),
  amount: Cents,
  description: z.string(),
  items: z.array(InvoiceItem),
}));

export const Refund = lazy(() => z.looseObject({
  id: z.optional(z.string()),
  amount_cents: z.optional(Cents),
  status: z.optional(z.enum(['confirmed', 'recorded_unconfirmed', 'failed', 'unknown'])),
  confirmed_at: z.optional(z.nullable(z.string())),
}));

export const CancellationOutcome = lazy(() => z.looseObject({
  status: z.enum(['not_cancelled', 'cancelled', 'unknown']),
  hold_release: z.optional(z.looseObject({ status: z.optional(z.enum(['not_required', 'pending', 'released', 'manual_review', 'unknown'])) })),
  refund_review: z.optional(z.looseObject({ status: z.optional(z.enum(['not_required', 'pending', 'closed', 'unknown'])) })),
  refunds: z.optional(z.array(Refund)),
}));

/** The spec's Trip table marks no member required. */
export const Trip = lazy(() => z.looseObject({
  uuid: z.optional(Uuid),
  status: z.optional(z.string()),
  date_checkin: z.optional(LocalDateTime),
  date_checkout: z.optional(LocalDateTime),
  days: z.optional(Int()),
  balance_cents: z.optional(Cents),
  is_booked: z.optional(z.boolean()),
  car: z.optional(Car),
  financial_summary: z.optional(FinancialSummary),
  payment_status: z.optional(PaymentStatus),
  invoices: z.optional(z.array(Invoice)),
  cancellation_outcome: z.optional(CancellationOutcome),
}));

export const TripsList = lazy(() => z.looseObject({ active: z.array(Trip), history: z.array(Trip) }));

export const ManualAction = lazy(() => z.looseObject({
  action: z.enum(['pay_reservation', 'add_payment_card', 'extend_reservation']),
  status: z.literal('requires_user_action'),
  url: Uri,
  agent_flow_id: Uuid,
}));

export const Card = lazy(() => z.looseObject({
  id: z.string(),
  card_brand: z.string(),
  last4: z.string().check(z.regex(/^\d{4}$/)),
  exp_month: z.number().check(z.int(), z.minimum(1), z.maximum(12)),
  exp_year: Int(),
}));
export const CardList = lazy(() => z.array(Card).check(z.maxLength(1)));

export const VerificationStatus = lazy(() => z.looseObject({
  status: z.enum(['unknown', 'pending', 'verified']),
  is_approved_to_drive: z.boolean(),
  drivers_license: z.looseObject({
    status: z.enum(['unknown', 'pending', 'approved', 'declined']),
    expires_at: z.nullable(LocalDate),
    expired: z.boolean(),
    expiring_soon: z.boolean(),
  }),
}));

/** The spec names four profile fields and requires none of them (nor types `uuid` as a uuid). */
export const Profile = lazy(() => z.looseObject({
  uuid: z.optional(z.string()),
  first_name: z.optional(z.string()),
  is_approved_to_drive: z.optional(z.boolean()),
  payment_methods: z.optional(CardList),
}));

export const ExtensionPriceRequest = lazy(() => z.object({
  modification_type: z.literal('extend'),
  new_checkout_date_time_local: LocalDateTime,
}));
export const ExtensionPrice = lazy(() => z.looseObject({
  additional_days: z.optional(Int()),
  total_amount: z.optional(Cents),
}));

export const PaymentLinkRequest = lazy(() => z.object({ payment_type: z.enum(PAYMENT_TYPES) }));
export const ExtensionLinkRequest = lazy(() => z.object({ checkout: z.optional(LocalDateTime) }));

export const ReservationCreated = Uuid;
/** The bare invoice list of a reservation. */
export const InvoiceList = lazy(() => z.array(Invoice));
export const CancelOk = lazy(() => z.literal('OK'));

export const ApiErrorBody = lazy(() => z.looseObject({
  error: z.string(),
  description: z.optional(z.string()),
  error_code: z.optional(z.string()),
  request_id: z.optional(z.string()),
}));

export type Car = Zod.infer<typeof Car>;
export type CarsPage = Zod.infer<typeof CarsPage>;
export type Quote = Zod.infer<typeof Quote>;
export type QuoteRequest = Zod.infer<typeof QuoteRequest>;
export type ReservationCreateRequest = Zod.infer<typeof ReservationCreateRequest>;
export type Trip = Zod.infer<typeof Trip>;
export type TripsList = Zod.infer<typeof TripsList>;
export type Invoice = Zod.infer<typeof Invoice>;
export type ManualAction = Zod.infer<typeof ManualAction>;
export type Card = Zod.infer<typeof Card>;
export type VerificationStatus = Zod.infer<typeof VerificationStatus>;
export type Profile = Zod.infer<typeof Profile>;
export type ExtensionPrice = Zod.infer<typeof ExtensionPrice>;
export type CancellationOutcome = Zod.infer<typeof CancellationOutcome>;
export type PaymentStatus = Zod.infer<typeof PaymentStatus>;
export type ApiErrorBody = Zod.infer<typeof ApiErrorBody>;
