// What reserve and cancel share before anything is sent: whether a confirmation can be
// asked at all, and how to spell the next command for this user.
import type { Context } from '../session/context.js';
import { usageError } from '../errors.js';
import { userPrefix } from '../render/for-user.js';

/** A confirmation that cannot be shown is a usage error: never a silent booking or cancellation. */
export function requireConfirmable(ctx: Context, what: string): void {
  if (ctx.globals.yes || ctx.canPrompt()) return;
  const why = !ctx.globals.input ? 'prompts are off (--no-input or CI)' : 'this is not a terminal';
  throw usageError(`${what} needs a confirmation and ${why}: pass -y (--yes) to confirm`, 'nothing was sent');
}

/** `carrental [--sandbox] [--profile p]`: the prefix of a follow-up command for this user. */
export function cliPrefix(ctx: Context): string {
  return userPrefix(ctx.globals);
}
