// `carrental sandbox keys`: the demo keys of the sandbox's customers and the app token
// (fixtures of a seed, not secrets), for a test that needs another customer or capability.
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';
import { adminTarget } from '../cmdkit/sandbox-admin.js';

export async function run(input: InputOf<'sandbox keys'>, ctx: Context): Promise<number> {
  const target = await adminTarget(ctx, input);
  const keys = await target.call<Record<string, string>>('GET', '/keys');
  const out = output(ctx);
  // The one output that shows keys whole: these are a sandbox's published demo keys (also in
  // docs/sandbox.md and on `sandbox serve`'s first lines), asked for by name. Every other
  // output masks the active key and anything key-shaped.
  out.setSecrets([]);
  ctx.showWhole?.(Object.values(keys));
  if (ctx.globals.json) out.printJson(keys);
  else out.pairs(Object.entries(keys));
  return 0;
}
