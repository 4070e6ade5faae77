// The MCP tools: one per user-level operation of the API, keyed by the operation's id in
// src/api/operations.ts. The server registers them from that table (its summary, its
// capability decides read or write), inputs are built from the request schemas of
// src/api/schemas.ts and checked again with the CLI's own parsers, outputs are the response
// schemas with money and car-local dates made explicit (annotate.ts). A test fails when
// an operation has no tool.
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { NO_RETRY } from '../api/client.js';
import type { Api, CarsQuery } from '../api/endpoints.js';
import { BODY_TYPES, CITIES, ORDER_BY, PAYMENT_TYPES } from '../api/enums.js';
import * as S from '../api/schemas.js';
import type { Target } from '../cli/services.js';
import type { JournaledWrite, WriteCommand } from '../booking/journaled-write.js';
import { parseAlias, parseIntOption, parseUuid } from '../commands/parse.js';
import { buildCreateRequest } from '../commands/reserve.js';
import { readReservation } from '../commands/trips.js';
import { usageError } from '../errors.js';
import { parseLocalDateTime } from '../render/dates.js';
import type { Output } from '../render/output.js';
import { isValidIdempotencyKey } from '../store/journal.js';
import { annotateSchema, annotateValue } from './annotate.js';
import { LINK_REMINDER } from './results.js';

/** What a tool needs; built once per server, `api()` once per call (it carries the host's name). */
export interface ToolDeps {
  api(): Api;
  target: Target;
  /** Progress and notes of the journaled writes: the server's stderr, never the protocol stream. */
  out: Output;
  /** Present only when reserve and cancel are registered. */
  writer?: JournaledWrite;
  /** Where a create or cancel whose outcome is unknown says how to finish it. */
  onWriteKey?: (key: string) => void;
}

export interface ToolDef {
  name: string;
  /** The operation's id in OPERATIONS. */
  operation: string;
  title: string;
  description: string;
  input: $ZodType;
  output: $ZodType;
  run(args: never, deps: ToolDeps): Promise<Record<string, unknown>>;
}

/** search_cars with all_pages stops after this many cars (documented in docs/agents.md). */
export const ALL_PAGES_CAP = 500;
const PAGE_SIZE = 200;

const describe = <T extends $ZodType>(schema: T, text: string): T => (schema as unknown as { check(c: unknown): T }).check(z.describe(text));
const shape = (schema: $ZodType) => (schema as unknown as { _zod: { def: { shape: Record<string, $ZodType> } } })._zod.def.shape;

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const reservationUuid = describe(z.string().check(z.regex(UUID_RE, 'expected a UUID')), 'the reservation uuid (list_trips lists them)');
const idempotencyKey = describe(
  z.optional(z.string().check(z.regex(/^[\x21-\x7e][\x20-\x7e]{14,126}[\x21-\x7e]$/, 'expected 16 to 128 printable ASCII characters'))),
  'optional Idempotency-Key (16 to 128 printable ASCII characters). Without it the server journals a fresh one; ' +
    'calling again with the same arguments reuses it, so a retry never books or cancels twice',
);
const LOCAL = 'car-local wall-clock date and time YYYY-MM-DDTHH:MM, in the time zone of the car’s city (la: America/Los_Angeles, miami: America/New_York); never UTC';

const Q = shape(S.QuoteRequest);
const O = shape(S.ReservationOptions);
const pick = <K extends string>(from: Record<string, $ZodType>, ...keys: K[]) => Object.fromEntries(keys.map((k) => [k, from[k]])) as Record<K, $ZodType>;
/** The QuoteRequest of the API, field by field, with what an agent needs to know. */
const tripInput = {
  car_alias: describe(Q.car_alias, 'the car alias (from search_cars)'),
  date_checkin: describe(Q.date_checkin, `check-in, ${LOCAL}`),
  date_checkout: describe(Q.date_checkout, 'check-out, same form; after check-in'),
  options: describe(
    // closed, so that a misspelt option is an error rather than silently the default
    z.optional(z.strictObject({ ...pick(O, 'protection_plan', 'mileage_type', 'delivery_type'), delivery_address: z.optional(z.string()) })),
    'protection_plan (minimum by default, or standard), mileage_type (limited by default, or unlimited), delivery_type (pickup by default, or delivery with delivery_address)',
  ),
  extras: describe(Q.extras, 'extra item types from the car’s prices.extras (get_car)'),
  promo_code: describe(Q.promo_code, 'a promo code'),
};

