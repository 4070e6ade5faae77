// `carrental sandbox card add|remove [--customer dana]`: what the customer does on the
// add-card page (a test card, never a real number), or removing the saved card, so that a
// test can put a customer in either state.
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { usageError } from '../errors.js';
import { adminTarget } from '../cmdkit/sandbox-admin.js';

export type CardInput = InputOf<'sandbox card'>;

export async function run(input: CardInput, ctx: Context): Promise<number> {
  const customer = input.customer ?? 'dana';
  if (input.action === 'remove') {
    if (input.brand !== undefined || input.last4 !== undefined || input.exp !== undefined) throw usageError('card remove takes no --brand, --last4 or --exp');
    const target = await adminTarget(ctx, input);
    const result = await target.call<{ customer: string; removed: boolean }>('DELETE', '/cards', { customer });
    const out = output(ctx);
    if (ctx.globals.json) out.printJson(result);
    else out.info(result.removed ? `card removed for ${customer}` : `${customer} had no saved card: nothing changed`);
    return 0;
  }
  if (input.action !== 'add') throw usageError(`sandbox card needs add or remove, got "${input.action ?? ''}"`);
  const body: Record<string, unknown> = { customer };
  if (input.brand !== undefined) {
    if (!/^[a-z]{2,20}$/.test(input.brand)) throw usageError(`--brand must be a lower-case brand name such as visa, got "${input.brand}"`);
    body.card_brand = input.brand;
  }
  if (input.last4 !== undefined) {
    if (!/^\d{4}$/.test(input.last4)) throw usageError(`--last4 must be four digits, got "${input.last4}"`);
    body.last4 = input.last4;
  }
  if (input.exp !== undefined) {
    const m = /^(\d{1,2})\/(\d{4})$/.exec(input.exp);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 12) throw usageError(`--exp must be MM/YYYY, got "${input.exp}"`);
    body.exp_month = Number(m[1]);
    body.exp_year = Number(m[2]);
  }
  const target = await adminTarget(ctx, input);
  const card = await target.call<{ id: string; card_brand: string; last4: string; exp_month: number; exp_year: number }>('POST', '/cards', body);
  const out = output(ctx);
  if (ctx.globals.json) out.printJson({ customer, card });
  else out.pairs([['customer', customer], ['card', `${card.card_brand} •••• ${card.last4}, expires ${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`], ['id', card.id]]);
  return 0;
}
