// The API's resources, described once. The client validates every response with these,
// the sandbox builds its responses to them and generates its OpenAPI document from them.
// Objects are loose: the spec allows fields beyond those listed, and --json prints the
// payload as the server sent it.
import * as z from 'zod';

// zod's JIT builds a parser per object schema with new Function on first use: worth it in a
// long-running server, a loss in a command that parses a few responses and exits (the
// first parse of a 50-car page costs about twice as much with it).
z.config({ jitless: true });

import {
  CITIES,
  DELIVERY_TYPES,
  INVOICE_STATUSES,
  MILEAGE_TYPES,
  PAYMENT_TYPES,
  PROTECTION_PLANS,
} from './enums.js';

export * from './enums.js';

/** Car-local wall-clock time, `YYYY-MM-DDTHH:MM`. */
export const LOCAL_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
export const LocalDateTime = z.string().regex(LOCAL_DATE_TIME_RE, 'expected YYYY-MM-DDTHH:MM');
export const LocalDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
const Cents = z.number().int();
const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a UUID');

export const CarPrices = z.looseObject({
  car: z.looseObject({
    miles_included: z.number().int(),
    min_age: z.number().int(),
    min_age_without_young_driver_fee: z.number().int(),
    price_delivery: Cents,
    price_deposit: Cents,
    price_extra_mile: Cents,
    price_unlimited_mileage: Cents,
  }),
  extras: z.array(z.looseObject({ item_type: z.string(), price_day: Cents, title: z.string() })),
  protection: z.record(z.string(), Cents),
  trip_fee: Cents,
});

export const BlockedRange = z.looseObject({
  from: LocalDateTime,
  kind: z.string(),
  to: LocalDateTime.nullable(),
});

export const Car = z.looseObject({
  car_alias: z.string(),
  name: z.string(),
  prices: CarPrices,
  car_id: z.number().int().optional(),
  city: z.enum(CITIES).optional(),
  address: z.string().nullable().optional(),
  area: z.string().nullable().optional(),
  body_type: z.string().nullable().optional(),
  state: z.string().nullable().optional(),
  zip_code: z.string().nullable().optional(),
  description: z.string().optional(),
  make: z.string().optional(),
  model: z.string().optional(),
  power_type: z.string().optional(),
  year: z.string().optional(),
  doors: z.number().int().optional(),
  seats: z.number().int().optional(),
  mpg: z.number().int().nullable().optional(),
  insurance_coverage_usd: z.number().int().nullable().optional(),
  blended_day_rate_cents: Cents.optional(),
  discounted_day_rate_cents: Cents.optional(),
  display_trip_total_before_discount_cents: Cents.optional(),
  display_trip_total_cents: Cents.optional(),
  rent_trip_total_cents: Cents.optional(),
  rent_trip_savings_cents: Cents.optional(),
  trip_days: z.number().int().optional(),
  is_available: z.boolean().optional(),
  is_hot_deal: z.boolean().optional(),
  date_next_block: z.string().nullable().optional(),
  blocked_ranges: z.array(BlockedRange).optional(),
  photos: z.array(z.string()).optional(),
  previews: z.array(z.string()).optional(),
});

export const CarsPage = z.looseObject({
  cars: z.array(Car),
  total: z.number().int(),
  has_more: z.boolean(),
});

export const ReservationOptions = z.looseObject({
  protection_plan: z.enum(PROTECTION_PLANS).optional(),
  mileage_type: z.enum(MILEAGE_TYPES).optional(),
  delivery_type: z.enum(DELIVERY_TYPES).optional(),
  delivery_address: z.string().nullable().optional(),
});

export const QuoteRequest = z.object({
  car_alias: z.string(),
  date_checkin: LocalDateTime,
  date_checkout: LocalDateTime,
  options: ReservationOptions.optional(),
  extras: z.array(z.string()).optional(),
  promo_code: z.string().optional(),
});

export const ReservationCreateRequest = QuoteRequest.extend({
  options: z.looseObject({
    protection_plan: z.enum(PROTECTION_PLANS),
    mileage_type: z.enum(MILEAGE_TYPES),
    delivery_type: z.enum(DELIVERY_TYPES),
    delivery_address: z.string().nullable().optional(),
  }),
});

export const Quote = z.looseObject({
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
  delivery_total: Cents.optional(),
  extras_total: Cents.optional(),
  promo_discount_amount: Cents.optional(),
  unlimited_mileage_total: Cents.optional(),
});

export const FinancialSummary = z.looseObject({
  currency: z.literal('USD'),
  trip_total_cents: Cents.nullable(),
  deposit_cents: Cents.nullable(),
});

