// The seeded world: customers, their keys and the demo trips in every state. Trips are
// produced by the same transitions the API uses (rules.ts), run at past instants, so the
// fixtures obey the same invariants as anything created later.
import { createHash } from 'node:crypto';
import { CITY_TIME_ZONES } from '../api/schemas.js';
import { addDaysToDate, localNow, parseLocal } from './clock.js';
import { DEFAULT_CONFIG } from './config.js';
import { type CarRec, type Fleet, buildFleet } from './fleet.js';
import { priceTrip, tripDays, type TripSelection } from './pricing.js';
import { findPromo } from './promos.js';
import { createRng } from './prng.js';
import { isAvailable } from './availability.js';
import type { RuleEnv } from './facts.js';
import {
  cancelReservation,
  confirmRefunds,
  extendCheckout,
  insertReservation,
  payRentInvoice,
  placeDepositHold,
} from './rules.js';
import type { CheckedTrip } from './trip-request.js';
import {
  type CustomerRec,
  type ReservationOptionsRec,
  type ReservationRec,
  type SandboxState,
  STATE_FORMAT,
  STATE_VERSION,
  forgetIndexes,
} from './state.js';

export interface SandboxKeys {
  booking_write: string;
  read_only: string;
  other_customer: string;
  unverified: string;
  no_card_payments: string;
}

/** Credentials beyond SandboxKeys, for tests of the remaining rules. */
export interface SandboxExtraCredentials {
  /** booking_write key of a customer whose driver's licence has expired. */
  expired_licence: string;
  /** A revoked read_only key of the demo customer. */
  revoked: string;
  /** The demo customer's web-application login token (Authorization: Bearer app_...). */
  app_token: string;
}

const token = (seed: number, label: string, prefix: 'svc_' | 'app_') =>
  prefix + createHash('sha256').update(`carrental-sandbox:${seed}:${label}`).digest('hex').slice(0, 32);

/** Pure: the same seed always yields the same keys, so they can be printed in docs and tests. */
export function sandboxKeys(seed = 1): SandboxKeys {
  return {
    booking_write: token(seed, 'dana/booking_write', 'svc_'),
    read_only: token(seed, 'dana/read_only', 'svc_'),
    other_customer: token(seed, 'omar/booking_write', 'svc_'),
    unverified: token(seed, 'lee/booking_write', 'svc_'),
    no_card_payments: token(seed, 'sam/booking_write', 'svc_'),
  };
}

export function sandboxExtraCredentials(seed = 1): SandboxExtraCredentials {
  return {
    expired_licence: token(seed, 'pat/booking_write', 'svc_'),
    revoked: token(seed, 'dana/revoked', 'svc_'),
    app_token: token(seed, 'dana', 'app_'),
  };
}

function customers(seed: number, day: string): CustomerRec[] {
  const id = (handle: string) => createRng(seed, `customer:${handle}`).uuid();
  const keys = sandboxKeys(seed);
  const extra = sandboxExtraCredentials(seed);
  const year = Number(day.slice(0, 4));
  return [
    {
      id: id('dana'),
      handle: 'dana',
      first_name: 'Dana',
      last_name: 'Reyes',
      email: 'dana.reyes@example.com',
      licence: { status: 'approved', expires_at: addDaysToDate(day, 3 * 365) },
      card_payments_enabled: true,
      card: { id: 'card_demo_dana_visa', card_brand: 'visa', last4: '4242', exp_month: 12, exp_year: year + 3 },
      keys: [
        { key: keys.read_only, capability: 'read_only', revoked: false },
        { key: keys.booking_write, capability: 'booking_write', revoked: false },
        { key: extra.revoked, capability: 'read_only', revoked: true },
      ],
      app_token: extra.app_token,
    },
    {
      id: id('omar'),
      handle: 'omar',
      first_name: 'Omar',
      last_name: 'Haddad',
      email: 'omar.haddad@example.com',
      // Still approved, but within 30 days of expiry.
      licence: { status: 'approved', expires_at: addDaysToDate(day, 20) },
      card_payments_enabled: true,
      card: { id: 'card_demo_omar_mc', card_brand: 'mastercard', last4: '5454', exp_month: 6, exp_year: year + 2 },
      keys: [{ key: keys.other_customer, capability: 'booking_write', revoked: false }],
      app_token: token(seed, 'omar', 'app_'),
    },
    {
      id: id('lee'),
      handle: 'lee',
      first_name: 'Lee',
      last_name: 'Park',
      email: 'lee.park@example.com',
      licence: { status: 'pending', expires_at: null },
      card_payments_enabled: true,
      card: null,
      keys: [{ key: keys.unverified, capability: 'booking_write', revoked: false }],
      app_token: token(seed, 'lee', 'app_'),
    },
    {
      id: id('sam'),
      handle: 'sam',
      first_name: 'Sam',
      last_name: 'Okafor',
      email: 'sam.okafor@example.com',
      licence: { status: 'approved', expires_at: addDaysToDate(day, 2 * 365) },
      card_payments_enabled: false,
      card: null,
      keys: [{ key: keys.no_card_payments, capability: 'booking_write', revoked: false }],
      app_token: token(seed, 'sam', 'app_'),
    },
    {
      id: id('pat'),
      handle: 'pat',
      first_name: 'Pat',
      last_name: 'Morgan',
      email: 'pat.morgan@example.com',
      licence: { status: 'approved', expires_at: addDaysToDate(day, -10) },
      card_payments_enabled: true,
      card: { id: 'card_demo_pat_amex', card_brand: 'amex', last4: '0005', exp_month: 3, exp_year: year + 1 },
      keys: [{ key: extra.expired_licence, capability: 'booking_write', revoked: false }],
      app_token: token(seed, 'pat', 'app_'),
    },
  ];
}

