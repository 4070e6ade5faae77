// The resource tables of the API spec (docs: "Resources and their fields"), transcribed by
// hand and on purpose independent of src/api/schemas.ts: this is what an outsider who
// read only the spec would build a server from. A member is `required` only where the spec
// says "required" or "Required: yes"; `nullable` where it says "or null"; `open` marks the
// lists the spec leaves open ("full list: not shown", or no values listed at all).

export type Type =
  | { kind: 'string'; format?: 'uuid' | 'local' | 'date' | 'utc' | 'uri' | 'last4'; values?: readonly string[]; open?: boolean }
  | { kind: 'int'; min?: number; max?: number }
  | { kind: 'bool' }
  | { kind: 'const'; value: string }
  | { kind: 'ref'; name: ResourceName }
  | { kind: 'array'; of: Type; max?: number }
  /** An object whose keys are an open list (protection plans). */
  | { kind: 'map'; keys: readonly string[]; of: Type }
  | { kind: 'object'; fields: Field[] };

export type ResourceName =
  | 'Car'
  | 'CarPrices'
  | 'CarsPage'
  | 'Quote'
  | 'Trip'
  | 'FinancialSummary'
  | 'PaymentStatus'
  | 'Invoice'
  | 'CancellationOutcome'
  | 'ManualAction'
  | 'Card'
  | 'VerificationStatus'
  | 'Profile'
  | 'ExtensionPrice'
  | 'TripsList';

export interface Field {
  name: string;
  type: Type;
  required?: boolean;
  nullable?: boolean;
}

const str = (extra: Omit<Extract<Type, { kind: 'string' }>, 'kind'> = {}): Type => ({ kind: 'string', ...extra });
const int = (min?: number, max?: number): Type => ({ kind: 'int', min, max });
const bool: Type = { kind: 'bool' };
const ref = (name: ResourceName): Type => ({ kind: 'ref', name });
const arr = (of: Type, max?: number): Type => ({ kind: 'array', of, max });
const obj = (...fields: Field[]): Type => ({ kind: 'object', fields });
const f = (name: string, type: Type, opts: { required?: boolean; nullable?: boolean } = {}): Field => ({ name, type, ...opts });
const req = (name: string, type: Type, nullable = false): Field => ({ name, type, required: true, nullable });
/** Several members of one type, as the spec lists them on one line. */
const many = (names: string[], type: Type, opts: { nullable?: boolean } = {}): Field[] => names.map((n) => f(n, type, opts));

