import { z } from '../../api/zod.js';
import * as S from '../../api/schemas.js';
import { readReservation } from '../../booking/read.js';
import { parseUuid } from '../../input/parse.js';
import { zoneOf } from '../../input/dates.js';
import { usageError } from '../../errors.js';
import { describe, LOCAL, localDate, MONEY, reservationUuid, shape, UUID_RE } from '../tool-inputs.js';
import { binding, compactTrip } from '../tool-results.js';
import { TRIPS_MAX, TRIPS_PAGE, type TripFilter, tripPage } from '../trip-pages.js';
import type { ToolDef } from '../tools.js';

export const ACCOUNT_TOOLS: readonly ToolDef[] = [
  {
    name: 'list_trips',
    operation: 'listTrips',
    toolset: 'account',
    title: 'Trips',
    description:
      `The customer’s trips: active (upcoming, in progress; soonest first) and history (completed, cancelled; latest first), each with its financial summary, ` +
      `a page at a time: pass next_cursor as cursor for the next page (has_more). Filters: status, and dates overlapping date_from..date_to. ${MONEY}`,
    input: z.strictObject({
      status: describe(z.optional(z.string().check(z.minLength(1))), 'only trips of this status (new, complete, cancelled), or active or history'),
      date_from: describe(z.optional(S.LocalDateTime), `only trips ending at or after this, ${LOCAL}`),
      date_to: describe(z.optional(S.LocalDateTime), 'only trips starting at or before this, same form'),
      limit: describe(z.optional(z.int().check(z.minimum(1), z.maximum(TRIPS_MAX))), `trips per page, 1..${TRIPS_MAX} (default ${TRIPS_PAGE}); a page also stops before 10 KB`),
      cursor: describe(z.optional(z.string().check(z.minLength(1))), 'next_cursor of the previous page, with the same filters'),
    }),
    async run(args: TripFilter & { limit?: number; cursor?: string }, deps) {
      const filter: TripFilter = {
        status: args.status?.trim() || undefined,
        date_from: args.date_from === undefined ? undefined : localDate(args.date_from, 'date_from'),
        date_to: args.date_to === undefined ? undefined : localDate(args.date_to, 'date_to'),
      };
      if (filter.date_from && filter.date_to && filter.date_to < filter.date_from) throw usageError(`date_to (${filter.date_to}) must not be before date_from (${filter.date_from})`);
      const trips = (await deps.api().trips()).data;
      return tripPage(trips, filter, args.limit ?? TRIPS_PAGE, args.cursor);
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
];