export const PaymentStatus = z.looseObject({
  type: z.enum(['settled', 'to_pay', 'refund']),
  amount: Cents.optional(),
  invoice_id: Uuid.optional(),
  date: LocalDate.optional(),
});

export const InvoiceItem = z.looseObject({ id: Uuid, amount: Cents, description: z.string() });

export const Invoice = z.looseObject({
  id: Uuid,
  created_at: LocalDateTime,
  currency: z.literal('USD'),
  type: z.string(),
  status: z.enum(INVOICE_STATUSES),
  billing_status: z.enum(INVOICE_STATUSES),
  amount: Cents,
  description: z.string(),
  items: z.array(InvoiceItem),
});

export const Refund = z.looseObject({
  id: z.string(),
  amount_cents: Cents,
  status: z.enum(['confirmed', 'recorded_unconfirmed', 'failed', 'unknown']),
  confirmed_at: z.string().nullable(),
});

export const CancellationOutcome = z.looseObject({
  status: z.enum(['not_cancelled', 'cancelled', 'unknown']),
  hold_release: z
    .looseObject({ status: z.enum(['not_required', 'pending', 'released', 'manual_review', 'unknown']) })
    .optional(),
  refund_review: z.looseObject({ status: z.enum(['not_required', 'pending', 'closed', 'unknown']) }).optional(),
  refunds: z.array(Refund).optional(),
});

export const Trip = z.looseObject({
  uuid: Uuid,
  status: z.string(),
  date_checkin: LocalDateTime,
  date_checkout: LocalDateTime,
  days: z.number().int(),
  balance_cents: Cents,
  is_booked: z.boolean().optional(),
  car: Car,
  financial_summary: FinancialSummary,
  payment_status: PaymentStatus.optional(),
  invoices: z.array(Invoice).optional(),
  cancellation_outcome: CancellationOutcome.optional(),
});

export const TripsList = z.looseObject({ active: z.array(Trip), history: z.array(Trip) });

export const ManualAction = z.looseObject({
  action: z.enum(['pay_reservation', 'add_payment_card', 'extend_reservation']),
  status: z.literal('requires_user_action'),
  url: z.string().url(),
  agent_flow_id: Uuid,
});

export const Card = z.looseObject({
  id: z.string(),
  card_brand: z.string(),
  last4: z.string().regex(/^\d{4}$/),
  exp_month: z.number().int().min(1).max(12),
  exp_year: z.number().int(),
});
export const CardList = z.array(Card).max(1);

export const VerificationStatus = z.looseObject({
  status: z.enum(['unknown', 'pending', 'verified']),
  is_approved_to_drive: z.boolean(),
  drivers_license: z.looseObject({
    status: z.enum(['unknown', 'pending', 'approved', 'declined']),
    expires_at: LocalDate.nullable(),
    expired: z.boolean(),
    expiring_soon: z.boolean(),
  }),
});

export const Profile = z.looseObject({
  uuid: Uuid,
  first_name: z.string(),
  is_approved_to_drive: z.boolean(),
  payment_methods: CardList,
});

export const ExtensionPriceRequest = z.object({
  modification_type: z.literal('extend'),
  new_checkout_date_time_local: LocalDateTime,
});
export const ExtensionPrice = z.looseObject({
  additional_days: z.number().int(),
  total_amount: Cents,
});

export const PaymentLinkRequest = z.object({ payment_type: z.enum(PAYMENT_TYPES) });
export const ExtensionLinkRequest = z.object({ checkout: LocalDateTime.optional() });

export const ReservationCreated = Uuid;
export const CancelOk = z.literal('OK');

export const ApiErrorBody = z.looseObject({
  error: z.string(),
  description: z.string().optional(),
  error_code: z.string().optional(),
  request_id: z.string().optional(),
});

export type Car = z.infer<typeof Car>;
export type CarsPage = z.infer<typeof CarsPage>;
export type Quote = z.infer<typeof Quote>;
export type QuoteRequest = z.infer<typeof QuoteRequest>;
export type ReservationCreateRequest = z.infer<typeof ReservationCreateRequest>;
export type Trip = z.infer<typeof Trip>;
export type TripsList = z.infer<typeof TripsList>;
export type Invoice = z.infer<typeof Invoice>;
export type ManualAction = z.infer<typeof ManualAction>;
export type Card = z.infer<typeof Card>;
export type VerificationStatus = z.infer<typeof VerificationStatus>;
export type Profile = z.infer<typeof Profile>;
export type ExtensionPrice = z.infer<typeof ExtensionPrice>;
export type CancellationOutcome = z.infer<typeof CancellationOutcome>;
export type PaymentStatus = z.infer<typeof PaymentStatus>;
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
