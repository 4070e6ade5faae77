// `carrental auth logout`: forgets the key stored in a profile. The key itself stays valid
// on the server until the customer revokes it in the account settings.
import type { Context } from '../session/context.js';
import { openConfig, output } from '../session/services.js';

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const out = output(ctx);
  const config = openConfig(ctx);
  const profile = ctx.globals.profile;
  const removed = !!config.profile(profile).api_key;
  if (removed) {
    await config.update(profile, (p) => {
      delete p.api_key;
    });
  }
  if (ctx.globals.json) out.printJson({ profile, removed });
  else if (removed) out.info(`Removed the key of profile "${profile}". The key stays valid until you revoke it in your account settings.`);
  else out.info(`No key stored for profile "${profile}".`);
  if (ctx.env.CARRENTAL_API_KEY) out.warn('CARRENTAL_API_KEY is still set in the environment and is still used');
  return 0;
}
