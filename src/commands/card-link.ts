// `carrental card-link [--open]`: the page where the customer adds or replaces the card.
// The CLI never adds a card; it hands over a link and says how to learn the outcome.
import { payloadOf } from '../api/payload.js';
import { openUrl } from '../cmdkit/browser.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { sandboxLinkNote } from '../session/embedded-sandbox.js';
import { printAction } from '../render/action.js';
import { usageError } from '../errors.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { LINK_NOTE, previewOf, printDryRun } from '../cmdkit/dry-run.js';

export async function run(input: InputOf<'card-link'>, ctx: Context): Promise<number> {
  if (input.dryRun && input.open) throw usageError('--dry-run creates no link, so there is nothing to --open');
  const { api, out, target } = await services(ctx, { dryRun: input.dryRun });
  if (input.dryRun) return printDryRun(out, { command: 'card-link', request: await previewOf(api, (a) => a.cardAddLink()), notes: [LINK_NOTE] });
  const res = await api.cardAddLink();
  let opened: boolean | string | undefined;
  if (input.open) {
    const result = await openUrl(res.data.url, ctx);
    opened = result.opened ? true : result.reason;
  }
  printAction(out, res.data, { opened, ...sandboxLinkNote(target), nextStep: `run \`${cliPrefix(ctx)} cards\` to see the saved card`, payload: payloadOf(res) });
  return 0;
}
