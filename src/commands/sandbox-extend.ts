// `carrental sandbox extend <uuid> --to D`: what the customer confirms on the extension
// page: the checkout moves to D (car-local) and an EXTEND invoice is issued when it costs.
import type { InputOf } from '../cli/commands.js';
import type { Context } from '../cli/context.js';
import { output } from '../cli/services.js';
import { usageError } from '../errors.js';
import { parseLocalDateTime } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import { adminTarget } from './sandbox-admin.js';
import { parseUuid } from './parse.js';

export type ExtendInput = InputOf<'sandbox extend'>;

export async function run(input: ExtendInput, ctx: Context): Promise<number> {
  const uuid = parseUuid(input.uuid, 'the reservation uuid');
  if (input.to === undefined) throw usageError('--to is required: the new checkout, car-local YYYY-MM-DDTHH:MM');
  const checkout = parseLocalDateTime(input.to, '--to');
  const target = await adminTarget(ctx, input);
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
