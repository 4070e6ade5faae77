// `carrental sandbox reset`: discards the embedded sandbox's state (reservations, invoices,
// links, used promo codes) and re-seeds it, under the state file's lock, so a corrupt file
// is repaired too. A running `sandbox serve` on the same file sees the fresh world.
import type { Context } from '../cli/context.js';
import { output, sandboxStatePath } from '../cli/services.js';

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const statePath = sandboxStatePath(ctx.env);
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ statePath, reset: true, quiet: true });
  await sandbox.close();
  const out = output(ctx);
  if (ctx.globals.json) out.printJson({ state: statePath, reset: true });
  else out.info(`sandbox state reset: ${statePath}`);
  return 0;
}
