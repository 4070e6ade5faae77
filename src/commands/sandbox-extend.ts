// `carrental sandbox extend <uuid> --to D`: what the customer confirms on the extension
// page: the checkout moves to D (car-local) and an EXTEND invoice is issued when it costs.
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { usageError } from '../errors.js';
import { isRelativeDate, resolveDateInput } from '../input/dates.js';
import { formatCents } from '../render/money.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { adminTarget, findReservation } from '../cmdkit/sandbox-admin.js';
import { parseUuidRef } from '../input/uuid-ref.js';
import { checkPartialDates, zoneOrRefuse } from '../cmdkit/trip-dates.js';

export type ExtendInput = InputOf<'sandbox extend'>;

export async function run(input: ExtendInput, ctx: Context): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the reservation uuid');
  if (input.to === undefined) throw usageError('--to is required: the new checkout, car-local (2026-12-06 10:00, 2026-12-06, +2d, fri 3pm)');
  // every form a date takes elsewhere; a relative one is read in the car's zone on the sandbox's clock
  const relative = isRelativeDate(input.to);
  let checkout = relative ? checkPartialDates({ to: input.to }).to! : resolveDateInput(input.to, '--to', { now: new Date() });
  const target = await adminTarget(ctx, input);
  let uuid = ref.text;
  if (!ref.whole || relative) {
    const found = await findReservation(target, ref, cliPrefix(ctx));
    uuid = found.uuid;
    if (relative) {
      const clock = await target.call<{ now: string }>('GET', '/clock');
      checkout = resolveDateInput(input.to, '--to', { now: new Date(clock.now), zone: zoneOrRefuse(found.city) });
    }
  }
  const result = await target.call<{ current_checkout: string; new_checkout: string; additional_days: number; total_amount: number; invoice_id: string | null }>('POST', '/extend', { reservation_uuid: uuid, checkout });
  const out = output(ctx);
  if (ctx.globals.json) out.printJson({ reservation: uuid, ...result });
  else {
    out.pairs([
      ['reservation', uuid],
      ['checkout', `${result.current_checkout} -> ${result.new_checkout}`],
      ['additional days', result.additional_days],
      ['extension invoice', result.invoice_id ? `${formatCents(result.total_amount)} (${result.invoice_id})` : 'none (no extra cost)'],
    ]);
  }
  return 0;
}
