// The MCP tools: one per user-level operation of the API, keyed by the operation's id in
// src/api/operations.ts, each in one toolset (catalog, account, links, booking). Inputs are
// built from the request schemas of src/api/schemas.ts and checked again with the CLI's own
// parsers; results are compact, for a model to read: money once per amount in integer
// cents, car-local dates as the API sends them with the zone named once, a car as the few
// fields an agent needs (more on request). Writes go through the booking core
// (src/booking/) and need a confirmation the server issued (confirmation.ts).
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { NO_RETRY } from '../api/client.js';
import type { Api, CarsQuery } from '../api/endpoints.js';
import { BODY_TYPES, CITIES, ORDER_BY, PAYMENT_TYPES } from '../api/enums.js';
import * as S from '../api/schemas.js';
import { journalBaseUrl, type JournaledWrite } from '../booking/journaled-write.js';
import { readReservation } from '../booking/read.js';
import { cancelCommand, commitCancel, createCommand, createReservation, planCancel, type BookingDeps } from '../booking/reservations.js';
import type { Target } from '../cli/services.js';
import { buildCreateRequest } from '../commands/reserve.js';
import { parseAlias, parseIntOption, parseUuid } from '../commands/parse.js';
import { usageError } from '../errors.js';
import { parseLocalDateTime, zoneOf } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import type { Output } from '../render/output.js';
import { credentialFingerprint } from '../store/journal.js';
import { CONFIRMATION_MINUTES, Confirmations, ToolError } from './confirmation.js';
import { LINK_REMINDER } from './results.js';

