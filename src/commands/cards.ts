// `carrental cards`: the saved card (at most one: the one a charge would use), masked.
import { payloadOf } from '../api/payload.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { cardExpired, formatExpiry } from '../render/card.js';
import { cliPrefix } from '../cmdkit/confirm.js';

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const { api, out } = await services(ctx);
  const res = await api.cards();
  if (out.json) {
    out.printJson(payloadOf(res));
    return 0;
  }
  if (res.data.length === 0) {
    out.info(`no saved card; the customer can add one on the page from \`${cliPrefix(ctx)} card-link\``);
    return 0;
  }
  const now = ctx.now();
  out.table(
    ['BRAND', 'NUMBER', 'EXPIRES', 'ID'],
    res.data.map((card) => [card.card_brand, `•••• ${card.last4}`, `${formatExpiry(card)}${cardExpired(card, now) ? ' (expired)' : ''}`, card.id]),
    { ids: [3] },
  );
  for (const card of res.data) {
    if (cardExpired(card, now)) out.warn(`the card ending ${card.last4} expired (${formatExpiry(card)}); replace it with \`${cliPrefix(ctx)} card-link\``);
  }
  if (out.tty) out.info('a saved card does not guarantee that a future payment succeeds.');
  return 0;
}