const DAY_MS = 86_400_000;

interface FixtureTrip {
  car: CarRec;
  from: string;
  to: string;
  options?: Partial<ReservationOptionsRec>;
  extras?: string[];
  promo?: string;
}

/**
 * The day a state seeded at the sandbox clock's `instant` is placed around: the date in Los
 * Angeles, the fleet's westernmost city. Every car-local "today" at that instant is this
 * day (Los Angeles) or the next (Miami after 21:00 in Los Angeles), never the day before, so
 * a car-local "tomorrow" is always a day after the seeded "today": a block that ends on the
 * seeding day never covers it. (The UTC date, used before, is a day ahead of Los Angeles
 * every evening: "tomorrow 10:00" then fell on the seeding day, inside its blocks.)
 */
export function seedDay(instant: Date): string {
  return localNow(instant, CITY_TIME_ZONES.la).slice(0, 10);
}

/**
 * The anchor stored for a state seeded at `instant`: noon UTC of seedDay, an instant on that
 * date in UTC and in both cities, so the state's UTC anchor date is the seeding day and a
 * state seeded any time of one seeding day is the same, byte for byte.
 */
export function seedAnchor(instant: Date): Date {
  return new Date(`${seedDay(instant)}T12:00:00.000Z`);
}

/**
 * Builds the demo world seeded at the sandbox clock's `instant`; pure in (seed, fleetSize,
 * seedDay(instant)). Every date in it is relative to that day (docs/sandbox.md, "The seeded world").
 */
