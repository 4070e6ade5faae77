// `carrental completion <shell>`: prints the completion script generated from the command
// tree. The same scripts are checked in under completions/ (`npm run completions`).
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { generateCompletion, SHELLS, type Shell } from '../cmdkit/completion-gen.js';
import { usageError } from '../errors.js';

export async function run(input: InputOf<'completion'>, ctx: Context): Promise<number> {
  const shell = input.shell ?? '';
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw usageError(`unknown shell "${shell}" (supported: ${SHELLS.join(', ')})`, 'run `carrental completion bash`, `carrental completion zsh` or `carrental completion fish`');
  }
  ctx.io.stdout.write(generateCompletion(shell as Shell));
  return 0;
}
