import { z } from '../../api/zod.js';
import { NO_RETRY } from '../../api/client.js';
import { readReservation } from '../../booking/read.js';
import { cancelCommand, commitCancel, createCommand, createReservation, planCancel, type BookingDeps } from '../../booking/reservations.js';
import { parseUuid } from '../../input/parse.js';
import { zoneOf } from '../../render/dates.js';
import { formatCents } from '../../render/money.js';
import { CONFIRMATION_MINUTES, ToolError } from '../confirmation.js';
import { describe, reservationUuid, type TripArgs, tripInput, tripRequest } from '../tool-inputs.js';
import { binding, declined, QUOTE_AGAIN, READ_AGAIN, tripReminder } from '../tool-results.js';
import type { ToolDef } from '../tools.js';

export const BOOKING_TOOLS: readonly ToolDef[] = [
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
