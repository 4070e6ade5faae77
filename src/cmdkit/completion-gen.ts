// Shell completion scripts for bash, zsh and fish, generated from the command tree
// (COMMANDS and GLOBAL_OPTIONS), so a new command, flag or enum value completes in every
// shell without touching a script. Values that live on the server (car aliases,
// reservation and invoice uuids, a car's extras) and profile names come from the hidden
// `carrental __complete <kind> [context]` command at completion time, as
// `value<TAB>description` lines: zsh and fish show the description beside the value, bash
// (which cannot) appends it in parentheses when it lists several candidates.
//
// All three scripts share one model of the tree and one way of reading the line: walk the
// words before the cursor, follow subcommand names, skip the value after a flag that takes
// one, count positional arguments (keeping the first: the car whose extras `--extra`
// completes), and remember --profile/--base-url/--sandbox so dynamic candidates come from
// the same API the command would use.
import { bash } from './completion/bash.js';
import { fish } from './completion/fish.js';
import { buildModel } from './completion/model.js';
import { zsh } from './completion/zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** `carrental __complete <kind>` sources. */
export type { DynamicKind } from './completion/model.js';

export function generateCompletion(shell: Shell): string {
  const model = buildModel();
  if (shell === 'bash') return bash(model);
  if (shell === 'zsh') return zsh(model);
  return fish(model);
}
