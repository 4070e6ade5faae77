import { z } from '../../api/zod.js';
import { PAYMENT_TYPES } from '../../api/enums.js';
import * as S from '../../api/schemas.js';
import { parseUuid } from '../../input/parse.js';
import { describe, LOCAL, localDate, reservationUuid, shape } from '../tool-inputs.js';
import { linkResult } from '../tool-results.js';
import { readReservation } from '../../booking/read.js';
import { depositState } from '../../render/trip-booking.js';
import { compactTrip } from '../tool-results.js';
import type { ToolDef, ToolDeps } from '../tools.js';

/**
 * Offers a link to the customer through the host (URL-mode elicitation) when it can; the
 * link is returned in the result either way. The answer says only whether they chose to
 * open it, never that they paid: that is read from the reservation.
 */
async function offerLink(deps: ToolDeps, message: string, url: string): Promise<Record<string, unknown>> {
  const offer = deps.offerUrl?.();
  if (!offer) return {};
  const answer = await offer(message, url).catch(() => 'unanswered' as const);
  return { offered_to_customer: answer };
}

/** The spec: do not read a reservation faster than every few seconds. */
export const PAYMENT_POLL_MS = 5_000;
/** Under the 60 s many hosts give a tool call; a Task may wait up to the maximum. */
export const WAIT_DEFAULT_S = 45;
export const WAIT_MAX_S = 600;

const sleeper = (deps: ToolDeps) => deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

export const LINKS_TOOLS: readonly ToolDef[] = [
  {
    name: 'payment_link',
    operation: 'paymentLink',
    toolset: 'links',
    title: 'Payment link',
    description: 'A link to the page where the customer pays the rent (default) or the deposit; a host that can open links offers it to the customer itself (offered_to_customer). No tool can pay. Give the link to the customer; wait_for_payment returns once it is paid.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      payment_type: describe(z.optional(shape(S.PaymentLinkRequest).payment_type), 'rent (default) or deposit'),
    }),
    async run(args: { reservation_uuid: string; payment_type?: (typeof PAYMENT_TYPES)[number] }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const type = args.payment_type ?? 'rent';
      const action = (await deps.api().paymentLink(uuid, type)).data;
      const offered = await offerLink(deps, `Pay the ${type === 'rent' ? 'rent' : 'deposit'} of reservation ${uuid} on the rental company’s page.`, action.url);
      return linkResult(action, deps.target, `after the customer paid on the page, call wait_for_payment (or get_trip) with ${uuid}: payment_status settled means nothing is owed`, {
        reservation_uuid: uuid,
        payment_type: type,
        ...offered,
      });
    },
  },
  {
    name: 'card_link',
    operation: 'cardAddLink',
    toolset: 'links',
    title: 'Card link',
    description: 'A link to the page where the customer adds a card (or reviews and replaces the saved one); a host that can open links offers it to the customer itself. No tool can add one.',
    input: z.strictObject({}),
    async run(_args, deps) {
      const action = (await deps.api().cardAddLink()).data;
      const offered = await offerLink(deps, 'Add or replace your payment card on the rental company’s page.', action.url);
      return linkResult(action, deps.target, 'after the customer saved a card on the page, call get_saved_card', offered);
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
];

/** Tools that share an operation with another tool (tools.ts moreTools). */
export const WAIT_TOOLS: readonly ToolDef[] = [
  {
    name: 'wait_for_payment',
    operation: 'getReservation',
    toolset: 'links',
    title: 'Wait for a payment',
    description:
      `Waits until the customer has paid the rent (default: nothing is owed) or the deposit (authorised or paid) of a reservation, or until timeout_seconds pass (default ${WAIT_DEFAULT_S}), ` +
      'reading it every 5 seconds: one call instead of a loop of get_trip. paid says which; a cancelled reservation stops the wait. It only reads.',
    input: z.strictObject({
      reservation_uuid: reservationUuid,
      payment_type: describe(z.optional(shape(S.PaymentLinkRequest).payment_type), 'rent (default) or deposit'),
      timeout_seconds: describe(z.optional(z.int().check(z.minimum(1), z.maximum(WAIT_MAX_S))), `how long to wait at most, 1..${WAIT_MAX_S} (default ${WAIT_DEFAULT_S})`),
    }),
    taskSupport: 'optional',
    async run(args: { reservation_uuid: string; payment_type?: (typeof PAYMENT_TYPES)[number]; timeout_seconds?: number }, deps) {
      const uuid = parseUuid(args.reservation_uuid, 'reservation_uuid');
      const type = args.payment_type ?? 'rent';
      const limit = (args.timeout_seconds ?? WAIT_DEFAULT_S) * 1000;
      const api = deps.api();
      const sleep = sleeper(deps);
      const started = Date.now();
      let slept = 0;
      let reads = 0;
      // an injected sleep (tests) advances the deadline as the wall clock would
      const elapsed = () => Math.max(slept, Date.now() - started);
      for (;;) {
        const trip = (await readReservation(api, uuid, deps.out)).data;
        reads++;
        const rentPaid = trip.payment_status?.type === 'settled' || trip.payment_status?.type === 'refund';
        const deposit = depositState(trip.invoices);
        const paid = type === 'rent' ? rentPaid : deposit === 'held' || deposit === 'paid';
        const left = limit - elapsed();
        if (paid || trip.status === 'cancelled' || left <= 0) {
          const { invoices: _invoices, ...rest } = compactTrip(trip);
          return {
            reservation_uuid: uuid,
            payment_type: type,
            paid,
            deposit_state: deposit,
            waited_seconds: Math.round(elapsed() / 1000),
            reads,
            ...rest,
            next_step: paid
              ? type === 'rent' && deposit === 'due'
                ? `the rent is paid; the deposit is still due: payment_link with payment_type deposit for ${uuid}`
                : 'nothing more to wait for'
              : trip.status === 'cancelled'
                ? 'the reservation is cancelled: there is nothing to pay'
                : `not paid yet: call wait_for_payment again to keep waiting (it only reads), or give the customer the payment_link again`,
          };
        }
        const delay = Math.min(PAYMENT_POLL_MS, left);
        await sleep(delay);
        slept += delay;
      }
    },
  },
];
