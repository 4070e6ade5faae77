import { z } from '../../api/zod.js';
import { PAYMENT_TYPES } from '../../api/enums.js';
import * as S from '../../api/schemas.js';
import { parseUuid } from '../../input/parse.js';
import { describe, LOCAL, localDate, reservationUuid, shape } from '../tool-inputs.js';
import { linkResult } from '../tool-results.js';
import type { ToolDef } from '../tools.js';

export const LINKS_TOOLS: readonly ToolDef[] = [
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
];
export const WAIT_TOOLS: readonly ToolDef[] = [];