export const TOOLSETS = ['catalog', 'account', 'links', 'booking'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** What a tool needs; built once per server, `api()` once per call (it carries the host's name). */
export interface ToolDeps {
  api(): Api;
  target: Target;
  /** Progress and notes of the journaled writes: the server's stderr, never the protocol stream. */
  out: Output;
  now(): Date;
  /** Present only when reserve and cancel_reservation are registered. */
  writer?: JournaledWrite;
  /** Present only when reserve and cancel_reservation are registered: quote and get_trip issue confirmations. */
  confirmations?: Confirmations;
  /**
   * Asks the human through the host (MCP elicitation), when the host declared it can: yes
   * only when they accepted the form and ticked it. Undefined when the host cannot ask.
   */
  askCustomer?(): ((message: string, field: string) => Promise<'accept' | 'decline' | 'cancel'>) | undefined;
  /** Where a create or cancel says its idempotency key, for a resume step when the outcome is unknown. */
  onWriteKey?: (key: string) => void;
}

export interface ToolDef {
  name: string;
  /** The operation's id in OPERATIONS. */
  operation: string;
  toolset: Toolset;
  title: string;
  description: string;
  input: $ZodType;
  run(args: never, deps: ToolDeps): Promise<Record<string, unknown>>;
}

/** Said once in the description of every tool that returns money, instead of a formatted copy of each amount. */
const MONEY = 'Amounts are integer US cents (USD; 12345 is $123.45); _usd fields are whole dollars.';
const LOCAL = 'car-local YYYY-MM-DDTHH:MM in the car’s city zone (la: America/Los_Angeles, miami: America/New_York); never UTC';

/** search_cars: the default page size, small enough for an agent's context. */
export const SEARCH_PAGE = 10;
/** The compact car of search_cars; `fields` adds others. */
export const COMPACT_CAR = ['car_alias', 'name', 'city', 'body_type', 'seats', 'discounted_day_rate_cents', 'display_trip_total_cents', 'is_available'] as const;
const CAR_FIELDS = Object.keys((S.Car as unknown as { _zod: { def: { shape: Record<string, unknown> } } })._zod.def.shape) as [string, ...string[]];

const describe = <T extends $ZodType>(schema: T, text: string): T => (schema as unknown as { check(c: unknown): T }).check(z.describe(text));
const shape = (schema: $ZodType) => (schema as unknown as { _zod: { def: { shape: Record<string, $ZodType> } } })._zod.def.shape;

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const reservationUuid = describe(z.string().check(z.regex(UUID_RE, 'expected a UUID')), 'reservation uuid (list_trips)');

const Q = shape(S.QuoteRequest);
const O = shape(S.ReservationOptions);
const tripInput = {
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

interface TripArgs {
  car_alias: string;
  date_checkin: string;
  date_checkout: string;
  options?: { protection_plan?: 'minimum' | 'standard'; mileage_type?: 'limited' | 'unlimited'; delivery_type?: 'pickup' | 'delivery'; delivery_address?: string };
  extras?: string[];
  promo_code?: string;
}

/** The CLI's alias check, in the tools' words for an empty one (the CLI's names a command). */
function alias(value: string): string {
  if (!value.trim()) throw usageError('car_alias is empty: search_cars lists the car aliases');
  return parseAlias(value);
}

/** A car-local date checked as the CLI checks it (a real calendar date), named by its field. */
const localDate = (value: string, field: string) => parseLocalDateTime(value, field);

function checkOrder(from: string, to: string, fromName: string, toName: string): void {
  if (to <= from) throw usageError(`${toName} (${to}) must be after ${fromName} (${from})`);
}

/** The canonical ReservationCreateRequest, the same the `reserve` command builds (same journal entry). */
function tripRequest(args: TripArgs): S.ReservationCreateRequest {
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

/** What a confirmation is bound to besides the request: this API and this credential. */
function binding(deps: ToolDeps, request: unknown): string {
  return Confirmations.binding([journalBaseUrl(deps.target), credentialFingerprint(deps.target.apiKey ?? ''), request]);
}

/** A write the customer declined in the host's form: nothing was sent. */
const declined = (answer: 'decline' | 'cancel', what: string) => ({
  sent: false,
  confirmed_by: 'elicitation',
  customer_answer: answer,
  note: `The customer ${answer === 'decline' ? 'declined' : 'dismissed'} the confirmation: nothing was ${what}.`,
});

const QUOTE_AGAIN = 'call quote again with the same arguments, show the customer the new total and deposit, and once they agree call reserve with the new confirmation';
const READ_AGAIN = 'call get_trip for this reservation again, confirm the cancellation with the customer, and call cancel_reservation with its cancel_confirmation';

/** A note under the links of the embedded sandbox: its pages live as long as their server. */
function sandboxNote(target: Target): string | undefined {
  const e = target.embedded;
  if (!e) return undefined;
  if (e.links === 'shared') return `Sandbox: the page is served by the carrental sandbox already running on port ${e.linkPort} (same state file).`;
  const taken = e.stableTakenBy ? ` (port ${e.stablePort} is taken by ${e.stableTakenBy})` : '';
  return `Sandbox: this MCP server serves the page on port ${e.linkPort}${taken} for as long as it runs.`;
}

function linkResult(action: S.ManualAction, target: Target, nextStep: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const note = sandboxNote(target);
  return { ...action, ...extra, reminder: LINK_REMINDER, next_step: nextStep, ...(note ? { note } : {}) };
}

const searchInput = z.strictObject({
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
type SearchArgs = z.infer<typeof searchInput>;

/** Every query parameter of GET /cars has an input of the same name: a compile error names the one missing. */
type MissingSearchInput = Exclude<keyof CarsQuery, keyof SearchArgs>;
const searchCoversQuery: [MissingSearchInput] extends [never] ? true : MissingSearchInput = true;
void searchCoversQuery;

function searchQuery(args: SearchArgs, defaultCity: string | undefined): CarsQuery {
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

function pickFields(value: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (value[f] !== undefined) out[f] = value[f];
  return out;
}

/** A car as a trip names it. */
const carRef = (car: S.Car | undefined) => (car ? { car_alias: car.car_alias, name: car.name, city: car.city } : undefined);

/** A trip without the whole car (get_car has it) or invoice line items (list_invoices has them). */
function compactTrip(trip: S.Trip): Record<string, unknown> {
  const { car, invoices, ...rest } = trip;
  return {
    ...rest,
    ...(car ? { car: carRef(car), time_zone: zoneOf(car.city) } : {}),
    ...(invoices ? { invoices: invoices.map(({ items: _items, status: _legacy, currency: _usd, ...inv }) => inv) } : {}),
  };
}

const tripReminder = 'An unpaid reservation is not a paid booking and not a guaranteed hold.';

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'search_cars',
    operation: 'listCars',
    toolset: 'catalog',
    title: 'Search cars',
    description:
      `Search the catalog by city, dates and type. With date_from and date_to each car says is_available and display_trip_total_cents (rent plus trip fee). ` +
      `Compact cars (add fields for more), ${SEARCH_PAGE} per page by default; has_more and next_offset page on. ${MONEY} Anonymous.`,
    input: searchInput,
    async run(args: SearchArgs, deps) {
      const query = searchQuery(args, deps.target.profileData.city);
      const page = (await deps.api().listCars(query)).data;
      const fields = [...COMPACT_CAR, ...(args.fields ?? [])];
      const next = page.has_more ? (query.offset ?? 0) + page.cars.length : undefined;
      return {
        cars: page.cars.map((car) => pickFields(car, fields)),
        total: page.total,
        has_more: page.has_more,
        ...(next !== undefined ? { next_offset: next } : {}),
      };
    },
  },
  {
    name: 'get_car',
    operation: 'getCar',
    toolset: 'catalog',
    title: 'Car detail',
    description: `One car: specs, prices (deposit, extras, protection plans per day), and the car-local ranges it is blocked. ${MONEY} Anonymous.`,
    input: z.strictObject({ car_alias: describe(Q.car_alias, 'car alias (search_cars)') }),
    async run(args: { car_alias: string }, deps) {
      const { photos, previews: _previews, ...car } = (await deps.api().getCar(alias(args.car_alias))).data;
      return { ...car, time_zone: zoneOf(car.city), photo: photos?.[0] };
    },
  },
  {
    name: 'quote',
    operation: 'quote',
    toolset: 'catalog',
    title: 'Price a trip',
    description:
      `The price of a trip, line by line. final_total is the trip price; deposit_cents is refundable and in no total. ${MONEY} ` +
      'A quote reserves nothing and fixes no price. When booking is offered it returns a confirmation for exactly this request and total: ' +
      `show the customer the total and deposit, and only once they agree pass it to reserve (valid ${CONFIRMATION_MINUTES} minutes, for one booking).`,
    input: z.strictObject(tripInput),
    async run(args: TripArgs, deps) {
      const body = tripRequest(args);
      const api = deps.api();
      // the car's city names the dates' zone; best effort, the quote is what matters
      const car = api.getCar(body.car_alias, { retry: NO_RETRY }).then((r) => r.data, () => undefined);
      const quote = (await api.quote(body, !!deps.target.apiKey)).data;
      const city = (await car)?.city ?? undefined;
      const confirm = deps.confirmations?.issue('reserve', binding(deps, body), { total: quote.final_total, deposit: quote.deposit_cents });
      return {
        car_alias: body.car_alias,
        date_checkin: body.date_checkin,
        date_checkout: body.date_checkout,
        time_zone: zoneOf(city),
        options: body.options,
        ...(body.extras?.length ? { extras: body.extras } : {}),
        ...quote,
        ...(confirm ? { confirmation: confirm.confirmation, confirmation_expires_at: confirm.expires_at } : {}),
        note: confirm
          ? 'Show the customer final_total and deposit_cents; call reserve with these same arguments and the confirmation only once they agree.'
          : 'A quote reserves nothing and fixes no price.',
      };
    },
  },
  {
    name: 'list_trips',
    operation: 'listTrips',
    toolset: 'account',
    title: 'Trips',
    description: `The customer’s trips: active (upcoming, in progress) and history (completed, cancelled), each with its financial summary. ${MONEY}`,
    input: z.strictObject({}),
    async run(_args, deps) {
      const trips = (await deps.api().trips()).data;
      return { active: trips.active.map(compactTrip), history: trips.history.map(compactTrip) };
    },
  },
  {
    name: 'get_trip',
    operation: 'getReservation',
    toolset: 'account',
    title: 'Trip detail',
    description:
      `One reservation: status, payment_status (settled, to_pay with amount, or refund), financial summary, invoices, cancellation outcome. ${MONEY} ` +
      'Read it again after the customer used a link, at most every few seconds. When cancelling is offered and the trip can be cancelled it returns a cancel_confirmation for cancel_reservation.',
    input: z.strictObject({ reservation_uuid: reservationUuid }),
    async run(args: { reservation_uuid: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const trip = (await readReservation(deps.api(), uuid, deps.out)).data;
      const confirm = trip.status === 'new' ? deps.confirmations?.issue('cancel', binding(deps, { uuid })) : undefined;
      return {
        ...compactTrip(trip),
        ...(confirm
          ? {
              cancel_confirmation: confirm.confirmation,
              cancel_confirmation_expires_at: confirm.expires_at,
              cancel_note: 'Cancelling may charge a cancellation fee. Pass cancel_confirmation to cancel_reservation only once the customer asked to cancel.',
            }
          : {}),
      };
    },
  },
  {
    name: 'list_invoices',
    operation: 'listReservationInvoices',
    toolset: 'account',
    title: 'Invoices of a trip',
    description: `Every invoice of the customer on a reservation with line items (discounts negative). created_at is UTC. ${MONEY}`,
    input: z.strictObject({ reservation_uuid: reservationUuid }),
    async run(args: { reservation_uuid: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      return { reservation_uuid: uuid, invoices: (await deps.api().reservationInvoices(uuid)).data };
    },
  },
  {
    name: 'get_invoice',
    operation: 'getInvoice',
    toolset: 'account',
    title: 'Invoice',
    description: `One invoice with its line items. billing_status is the real state (HOLD is a card authorisation, not a charge). created_at is UTC. ${MONEY}`,
    input: z.strictObject({ invoice_uuid: describe(z.string().check(z.regex(UUID_RE, 'expected a UUID')), 'invoice uuid (list_invoices, get_trip)') }),
    async run(args: { invoice_uuid: string }, deps) {
      return (await deps.api().invoice(parseUuid(args.invoice_uuid, 'invoice_uuid'))).data;
    },
  },
  {
    name: 'get_profile',
    operation: 'getProfile',
    toolset: 'account',
    title: 'Profile',
    description: 'Who the key belongs to: first name, whether they are approved to drive, the saved card (masked).',
    input: z.strictObject({}),
    async run(_args, deps) {
      return (await deps.api().profile()).data;
    },
  },
  {
    name: 'get_verification',
    operation: 'getVerification',
    toolset: 'account',
    title: 'Verification status',
    description: 'Identity verification and driver’s licence status (expired, expiring within 30 days). Verification is never started here: the customer does it in the app.',
    input: z.strictObject({}),
    async run(_args, deps) {
      return (await deps.api().verification()).data;
    },
  },
  {
    name: 'get_saved_card',
    operation: 'listCards',
    toolset: 'account',
    title: 'Saved card',
    description: 'The saved payment card (masked), or null. card_link hands over adding or replacing one.',
    input: z.strictObject({}),
    async run(_args, deps) {
      const cards = (await deps.api().cards()).data;
      return { card: cards[0] ?? null, note: 'A saved card does not guarantee that a future payment succeeds.' };
    },
  },
  {
    name: 'extension_price',
    operation: 'extensionPrice',
    toolset: 'account',
    title: 'Extension price preview',
    description: `What extending a reservation to a later check-out would cost. A preview: nothing changes, nothing is charged. ${MONEY}`,
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      new_checkout: describe(shape(S.ExtensionPriceRequest).new_checkout_date_time_local, `new check-out, ${LOCAL}; later than the current one`),
    }),
    async run(args: { reservation_uuid: string; new_checkout: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const to = localDate(args.new_checkout, 'new_checkout');
      const api = deps.api();
      // the car's zone and the current check-out; a 404 stops here
      const trip = (await readReservation(api, uuid, deps.out)).data;
      const price = (await api.extensionPrice(uuid, to)).data;
      return {
        reservation_uuid: uuid,
        current_checkout: trip.date_checkout,
        new_checkout: to,
        time_zone: zoneOf(trip.car?.city),
        ...price,
        note: 'Nothing changes until the customer confirms on the extension page (extension_link), which shows the current price.',
      };
    },
  },
  {
    name: 'payment_link',
    operation: 'paymentLink',
    toolset: 'links',
    title: 'Payment link',
    description: 'A link to the page where the customer pays the rent (default) or the deposit. No tool can pay. Give the link to the customer; get_trip tells afterwards whether it is settled.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      payment_type: describe(z.optional(shape(S.PaymentLinkRequest).payment_type), 'rent (default) or deposit'),
    }),
    async run(args: { reservation_uuid: string; payment_type?: (typeof PAYMENT_TYPES)[number] }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const type = args.payment_type ?? 'rent';
      const action = (await deps.api().paymentLink(uuid, type)).data;
      return linkResult(action, deps.target, `after the customer paid on the page, call get_trip with ${uuid}: payment_status settled means nothing is owed`, {
        reservation_uuid: uuid,
        payment_type: type,
      });
    },
  },
  {
    name: 'card_link',
    operation: 'cardAddLink',
    toolset: 'links',
    title: 'Card link',
    description: 'A link to the page where the customer adds a card (or reviews and replaces the saved one). No tool can add one.',
    input: z.strictObject({}),
    async run(_args, deps) {
      const action = (await deps.api().cardAddLink()).data;
      return linkResult(action, deps.target, 'after the customer saved a card on the page, call get_saved_card');
    },
  },
  {
    name: 'extension_link',
    operation: 'extensionLink',
    toolset: 'links',
    title: 'Extension link',
    description: 'A link to the page where the customer reviews and confirms an extension. No dates change here, even for a zero-cost extension.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      checkout: describe(shape(S.ExtensionLinkRequest).checkout, `optional target check-out, ${LOCAL}; the page starts there`),
    }),
    async run(args: { reservation_uuid: string; checkout?: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const to = args.checkout === undefined ? undefined : localDate(args.checkout, 'checkout');
      const action = (await deps.api().extensionLink(uuid, to)).data;
      return linkResult(action, deps.target, `after the customer confirmed on the page, call get_trip with ${uuid} to see the check-out`, {
        reservation_uuid: uuid,
        ...(to ? { checkout: to } : {}),
      });
    },
  },
  {
    name: 'reserve',
    operation: 'createReservation',
    toolset: 'booking',
    title: 'Reserve a car',
    description:
      'Creates a real unpaid reservation. Needs the confirmation quote returned for exactly these arguments, after the customer agreed to its total ' +
      '(a host that supports elicitation may leave it out: the server then asks the customer itself); ' +
      `without it, or when it expired or the price changed, nothing is booked. ${tripReminder} Payment is separate: payment_link. ` +
      'Safe to retry: the same confirmation never books twice, even after a restart.',
    input: z.strictObject({
      ...tripInput,
      confirmation: describe(z.optional(z.string().check(z.minLength(1))), 'the confirmation from quote for these same arguments'),
    }),
    async run(args: TripArgs & { confirmation?: string }, deps) {
      const body = tripRequest(args);
      const confirmations = deps.confirmations!;
      const api = deps.api();
      const booking: BookingDeps = { api, writer: deps.writer!, out: deps.out, now: deps.now };
      const bound = binding(deps, body);
      let confirmedBy = 'confirmation';
      let confirmation = args.confirmation;
      if (confirmation === undefined) {
        const ask = deps.askCustomer?.();
        if (!ask) throw new ToolError('usage', 'reserve needs a confirmation: nothing was booked', QUOTE_AGAIN.replace('call quote again', 'call quote'));
        // the host can ask the human: the server shows them the price it just quoted
        const quote = (await api.quote(body, true)).data;
        const car = await api.getCar(body.car_alias, { retry: NO_RETRY }).then((r) => r.data, () => undefined);
        const zone = zoneOf(car?.city);
        const answer = await ask(
          `Reserve ${car?.name ?? body.car_alias} (${body.car_alias}) from ${body.date_checkin.replace('T', ' ')} to ${body.date_checkout.replace('T', ' ')}` +
            `${zone ? ` ${zone}` : ''} for ${formatCents(quote.final_total)}, plus a ${formatCents(quote.deposit_cents)} refundable deposit? ` +
            'It is an unpaid reservation until paid on the payment page.',
          'reserve',
        );
        if (answer !== 'accept') return { car_alias: body.car_alias, ...declined(answer, 'booked') };
        confirmation = confirmations.issue('reserve', bound, { total: quote.final_total, deposit: quote.deposit_cents }).confirmation;
        confirmedBy = 'elicitation';
      }
      const opened = confirmations.open('reserve', bound, confirmation, QUOTE_AGAIN);
      let command = createCommand(body, { key: opened.key });
      const journaled = await booking.writer.pending(createCommand(body));
      if (journaled?.state === 'pending') {
        // An earlier attempt of this same request has an unknown outcome: finish it with its
        // key (it may have booked) instead of sending a second booking under a new one.
        command = createCommand(body, { key: journaled.key });
      } else if (journaled?.key !== opened.key && confirmedBy === 'confirmation') {
        if (opened.expired) throw new ToolError('usage', `this confirmation expired (they last ${CONFIRMATION_MINUTES} minutes): nothing was booked`, QUOTE_AGAIN);
        // a quote holds no price: the total the customer agreed to must still be the price
        const now = (await api.quote(body, true)).data;
        if (now.final_total !== opened.total || now.deposit_cents !== opened.deposit) {
          throw new ToolError('conflict', 'the price changed since the quote the customer agreed to: nothing was booked', QUOTE_AGAIN, {
            confirmed_total: opened.total,
            confirmed_deposit_cents: opened.deposit,
            final_total: now.final_total,
            deposit_cents: now.deposit_cents,
          });
        }
      }
      const created = await createReservation(booking, command, body, { alwaysReadBack: true, onKey: deps.onWriteKey });
      if (created.cancelledSince) {
        throw new ToolError(
          'conflict',
          `reservation ${created.uuid}, booked with this confirmation ${created.cancelledSince} ago, has been cancelled since: nothing new was booked`,
          `to book this car again, ${QUOTE_AGAIN}`,
          { reservation_uuid: created.uuid, status: 'cancelled' },
        );
      }
      const live = created.status === 'new';
      return {
        reservation_uuid: created.uuid,
        status: created.status ?? 'unknown (could not be read: call get_trip)',
        car_alias: body.car_alias,
        date_checkin: body.date_checkin,
        date_checkout: body.date_checkout,
        options: body.options,
        replayed: created.reused,
        confirmed_by: confirmedBy,
        note: created.reused
          ? `This confirmation had already been used: this is that booking, not a new one. ${tripReminder}`
          : `${tripReminder} It is unpaid until the customer pays on the payment page.`,
        next_step: live
          ? `call payment_link with reservation_uuid ${created.uuid} and give the link to the customer`
          : `call get_trip with ${created.uuid} for its state`,
      };
    },
  },
  {
    name: 'cancel_reservation',
    operation: 'cancelReservation',
    toolset: 'booking',
    title: 'Cancel a reservation',
    description:
      'Cancels a reservation: a cancellation fee may apply; an eligible deposit hold is released. Needs the cancel_confirmation get_trip returned, once the customer asked to cancel ' +
      '(a host that supports elicitation may leave it out: the server then asks the customer itself). ' +
      'Returns the cancellation_outcome (cancelled does not mean money was returned). Safe to retry: never cancels twice.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      confirmation: describe(z.optional(z.string().check(z.minLength(1))), 'the cancel_confirmation from get_trip for this reservation'),
    }),
    async run(args: { reservation_uuid: string; confirmation?: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const booking: BookingDeps = { api: deps.api(), writer: deps.writer!, out: deps.out, now: deps.now };
      const bound = binding(deps, { uuid });
      let confirmedBy = 'confirmation';
      let confirmation = args.confirmation;
      if (confirmation === undefined) {
        const ask = deps.askCustomer?.();
        if (!ask) throw new ToolError('usage', 'cancel_reservation needs a confirmation: nothing was cancelled', READ_AGAIN);
        const trip = (await readReservation(booking.api, uuid, deps.out)).data;
        const answer = await ask(
          `Cancel the reservation of ${trip.car?.name ?? 'this car'} from ${(trip.date_checkin ?? '?').replace('T', ' ')} to ${(trip.date_checkout ?? '?').replace('T', ' ')}? ` +
            'A cancellation fee may apply; an eligible deposit hold is released.',
          'cancel',
        );
        if (answer !== 'accept') return { reservation_uuid: uuid, ...declined(answer, 'cancelled') };
        confirmation = deps.confirmations!.issue('cancel', bound).confirmation;
        confirmedBy = 'elicitation';
      }
      const opened = deps.confirmations!.open('cancel', bound, confirmation, READ_AGAIN);
      const journaled = await booking.writer.pending(cancelCommand(uuid));
      const resume = journaled?.state === 'pending' || journaled?.key === opened.key;
      if (!resume && opened.expired) throw new ToolError('usage', `this confirmation expired (they last ${CONFIRMATION_MINUTES} minutes): nothing was cancelled`, READ_AGAIN);
      const plan = await planCancel(booking, uuid, journaled?.state === 'pending' ? journaled.key : opened.key);
      if (plan.alreadyCancelled) {
        return { reservation_uuid: uuid, status: plan.before.data.status, sent: false, cancellation_outcome: plan.before.data.cancellation_outcome, note: 'It was already cancelled: nothing was sent.' };
      }
      const { after } = await commitCancel(booking, plan, { onKey: deps.onWriteKey });
      return {
        reservation_uuid: uuid,
        status: after ? after.data.status : 'unknown (could not be read: call get_trip)',
        sent: true,
        replayed: !!plan.resuming,
        confirmed_by: confirmedBy,
        ...(after ? { cancellation_outcome: after.data.cancellation_outcome, financial_summary: after.data.financial_summary } : {}),
        note: 'cancellation_outcome says what happens to the deposit hold and any refund; cancelled does not mean money was returned.',
      };
    },
  },
];
