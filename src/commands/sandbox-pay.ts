// `carrental sandbox pay <uuid> [--type rent|deposit]`: what the customer does on the
// payment page, without a browser: pays everything owed on the reservation (rent), or
// authorizes the deposit (a HOLD, not a charge).
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { usageError } from '../errors.js';
import { formatCents } from '../render/money.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { adminTarget, findReservation } from '../cmdkit/sandbox-admin.js';
import { parseUuidRef } from '../input/uuid-ref.js';

export type PayInput = InputOf<'sandbox pay'>;

export async function run(input: PayInput, ctx: Context): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the reservation uuid');
  const type = input.type ?? 'rent';
  if (type !== 'rent' && type !== 'deposit') throw usageError(`--type must be rent or deposit, got "${type}"`);
  const target = await adminTarget(ctx, input);
  // a prefix, as every other command takes: the one reservation of the sandbox it names
  const uuid = ref.whole ? ref.text : (await findReservation(target, ref, cliPrefix(ctx))).uuid;
  const result = await target.call<{ paid_cents?: number; invoice_ids?: string[]; held_cents?: number; invoice_id?: string }>('POST', '/pay', { reservation_uuid: uuid, payment_type: type });
  const out = output(ctx);
  if (ctx.globals.json) out.printJson({ reservation: uuid, type, ...result });
  else if (type === 'rent') out.pairs([['reservation', uuid], ['paid', formatCents(result.paid_cents ?? 0)], ['invoices', (result.invoice_ids ?? []).join(', ')]]);
  else out.pairs([['reservation', uuid], ['deposit held', formatCents(result.held_cents ?? 0)], ['invoice', result.invoice_id ?? '']]);
  return 0;
}
