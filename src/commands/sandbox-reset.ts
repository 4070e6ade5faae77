// `carrental sandbox reset`: discards the embedded sandbox's state (reservations, invoices,
// links, used promo codes) and re-seeds it, under the state file's lock, so a corrupt file
// is repaired too. A running `sandbox serve` on the same file sees the fresh world. It asks
// first on a terminal and needs -y anywhere else: the state is not recoverable.
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { sandboxStatePath } from '../session/embedded-sandbox.js';
import { requireConfirmable } from '../cmdkit/confirm.js';
import { type Prompter, inquirerPrompter } from '../cmdkit/reserve-prompts.js';

export async function run(_input: unknown, ctx: Context, prompter: Prompter = inquirerPrompter(ctx)): Promise<number> {
  const statePath = sandboxStatePath(ctx.env);
  const out = output(ctx);
  requireConfirmable(ctx, 'sandbox reset');
  if (!ctx.globals.yes && !(await prompter.confirm(`Discard every reservation, invoice and setting in ${statePath}?`, false))) {
    out.info('not reset: nothing changed');
    return 1;
  }
  const { startSandbox } = await import('../sandbox/index.js');
  // a refusal (a process still has the database open) or a file it may not write: one line
  const { stateError } = await import('../session/embedded-sandbox.js');
  const sandbox = await startSandbox({ statePath, reset: true, quiet: true, env: ctx.env }).catch((err: Error) => {
    throw stateError(err);
  });
  await sandbox.close();
  if (ctx.globals.json) out.printJson({ state: statePath, reset: true });
  else out.info(`sandbox state reset: ${statePath}`);
  return 0;
}