interface TripArgs {
  car_alias: string;
  date_checkin: string;
  date_checkout: string;
  options?: { protection_plan?: 'minimum' | 'standard'; mileage_type?: 'limited' | 'unlimited'; delivery_type?: 'pickup' | 'delivery'; delivery_address?: string };
  extras?: string[];
  promo_code?: string;
}

/** A car-local date checked as the CLI checks it (a real calendar date), named by its field. */
const localDate = (value: string, field: string) => parseLocalDateTime(value, field);

function checkOrder(from: string, to: string, fromName: string, toName: string): void {
  if (to <= from) throw usageError(`${toName} (${to}) must be after ${fromName} (${from})`);
}

/** The canonical ReservationCreateRequest, the same the `reserve` command builds (same journal entry). */
function tripRequest(args: TripArgs): S.ReservationCreateRequest {
  const alias = parseAlias(args.car_alias);
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
    alias,
    from,
    to,
    protection: o.protection_plan,
    mileage: o.mileage_type,
    deliveryAddress: address || undefined,
    extras,
    promo,
  });
}

function writeKey(value: string | undefined): string | undefined {
  if (value !== undefined && !isValidIdempotencyKey(value)) {
    throw usageError('idempotency_key must be 16 to 128 printable ASCII characters, without spaces at either end');
  }
  return value;
}

/** A note under the links of the embedded sandbox: its pages live as long as their server. */
function sandboxNote(target: Target): string | undefined {
  const e = target.embedded;
  if (!e) return undefined;
  if (e.links === 'shared') return `Sandbox: the page is served by the carrental sandbox already running on port ${e.linkPort} (same state file).`;
  const taken = e.stableTakenBy ? ` (port ${e.stablePort} is taken by ${e.stableTakenBy})` : '';
  return `Sandbox: this MCP server serves the page on port ${e.linkPort}${taken} for as long as it runs.`;
}

const linkOutput = (extra: Record<string, $ZodType> = {}) =>
  annotateSchema(
    z.extend(S.ManualAction, {
      ...extra,
      reminder: describe(z.string(), 'opening the link is not completion'),
      next_step: z.string(),
      note: z.optional(z.string()),
    }),
  );

function linkResult(action: S.ManualAction, target: Target, nextStep: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const note = sandboxNote(target);
  return { ...action, ...extra, reminder: LINK_REMINDER, next_step: nextStep, ...(note ? { note } : {}) };
}

const searchInput = z.strictObject({
  city: describe(z.optional(z.enum(CITIES)), 'la (America/Los_Angeles) or miami (America/New_York)'),
  date_from: describe(z.optional(S.LocalDateTime), `trip start, ${LOCAL}; with date_to, each car says is_available and its trip totals`),
  date_to: describe(z.optional(S.LocalDateTime), 'trip end, same form; after date_from; goes with date_from'),
  body_type: z.optional(z.enum(BODY_TYPES)),
  make_id: z.optional(z.int().check(z.minimum(0))),
  model_id: z.optional(z.int().check(z.minimum(0))),
  order_by: describe(z.optional(z.enum(ORDER_BY)), 'order by price'),
  limit: describe(z.optional(z.int().check(z.minimum(1), z.maximum(200))), 'cars per page, 1..200 (default 50)'),
  offset: describe(z.optional(z.int().check(z.minimum(0))), 'skip this many cars (default 0); page until has_more is false'),
  all_pages: describe(z.optional(z.boolean()), `fetch every page, up to ${ALL_PAGES_CAP} cars (then truncated is true and next_offset says where to go on)`),
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
    limit: int(args.limit, 'limit', { min: 1, max: 200 }),
    offset: int(args.offset, 'offset', { min: 0 }),
    body_type: args.body_type,
    make_id: int(args.make_id, 'make_id', { min: 0 }),
    model_id: int(args.model_id, 'model_id', { min: 0 }),
    order_by: args.order_by,
  };
}

