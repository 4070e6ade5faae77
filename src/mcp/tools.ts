// The MCP tools: one per user-level operation of the API, keyed by the operation's id in
// src/api/operations.ts, each in one toolset (catalog, account, links, booking). Inputs are
// built from the request schemas of src/api/schemas.ts and checked again with the CLI's own
// parsers (tool-inputs.ts); results are compact, for a model to read (tool-results.ts): money
// once per amount in integer cents, car-local dates as the API sends them with the zone named
// once, a car as the few fields an agent needs (more on request). Writes go through the
// booking core (src/booking/) and need a confirmation the server issued (confirmation.ts).
import { z } from '../api/zod.js';
import type { $ZodType } from 'zod/v4/core';
import { NO_RETRY } from '../api/client.js';
import type { Api } from '../api/endpoints.js';
import { PAYMENT_TYPES } from '../api/enums.js';
import * as S from '../api/schemas.js';
import type { JournaledWrite } from '../booking/journaled-write.js';
import { readReservation } from '../booking/read.js';
import { cancelCommand, commitCancel, createCommand, createReservation, planCancel, type BookingDeps } from '../booking/reservations.js';
import type { Target } from '../cli/services.js';
import { parseUuid } from '../input/parse.js';
import { zoneOf } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import type { Output } from '../render/output.js';
import { CONFIRMATION_MINUTES, Confirmations, ToolError } from './confirmation.js';
import {
  alias,
  COMPACT_CAR,
  describe,
  LOCAL,
  localDate,
  MONEY,
  Q,
  reservationUuid,
  SEARCH_PAGE,
  type SearchArgs,
  searchInput,
  searchQuery,
  shape,
  type TripArgs,
  tripInput,
  tripRequest,
  UUID_RE,
} from './tool-inputs.js';
import { binding, compactTrip, declined, linkResult, pickFields, QUOTE_AGAIN, READ_AGAIN, tripReminder } from './tool-results.js';

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
  /** --require-customer: a write from a client that cannot ask is refused. */
  requireCustomer?: boolean;
  /** Present when the client supports URL-mode elicitation: offers a link (pay, add a card) to the user. */
  offerUrl?(): ((message: string, url: string) => Promise<'accept' | 'decline' | 'cancel'>) | undefined;
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
