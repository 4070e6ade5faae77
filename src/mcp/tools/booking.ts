// The booking toolset: reserve and cancel_reservation, registered only with booking allowed
// and a booking_write key. Both write through the booking core (src/booking/) and only with
// the consent of consent.ts: the customer's own answer when the host can ask, else the
// confirmation the server issued for exactly that request.
import { z } from '../../api/zod.js';
import { NO_RETRY } from '../../api/client.js';
import { readReservation } from '../../booking/read.js';
import { cancelCommand, commitCancel, createCommand, createReservation, planCancel, type BookingDeps } from '../../booking/reservations.js';
import { parseUuid } from '../../input/parse.js';
import { zoneOf } from '../../input/dates.js';
import { formatCents } from '../../render/money.js';
import { ToolError } from '../confirmation.js';
import { consent, quoted } from '../consent.js';
import { describe, reservationUuid, type TripArgs, tripInput, tripRequest } from '../tool-inputs.js';
import { binding, QUOTE_AGAIN, READ_AGAIN, tripReminder } from '../tool-results.js';
import type { ToolDef } from '../tools.js';

const when = (from: string | undefined, to: string | undefined, zone: string | undefined) =>
  `from ${(from ?? '?').replace('T', ' ')} to ${(to ?? '?').replace('T', ' ')}${zone ? ` ${zone}` : ''}`;
const BOOK_AGAIN = `call quote again with the same arguments, show the customer the new total and deposit, and once they agree call reserve with the new confirmation and book_another: true`;
const money = (cents: number | null | undefined) => (typeof cents === 'number' ? formatCents(cents) : 'an amount not known yet');