export function seedState(seed: number, fleetSize: number, instant: Date): SandboxState {
  const anchor = seedAnchor(instant);
  const day = anchor.toISOString().slice(0, 10);
  const fleet: Fleet = buildFleet(seed, day, fleetSize);
  const ids = createRng(seed, 'fixture-ids');
  const state: SandboxState = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    seed,
    fleetSize,
    anchor: anchor.toISOString(),
    clockOffsetMs: 0,
    customers: customers(seed, day),
    reservations: {},
    invoices: {},
    refunds: {},
    idempotency: {},
    usedPromos: {},
    agentFlows: {},
  };
  // Fixture rules use the defaults, so the seeded world never depends on runtime knobs.
  const env: RuleEnv = { now: anchor, newId: () => ids.uuid(), config: DEFAULT_CONFIG, fleet, anchorDay: day };
  const at = (daysFromAnchor: number) => {
    env.now = new Date(anchor.getTime() + daysFromAnchor * DAY_MS);
    return env;
  };
  const local = (offset: number, time = '10:00') => `${addDaysToDate(day, offset)}T${time}`;
  // The first car from index n on that no fixture block or earlier paid trip overlaps, so
  // the fixture trips pass the same availability checks as any payment.
  const car = (n: number, fromOffset: number, toOffset: number) => {
    const from = parseLocal(local(fromOffset)) as number;
    const to = parseLocal(local(toOffset)) as number;
    for (let i = 0; i < fleet.cars.length; i++) {
      const c = fleet.cars[(n + i) % fleet.cars.length];
      if (isAvailable(state, c, from, to)) return c;
    }
    throw new Error('the fleet is too small to hold the fixture trips');
  };
  const [dana, omar] = state.customers;

  const book = (customer: CustomerRec, createdDaysAgo: number, t: FixtureTrip): ReservationRec => {
    const options: ReservationOptionsRec = {
      protection_plan: 'minimum',
      mileage_type: 'limited',
      delivery_type: 'pickup',
      delivery_address: null,
      ...t.options,
    };
    const extras = (t.extras ?? []).filter((x) => t.car.prices.extras.some((e) => e.item_type === x));
    const promo = t.promo ? findPromo(day, t.promo) ?? null : null;
    const selection: TripSelection = { ...options, extras, promo: promo && { code: promo.code, kind: promo.kind, value: promo.value } };
    const checkin = parseLocal(t.from) as number;
    const checkout = parseLocal(t.to) as number;
    const trip: CheckedTrip = {
      car: t.car,
      request: { car_alias: t.car.car_alias, date_checkin: t.from, date_checkout: t.to, checkin, checkout, options, extras, promo_code: promo?.code ?? null },
      selection,
      breakdown: priceTrip(t.car, tripDays(checkin, checkout), selection),
      promo,
    };
    return insertReservation(state, at(-createdDaysAgo), customer, trip);
  };
  // The end of a trip: recorded complete, the deposit authorization released.
  const complete = (r: ReservationRec) => {
    r.status = 'complete';
    for (const inv of Object.values(state.invoices)) {
      if (inv.reservation_uuid === r.uuid && inv.type === 'DEPOSIT' && inv.billing_status !== 'PAID') inv.billing_status = 'CANCELLED';
    }
    forgetIndexes(state);
  };

  // Dana: a complete trip paid with the one-time FIRSTRIDE code (so she has used it).
  const t1 = book(dana, 50, { car: car(0, -40, -36), from: local(-40), to: local(-36), promo: 'FIRSTRIDE' });
  payRentInvoice(state, at(-50), t1.uuid);
  placeDepositHold(state, at(-41), t1.uuid);
  complete(t1);

  // A week with standard protection and extras, extended by a paid day, complete.
  const t2 = book(dana, 30, { car: car(7, -20, -12), from: local(-20), to: local(-13), options: { protection_plan: 'standard' }, extras: ['child_seat', 'gps', 'cooler'] });
  payRentInvoice(state, at(-30), t2.uuid);
  placeDepositHold(state, at(-21), t2.uuid);
  extendCheckout(state, at(-21), t2.uuid, local(-12));
  payRentInvoice(state, at(-21), t2.uuid);
  complete(t2);

  // Cancelled early after payment: hold released, refund confirmed, review closed.
  const t3 = book(dana, 45, { car: car(12, -30, -27), from: local(-30), to: local(-27) });
  payRentInvoice(state, at(-45), t3.uuid);
  placeDepositHold(state, at(-44), t3.uuid);
  cancelReservation(state, at(-35), dana, t3.uuid);
  confirmRefunds(state, at(-31), t3.uuid);

  // Cancelled before the outcome was recorded: outcome unknown, trip total unclassifiable.
  const t4 = book(dana, 70, { car: car(3, -60, -57), from: local(-60), to: local(-57) });
  cancelReservation(state, at(-65), dana, t4.uuid);
  t4.cancellation = null;
  t4.legacy_cancellation = true;

  // Complete, with a manual goodwill adjustment: trip_total_cents is null.
  const t7 = book(dana, 25, { car: car(21, -15, -12), from: local(-15), to: local(-12), options: { mileage_type: 'unlimited' } });
  payRentInvoice(state, at(-25), t7.uuid);
  complete(t7);
  t7.manual_adjustment = true;
  const adj = ids.uuid();
  state.invoices[adj] = {
    id: adj,
    customer_id: dana.id,
    reservation_uuid: t7.uuid,
    created_at: new Date(anchor.getTime() - 11 * DAY_MS).toISOString().slice(0, 16),
    type: 'ADJUSTMENT',
    billing_status: 'PAID',
    amount: -2500,
    description: 'Manual adjustment: goodwill credit for a late pickup',
    items: [{ id: ids.uuid(), amount: -2500, description: 'Goodwill credit' }],
  };

  // Paid, then cancelled: refund recorded but not confirmed, payment_status `refund`.
  const t8 = book(dana, 10, { car: car(5, 5, 8), from: local(5), to: local(8) });
  payRentInvoice(state, at(-10), t8.uuid);
  placeDepositHold(state, at(-10), t8.uuid);
  cancelReservation(state, at(-1), dana, t8.uuid);

  // Upcoming and unpaid: reading it prepares the debt invoice.
  book(dana, 2, { car: car(1, 10, 13), from: local(10), to: local(13), options: { delivery_type: 'delivery', delivery_address: '1 Ocean Ave, Santa Monica' } });

  // Upcoming, paid, deposit held: settled and booked.
  const t6 = book(dana, 5, { car: car(10, 20, 25), from: local(20), to: local(25) });
  payRentInvoice(state, at(-5), t6.uuid);
  placeDepositHold(state, at(-5), t6.uuid);

  // The second customer's own trips (isolation).
  book(omar, 3, { car: car(2, 7, 9), from: local(7), to: local(9) });
  const o2 = book(omar, 20, { car: car(4, -10, -8), from: local(-10), to: local(-8) });
  payRentInvoice(state, at(-20), o2.uuid);
  complete(o2);

  forgetIndexes(state);
  return state;
}