// Closed lists name their richest value first (the one that makes a renderer say the most).
export const RESOURCES: Record<ResourceName, Field[]> = {
  Car: [
    req('car_alias', str()),
    req('name', str()),
    req('prices', ref('CarPrices')),
    f('car_id', int()),
    f('city', str({ values: ['la', 'miami'] })),
    ...many(['address', 'area', 'body_type', 'state', 'zip_code'], str({ open: true }), { nullable: true }),
    ...many(['description', 'make', 'model', 'power_type', 'year'], str()),
    ...many(['doors', 'seats'], int(0)),
    f('mpg', int(0), { nullable: true }),
    f('insurance_coverage_usd', int(0), { nullable: true }),
    ...many(['blended_day_rate_cents', 'discounted_day_rate_cents', 'display_trip_total_before_discount_cents', 'display_trip_total_cents', 'rent_trip_total_cents', 'rent_trip_savings_cents', 'trip_days'], int(0)),
    f('is_available', bool),
    f('is_hot_deal', bool),
    f('date_next_block', str({ format: 'local' }), { nullable: true }),
    f('blocked_ranges', arr(obj(f('from', str({ format: 'local' })), f('kind', str({ values: ['booking'], open: true })), f('to', str({ format: 'local' }), { nullable: true })))),
    f('photos', arr(str({ format: 'uri' }))),
    f('previews', arr(str())),
  ],
  CarPrices: [
    f(
      'car',
      obj(...many(['miles_included', 'min_age', 'min_age_without_young_driver_fee', 'price_delivery', 'price_deposit', 'price_extra_mile', 'price_unlimited_mileage'], int(0))),
    ),
    f('extras', arr(obj(f('item_type', str({ values: ['child_seat'], open: true })), f('price_day', int(0)), f('title', str())))),
    f('protection', { kind: 'map', keys: ['minimum', 'standard'], of: int(0) }),
    f('trip_fee', int(0)),
  ],
  CarsPage: [req('cars', arr(ref('Car'))), req('total', int(0)), req('has_more', bool)],
  Quote: [
    ...['rent_subtotal', 'rent_discount_amount', 'protection_total', 'trip_fee_total', 'final_total', 'display_total', 'display_trip_total'].map((n) => req(n, int(0))),
    req('display_mode', { kind: 'const', value: 'trip_total' }),
    ...['blended_day_rate', 'discounted_day_rate', 'deposit_cents'].map((n) => req(n, int(0))),
    ...many(['delivery_total', 'extras_total', 'promo_discount_amount', 'unlimited_mileage_total'], int(0)),
  ],
  Trip: [
    f('uuid', str({ format: 'uuid' })),
    f('status', str({ values: ['new', 'complete', 'cancelled'], open: true })),
    f('date_checkin', str({ format: 'local' })),
    f('date_checkout', str({ format: 'local' })),
    f('days', int(0)),
    f('balance_cents', int()),
    f('is_booked', bool),
    f('car', ref('Car')),
    f('financial_summary', ref('FinancialSummary')),
    f('payment_status', ref('PaymentStatus')),
    f('invoices', arr(ref('Invoice'))),
    f('cancellation_outcome', ref('CancellationOutcome')),
  ],
  FinancialSummary: [req('currency', { kind: 'const', value: 'USD' }), req('trip_total_cents', int(), true), req('deposit_cents', int(), true)],
  PaymentStatus: [
    req('type', str({ values: ['to_pay', 'refund', 'settled'] })),
    f('amount', int()),
    f('invoice_id', str({ format: 'uuid' })),
    f('date', str({ format: 'date' })),
  ],
  Invoice: [
    req('id', str({ format: 'uuid' })),
    req('created_at', str({ format: 'utc' })),
    req('currency', { kind: 'const', value: 'USD' }),
    req('type', str({ values: ['RENT', 'DEPOSIT', 'EXTEND', 'FEE_RENT', 'REFUND', 'DEBT'], open: true })),
    req('status', str({ values: ['HOLD', 'ISSUED', 'PAID', 'CANCELLED'] })),
    req('billing_status', str({ values: ['HOLD', 'ISSUED', 'PAID', 'CANCELLED'] })),
    req('amount', int()),
    req('description', str()),
    req('items', arr(obj(f('id', str({ format: 'uuid' })), f('amount', int()), f('description', str())))),
  ],
  CancellationOutcome: [
    req('status', str({ values: ['cancelled', 'not_cancelled', 'unknown'] })),
    f('hold_release', obj(f('status', str({ values: ['pending', 'not_required', 'released', 'manual_review', 'unknown'] })))),
    f('refund_review', obj(f('status', str({ values: ['pending', 'not_required', 'closed', 'unknown'] })))),
    f(
      'refunds',
      arr(obj(f('id', str()), f('amount_cents', int()), f('status', str({ values: ['confirmed', 'recorded_unconfirmed', 'failed', 'unknown'] })), f('confirmed_at', str({ format: 'utc' }), { nullable: true }))),
    ),
  ],
  ManualAction: [
    req('action', str({ values: ['pay_reservation', 'add_payment_card', 'extend_reservation'] })),
    req('status', { kind: 'const', value: 'requires_user_action' }),
    req('url', str({ format: 'uri' })),
    req('agent_flow_id', str({ format: 'uuid' })),
  ],
  Card: [req('id', str()), req('card_brand', str()), req('last4', str({ format: 'last4' })), req('exp_month', int(1, 12)), req('exp_year', int(2000))],
  VerificationStatus: [
    req('status', str({ values: ['pending', 'verified', 'unknown'] })),
    req('is_approved_to_drive', bool),
    req(
      'drivers_license',
      obj(req('status', str({ values: ['pending', 'unknown', 'approved', 'declined'] })), req('expires_at', str({ format: 'date' }), true), req('expired', bool), req('expiring_soon', bool)),
    ),
  ],
  // "Profile fields: not shown beyond uuid, first_name, is_approved_to_drive and payment_methods"
  Profile: [f('uuid', str()), f('first_name', str()), f('is_approved_to_drive', bool), f('payment_methods', arr(ref('Card'), 1))],
  // "Extension price preview fields: not shown beyond additional_days and total_amount"
  ExtensionPrice: [f('additional_days', int(0)), f('total_amount', int(0))],
  // GET /my/trips: `{data: {active: array of Trip, history: array of Trip}}`
  TripsList: [req('active', arr(ref('Trip'))), req('history', arr(ref('Trip')))],
};

