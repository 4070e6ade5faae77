// `carrental profile`: who the key belongs to.
import { payloadOf } from '../api/payload.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { describeCard } from '../render/card.js';
import { NOT_STATED, stated } from '../render/table.js';

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const { api, out } = await services(ctx);
  const res = await api.profile();
  if (out.json) {
    out.printJson(payloadOf(res));
    return 0;
  }
  const p = res.data;
  // the spec requires none of the profile's fields: what is left out reads "not stated"
  const card = p.payment_methods?.[0];
  const extra = (key: string) => (typeof p[key] === 'string' ? (p[key] as string) : undefined);
  out.pairs([
    ['customer', stated(p.uuid)],
    ['first name', stated(p.first_name)],
    ['last name', extra('last_name')],
    ['email', extra('email')],
    // a pipe gets bare values (yes/no, the card's id), a terminal the words around them
    [
      'approved to drive',
      p.is_approved_to_drive === undefined ? '' : p.is_approved_to_drive ? 'yes' : 'no',
      stated(p.is_approved_to_drive, (yes) => (yes ? 'yes' : 'no (see `carrental verification`)')),
    ],
    [
      'saved card',
      card ? (card.id ?? '') : p.payment_methods ? 'none' : '',
      card ? describeCard(card, ctx.now()) : p.payment_methods ? 'no saved card (add one with `carrental card-link`)' : NOT_STATED,
    ],
  ]);
  return 0;
}
