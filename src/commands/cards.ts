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
  if (out.tty) {
    out.table(
      ['BRAND', 'NUMBER', 'EXPIRES', 'ID'],
      res.data.map((card) => [card.card_brand, `•••• ${card.last4}`, `${formatExpiry(card)}${cardExpired(card, now) ? ' (expired)' : ''}`, card.id]),
      { ids: [3] },
    );
  } else {
    // a pipe gets one value a column: the last four digits bare, and whether the card expired
    // in a column of its own, after the id so `cut -f4` still gives the id
    out.table(['BRAND', 'LAST4', 'EXPIRES', 'ID', 'EXPIRED'], res.data.map((card) => [card.card_brand, card.last4, formatExpiry(card), card.id, cardExpired(card, now) ? 'yes' : 'no']));
  }
  for (const card of res.data) {
    if (cardExpired(card, now)) out.warn(`the card ending ${card.last4} expired (${formatExpiry(card)}); replace it with \`${cliPrefix(ctx)} card-link\``);
  }
  if (out.tty) out.info('a saved card does not guarantee that a future payment succeeds.');
  return 0;
}
