// `carrental profile`: who the key belongs to.
import { payloadOf } from '../api/payload.js';
import type { Context } from '../cli/context.js';
import { services } from '../cli/services.js';
import { describeCard } from '../render/card.js';

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const { api, out } = await services(ctx);
  const res = await api.profile();
  if (out.json) {
    out.printJson(payloadOf(res));
    return 0;
  }
  const p = res.data;
  const card = p.payment_methods[0];
  const extra = (key: string) => (typeof p[key] === 'string' ? (p[key] as string) : undefined);
  out.pairs([
    ['customer', p.uuid],
    ['first name', p.first_name],
    ['last name', extra('last_name')],
    ['email', extra('email')],
    ['approved to drive', p.is_approved_to_drive ? 'yes' : 'no (see `carrental verification`)'],
    ['saved card', card ? describeCard(card, ctx.now()) : 'no saved card (add one with `carrental card-link`)'],
  ]);
  return 0;
}