export const BOOKING_TOOLS: readonly ToolDef[] = [
  {
    name: 'reserve',
    operation: 'createReservation',
    toolset: 'booking',
    title: 'Reserve a car',
    description:
      'Creates a real unpaid reservation. When the host can ask the customer, the server asks them itself before booking (total and deposit first), whatever confirmation is passed; ' +
      'otherwise it needs the confirmation quote returned for exactly these arguments, after the customer agreed to its total. ' +
      `Without it, when it expired or the price changed, nothing is booked. ${tripReminder} Payment is separate: payment_link. ` +
      'Safe to retry: the same confirmation never books twice, even after a restart.',
    input: z.strictObject({
      ...tripInput,
      confirmation: describe(z.optional(z.string().check(z.minLength(1))), 'the confirmation from quote for these same arguments'),
      book_another: describe(z.optional(z.boolean()), 'true books a second reservation identical to one just made (the customer confirms it again, with a new quote)'),
    }),
    async run(args: TripArgs & { confirmation?: string; book_another?: boolean }, deps) {
      const body = tripRequest(args);
      const api = deps.api();
      const booking: BookingDeps = { api, writer: deps.writer!, out: deps.out, now: deps.now };
      const another = args.book_another === true;
      // the one rule of src/booking: an identical request this install made within the replay
      // window (or whose outcome is unknown) is that booking, whatever token this call carries
      const existing = await booking.writer.pending(createCommand(body));
      let confirmedBy: string | undefined;
      let command = createCommand(body);
      if (another && existing?.state === 'pending') {
        throw new ToolError('conflict', 'an identical reservation was sent and its outcome is still unknown: nothing new was booked', 'call reserve with the same arguments without book_another: it finishes that one without booking twice');
      }
      if (!existing || another) {
        const agreed = await consent(deps, {
          op: 'reserve',
          bound: binding(deps, body),
          confirmation: args.confirmation,
          again: QUOTE_AGAIN,
          spentKey: existing?.key,
          // the customer sees the price quoted now, before the car's name (which is the API's text)
          async form() {
            const quote = (await api.quote(body, true)).data;
            const car = await api.getCar(body.car_alias, { retry: NO_RETRY }).then((r) => r.data, () => undefined);
            const name = quoted(car?.name);
            return {
              message:
                `Reserve ${existing ? 'a second identical reservation ' : ''}for ${formatCents(quote.final_total)}, plus a ${formatCents(quote.deposit_cents)} refundable deposit: ` +
                `${name ? `${name} (${body.car_alias})` : body.car_alias}, ${when(body.date_checkin, body.date_checkout, zoneOf(car?.city))}? ` +
                `${existing?.result ? `Reservation ${existing.result} already holds this car for these dates. ` : ''}It is an unpaid reservation until paid on the payment page.`,
              amounts: { total: quote.final_total, deposit: quote.deposit_cents },
            };
          },
          // a quote holds no price: the total the customer agreed to must still be the price
          async fresh(opened) {
            const now = (await api.quote(body, true)).data;
            if (now.final_total !== opened.total || now.deposit_cents !== opened.deposit) {
              throw new ToolError('conflict', 'the price changed since the quote the customer agreed to: nothing was booked', QUOTE_AGAIN, {
                confirmed_total: opened.total,
                confirmed_deposit_cents: opened.deposit,
                final_total: now.final_total,
                deposit_cents: now.deposit_cents,
              });
            }
          },
        });
        if (!agreed.ok) return { car_alias: body.car_alias, ...agreed.result };
        confirmedBy = agreed.confirmedBy;
        command = createCommand(body, { key: agreed.key, fresh: another });
      }
      const created = await createReservation(booking, command, body, { alwaysReadBack: true, onKey: deps.onWriteKey });
      if (created.cancelledSince) {
        throw new ToolError(
          'conflict',
          `reservation ${created.uuid}, booked by an identical reserve ${created.cancelledSince} ago, has been cancelled since: nothing new was booked`,
          `to book this car again, ${BOOK_AGAIN}`,
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
        ...(confirmedBy && !created.reused ? { confirmed_by: confirmedBy } : {}),
        note: created.reused
          ? `An identical reserve already made this booking: this is that booking, not a new one; book_another: true books a second one. ${tripReminder}`
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
      'Cancels a reservation: a cancellation fee may apply; an eligible deposit hold is released. When the host can ask the customer, the server asks them itself before cancelling, ' +
      'whatever confirmation is passed; otherwise it needs the cancel_confirmation get_trip returned, once the customer asked to cancel. ' +
      'Returns the cancellation_outcome (cancelled does not mean money was returned). Safe to retry: never cancels twice.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      confirmation: describe(z.optional(z.string().check(z.minLength(1))), 'the cancel_confirmation from get_trip for this reservation'),
    }),
    async run(args: { reservation_uuid: string; confirmation?: string }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const booking: BookingDeps = { api: deps.api(), writer: deps.writer!, out: deps.out, now: deps.now };
      const journaled = await booking.writer.pending(cancelCommand(uuid));
      const agreed = await consent(deps, {
        op: 'cancel',
        bound: binding(deps, { uuid }),
        confirmation: args.confirmation,
        again: READ_AGAIN,
        journaled,
        async form() {
          const trip = (await readReservation(booking.api, uuid, deps.out)).data;
          const sum = trip.financial_summary;
          const name = quoted(trip.car?.name);
          return {
            message:
              `Cancel a ${money(sum?.trip_total_cents)} trip with a ${money(sum?.deposit_cents)} deposit: ` +
              `${name ?? 'this car'}, ${when(trip.date_checkin, trip.date_checkout, zoneOf(trip.car?.city))} (reservation ${uuid})? ` +
              'A cancellation fee may apply; an eligible deposit hold is released.',
          };
        },
      });
      if (!agreed.ok) return { reservation_uuid: uuid, ...agreed.result };
      const plan = await planCancel(booking, uuid, agreed.key);
      if (plan.alreadyCancelled) {
        return { reservation_uuid: uuid, status: plan.before.data.status, sent: false, cancellation_outcome: plan.before.data.cancellation_outcome, note: 'It was already cancelled: nothing was sent.' };
      }
      const { after } = await commitCancel(booking, plan, { onKey: deps.onWriteKey });
      return {
        reservation_uuid: uuid,
        status: after ? after.data.status : 'unknown (could not be read: call get_trip)',
        sent: true,
        replayed: !!plan.resuming,
        confirmed_by: agreed.confirmedBy,
        ...(after ? { cancellation_outcome: after.data.cancellation_outcome, financial_summary: after.data.financial_summary } : {}),
        note: 'cancellation_outcome says what happens to the deposit hold and any refund; cancelled does not mean money was returned.',
      };
    },
  },
];