/** Pages of PAGE_SIZE from the query's offset until the catalog ends or the cap is reached. */
async function searchAllPages(api: Api, query: CarsQuery) {
  const start = query.offset ?? 0;
  const cars: S.Car[] = [];
  const seen = new Set<string>();
  let total = 0;
  let offset = start;
  let more = true;
  while (more && cars.length < ALL_PAGES_CAP) {
    const page = (await api.listCars({ ...query, offset, limit: PAGE_SIZE })).data;
    total = page.total;
    // the catalog can shift while we page; never list a car twice
    for (const car of page.cars) if (!seen.has(car.car_alias)) {
      seen.add(car.car_alias);
      cars.push(car);
    }
    offset += page.cars.length;
    more = page.has_more && page.cars.length > 0;
  }
  const truncated = more || cars.length > ALL_PAGES_CAP;
  const kept = cars.slice(0, ALL_PAGES_CAP);
  return { cars: kept, total, has_more: truncated, truncated, next_offset: truncated ? start + kept.length : undefined };
}

const tripReminder = 'An unpaid reservation is not a paid booking and not a guaranteed hold.';

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'search_cars',
    operation: 'listCars',
    title: 'Search cars',
    description:
      'Search the catalog by city, dates and type. With date_from and date_to each car says whether it is available and what the trip costs (rent plus trip fee). ' +
      `One page by default (limit, offset, has_more); all_pages fetches up to ${ALL_PAGES_CAP} cars. Anonymous: no credential is sent.`,
    input: searchInput,
    output: annotateSchema(
      z.extend(S.CarsPage, {
        truncated: describe(z.optional(z.boolean()), `all_pages stopped at ${ALL_PAGES_CAP} cars`),
        next_offset: describe(z.optional(z.int()), 'where the next page starts'),
      }),
    ),
    async run(args: SearchArgs, deps) {
      const query = searchQuery(args, deps.target.profileData.city);
      const api = deps.api();
      if (args.all_pages) {
        const page = await searchAllPages(api, query);
        return annotateValue(page, S.CarsPage) as Record<string, unknown>;
      }
      const page = (await api.listCars(query)).data;
      const next = page.has_more ? (query.offset ?? 0) + page.cars.length : undefined;
      return annotateValue({ ...page, ...(next !== undefined ? { next_offset: next } : {}) }, S.CarsPage) as Record<string, unknown>;
    },
  },
  {
    name: 'get_car',
    operation: 'getCar',
    title: 'Car detail',
    description: 'One car: specs, prices (integer cents, with dollars), extras, protection plans, and the car-local date ranges it is blocked. Anonymous.',
    input: z.strictObject({ car_alias: describe(Q.car_alias, 'the car alias (from search_cars)') }),
    output: annotateSchema(S.Car),
    async run(args: { car_alias: string }, deps) {
      const car = (await deps.api().getCar(parseAlias(args.car_alias))).data;
      return annotateValue(car, S.Car) as Record<string, unknown>;
    },
  },
  {
    name: 'quote',
    operation: 'quote',
    title: 'Price a trip',
    description:
      'The price of a trip, line by line, in integer cents with dollars. final_total is the trip price; the refundable deposit (deposit_cents) is in no total. ' +
      'A quote reserves nothing and fixes no price: reserve revalidates both. Show it to the customer before reserving.',
    input: z.strictObject(tripInput),
    output: annotateSchema(
      z.extend(S.Quote, {
        car_alias: z.string(),
        date_checkin: S.LocalDateTime,
        date_checkout: S.LocalDateTime,
        note: z.string(),
      }),
    ),
    async run(args: TripArgs, deps) {
      const body = tripRequest(args);
      const api = deps.api();
      // the car's city names the dates' zone; best effort, the quote is what matters
      const car = api.getCar(body.car_alias, { retry: NO_RETRY }).then((r) => r.data, () => undefined);
      const quote = (await api.quote(body, !!deps.target.apiKey)).data;
      const city = (await car)?.city ?? undefined;
      const value = {
        car_alias: body.car_alias,
        date_checkin: body.date_checkin,
        date_checkout: body.date_checkout,
        ...quote,
        note: 'A quote reserves nothing and fixes no price: reserve checks price and availability again.',
      };
      return annotateValue(value, z.extend(S.Quote, { date_checkin: S.LocalDateTime, date_checkout: S.LocalDateTime }), city) as Record<string, unknown>;
    },
  },
  {
    name: 'list_trips',
    operation: 'listTrips',
    title: 'Trips',
    description: 'The customer’s trips: active (upcoming and in progress) and history (completed and cancelled), each with its financial summary.',
    input: z.strictObject({}),
    output: annotateSchema(S.TripsList),
    async run(_args, deps) {
      return annotateValue((await deps.api().trips()).data, S.TripsList) as Record<string, unknown>;
    },
  },
  {
    name: 'get_trip',
    operation: 'getReservation',
    title: 'Trip detail',
    description:
      'One reservation: status, payment status (settled, to_pay with the amount, or refund), financial summary, invoices and cancellation outcome. ' +
      'Read it again after the customer used a link: that is how an outcome is learned. Do not read it more often than every few seconds.',
    input: z.strictObject({ reservation_uuid: reservationUuid }),
    output: annotateSchema(S.Trip),
    async run(args: { reservation_uuid: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      return annotateValue((await readReservation(deps.api(), uuid, deps.out)).data, S.Trip) as Record<string, unknown>;
    },
  },
  {
    name: 'list_invoices',
    operation: 'listReservationInvoices',
    title: 'Invoices of a trip',
    description: 'Every invoice of the customer on a reservation, across types and states, with line items (cents; discounts negative). created_at is UTC.',
    input: z.strictObject({ reservation_uuid: reservationUuid }),
    output: annotateSchema(z.object({ reservation_uuid: z.string(), invoices: S.InvoiceList })),
    async run(args: { reservation_uuid: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const invoices = (await deps.api().reservationInvoices(uuid)).data;
      return { reservation_uuid: uuid, invoices: annotateValue(invoices, S.InvoiceList) };
    },
  },
  {
    name: 'get_invoice',
    operation: 'getInvoice',
    title: 'Invoice',
    description: 'One invoice with its line items. billing_status is the real state (HOLD is a card authorisation, not a charge).',
    input: z.strictObject({ invoice_uuid: describe(z.string().check(z.regex(UUID_RE, 'expected a UUID')), 'the invoice uuid (from list_invoices or get_trip)') }),
    output: annotateSchema(S.Invoice),
    async run(args: { invoice_uuid: string }, deps) {
      const uuid = parseUuid(args.invoice_uuid, 'invoice_uuid');
      return annotateValue((await deps.api().invoice(uuid)).data, S.Invoice) as Record<string, unknown>;
    },
  },
  {
    name: 'get_profile',
    operation: 'getProfile',
    title: 'Profile',
    description: 'Who the key belongs to: first name, whether they are approved to drive, and the saved card (masked).',
    input: z.strictObject({}),
    output: annotateSchema(S.Profile),
    async run(_args, deps) {
      return annotateValue((await deps.api().profile()).data, S.Profile) as Record<string, unknown>;
    },
  },
  {
    name: 'get_verification',
    operation: 'getVerification',
    title: 'Verification status',
    description:
      'Identity verification and driver’s licence status (expired, expiring within 30 days). Verification itself is never started here: the customer does it in the app.',
    input: z.strictObject({}),
    output: annotateSchema(S.VerificationStatus),
    async run(_args, deps) {
      return annotateValue((await deps.api().verification()).data, S.VerificationStatus) as Record<string, unknown>;
    },
  },
  {
    name: 'get_saved_card',
    operation: 'listCards',
    title: 'Saved card',
    description: 'The saved payment card (masked: brand, last 4 digits, expiry), or null when there is none. card_link hands over adding or replacing one.',
    input: z.strictObject({}),
    output: z.object({ card: z.nullable(S.Card), note: z.string() }),
    async run(_args, deps) {
      const cards = (await deps.api().cards()).data;
      return { card: cards[0] ?? null, note: 'A saved card does not guarantee that a future payment succeeds.' };
    },
  },
  {
    name: 'payment_link',
    operation: 'paymentLink',
    title: 'Payment link',
    description:
      'A link to the page where the customer pays the rent (default) or the deposit of a reservation. Nothing is paid here: no tool can pay. ' +
      'Give the link to the customer; afterwards get_trip tells whether it is settled.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      payment_type: describe(z.optional(shape(S.PaymentLinkRequest).payment_type), 'rent (default) or deposit'),
    }),
    output: linkOutput({ reservation_uuid: z.string(), payment_type: z.enum(PAYMENT_TYPES) }),
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
    title: 'Card link',
    description: 'A link to the page where the customer adds a card (or reviews and replaces the saved one). No card is added here: no tool can add one.',
    input: z.strictObject({}),
    output: linkOutput(),
    async run(_args, deps) {
      const action = (await deps.api().cardAddLink()).data;
      return linkResult(action, deps.target, 'after the customer saved a card on the page, call get_saved_card');
    },
  },
  {
    name: 'extension_price',
    operation: 'extensionPrice',
    title: 'Extension price preview',
    description: 'What extending a reservation to a later check-out would cost. A preview: no dates change and nothing is charged. extension_link hands the extension to the customer.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      new_checkout: describe(shape(S.ExtensionPriceRequest).new_checkout_date_time_local, `the new check-out, ${LOCAL}; later than the current one`),
    }),
    output: annotateSchema(
      z.extend(S.ExtensionPrice, { reservation_uuid: z.string(), current_checkout: S.LocalDateTime, new_checkout: S.LocalDateTime, note: z.string() }),
    ),
    async run(args: { reservation_uuid: string; new_checkout: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const to = localDate(args.new_checkout, 'new_checkout');
      const api = deps.api();
      // the car's zone and the current check-out; a 404 stops here
      const trip = (await readReservation(api, uuid, deps.out)).data;
      const price = (await api.extensionPrice(uuid, to)).data;
      const value = {
        reservation_uuid: uuid,
        current_checkout: trip.date_checkout,
        new_checkout: to,
        ...price,
        note: 'A preview: nothing changes and nothing is charged until the customer confirms on the extension page, which shows the current price.',
      };
      return annotateValue(value, z.extend(S.ExtensionPrice, { current_checkout: S.LocalDateTime, new_checkout: S.LocalDateTime }), trip.car?.city ?? undefined) as Record<
        string,
        unknown
      >;
    },
  },
  {
    name: 'extension_link',
    operation: 'extensionLink',
    title: 'Extension link',
    description:
      'A link to the page where the customer reviews and confirms an extension, optionally starting at a target check-out. No dates change here, even for a zero-cost extension.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      checkout: describe(shape(S.ExtensionLinkRequest).checkout, `optional target check-out, ${LOCAL}; the page starts there`),
    }),
    output: linkOutput({ reservation_uuid: z.string(), checkout: z.optional(z.string()) }),
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
    title: 'Reserve a car',
    description:
      'Creates a real unpaid reservation (quote first, and have the customer agree to the price). Price, eligibility and availability are checked again. ' +
      `${tripReminder} Payment is separate: payment_link. Safe to retry: the same arguments (or the same idempotency_key) never book twice, even after a restart.`,
    input: z.strictObject({ ...tripInput, idempotency_key: idempotencyKey }),
    output: annotateSchema(
      z.object({
        reservation_uuid: z.string(),
        status: z.string(),
        car_alias: z.string(),
        date_checkin: S.LocalDateTime,
        date_checkout: S.LocalDateTime,
        options: describe(z.optional(S.ReservationOptions), 'the options booked (absent when nothing was sent)'),
        sent: describe(z.boolean(), 'false when this customer already held this reservation (the same request made before): nothing was sent'),
        idempotency_key: z.optional(z.string()),
        resumed: describe(z.boolean(), 'true when an earlier attempt of this same request was finished with its idempotency key'),
        note: z.string(),
        next_step: z.string(),
      }),
    ),
    async run(args: TripArgs & { idempotency_key?: string }, deps) {
      const body = tripRequest(args);
      const key = writeKey(args.idempotency_key);
      const writer = deps.writer!;
      const api = deps.api();
      const command: WriteCommand = { operation: 'createReservation', target: body.car_alias, request: body, key };
      const resumed = !!(await writer.pending(command));
      // the city names the dates' zone; best effort, the reservation exists whatever this read says
      const city = () => api.getCar(body.car_alias, { retry: NO_RETRY }).then((r) => r.data.city ?? undefined, () => undefined);
      const dates = z.object({ date_checkin: S.LocalDateTime, date_checkout: S.LocalDateTime });
      if (!resumed) {
        // The journal lets a finished create go once it has its answer, and an unpaid
        // reservation holds no calendar slot, so the same call again (a host that timed out
        // and retried) would book the same car twice. The customer's own trips say whether
        // this very reservation exists already.
        const existing = (await api.trips()).data.active.find(
          (t) => t.status === 'new' && t.car?.car_alias === body.car_alias && t.date_checkin === body.date_checkin && t.date_checkout === body.date_checkout,
        );
        if (existing) {
          const value = {
            reservation_uuid: existing.uuid,
            status: existing.status,
            car_alias: body.car_alias,
            date_checkin: body.date_checkin,
            date_checkout: body.date_checkout,
            sent: false,
            resumed,
            note:
              'This customer already holds a reservation of this car for these dates (this same request, made before), with the options it was made with: nothing was sent. ' +
              `To change its options, cancel it and reserve again. ${tripReminder}`,
            next_step: `call get_trip with ${existing.uuid} for its payment status, or payment_link to hand over paying it`,
          };
          return annotateValue(value, dates, existing.car?.city ?? undefined) as Record<string, unknown>;
        }
      }
      let used = '';
      const res = await writer.run(command, (k, retry, onRetry) => {
        used = k;
        deps.onWriteKey?.(k);
        return api.createReservation(body, k, retry, { onRetry });
      });
      const value = {
        reservation_uuid: res.data,
        status: 'new',
        car_alias: body.car_alias,
        date_checkin: body.date_checkin,
        date_checkout: body.date_checkout,
        options: body.options,
        sent: true,
        idempotency_key: used,
        resumed,
        note: `${tripReminder} It is unpaid until the customer pays on the payment page.`,
        next_step: `call payment_link with reservation_uuid ${res.data} and give the link to the customer`,
      };
      return annotateValue(value, dates, await city()) as Record<string, unknown>;
    },
  },
  {
    name: 'cancel_reservation',
    operation: 'cancelReservation',
    title: 'Cancel a reservation',
    description:
      'Cancels a reservation under the normal rules: a cancellation fee may apply and an eligible deposit hold is released. Returns the reservation with its cancellation_outcome ' +
      '(cancelled does not mean money was returned). Safe to retry: the same reservation (or the same idempotency_key) is never cancelled twice.',
    input: z.strictObject({ reservation_uuid: reservationUuid, idempotency_key: idempotencyKey }),
    output: z.object({
      reservation_uuid: z.string(),
      cancelled: z.boolean(),
      sent: describe(z.boolean(), 'false when the reservation was already cancelled and nothing was sent'),
      idempotency_key: z.optional(z.string()),
      resumed: z.boolean(),
      reservation: z.nullable(annotateSchema(S.Trip)),
      note: z.string(),
    }),
    async run(args: { reservation_uuid: string; idempotency_key?: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const key = writeKey(args.idempotency_key);
      const writer = deps.writer!;
      const api = deps.api();
      const command: WriteCommand = { operation: 'cancelReservation', target: uuid, request: { uuid }, key };
      const resumed = !!(await writer.pending(command));
      const before = (await readReservation(api, uuid, deps.out)).data;
      if (!resumed && before.status === 'cancelled') {
        return {
          reservation_uuid: uuid,
          cancelled: true,
          sent: false,
          resumed,
          reservation: annotateValue(before, S.Trip),
          note: 'The reservation was already cancelled: nothing was sent.',
        };
      }
      let used = '';
      await writer.run(command, (k, retry, onRetry) => {
        used = k;
        deps.onWriteKey?.(k);
        return api.cancelReservation(uuid, k, retry, { onRetry }).then((r) => r.data);
      });
      const after = await readReservation(api, uuid, deps.out).then(
        (r) => r.data,
        () => null,
      );
      return {
        reservation_uuid: uuid,
        cancelled: true,
        sent: true,
        idempotency_key: used,
        resumed,
        reservation: after ? annotateValue(after, S.Trip) : null,
        note: after
          ? 'Cancelled. cancellation_outcome says what happens to the deposit hold and any refund; cancelled does not mean money was returned.'
          : 'Cancelled, but the reservation could not be read afterwards: call get_trip for the cancellation outcome.',
      };
    },
  },
];
