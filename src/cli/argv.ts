// Reading a command line before commander does: which command it names, and `--json`
// right before that name. Free of commander, so that main.ts can use it on every run.
import { GLOBAL_OPTIONS } from '../cmdkit/global-options.js';

/**
 * The top-level command the arguments name (`help <command>`'s too), skipping global
 * options and their values; undefined when they name none.
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  const takesValue = new Set(GLOBAL_OPTIONS.filter((o) => o.flags.includes('<')).flatMap((o) => o.flags.split(/[\s,]+/).filter((f) => f.startsWith('-'))));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return argv[i + 1];
    if (arg.startsWith('-')) {
      if (takesValue.has(arg)) i++;
      continue;
    }
    if (arg === 'help') return argv.slice(i + 1).find((a) => !a.startsWith('-')) ?? arg;
    return arg;
  }
  return undefined;
}

/**
 * `--json [fields]` takes an optional value, so in `carrental --json cars --all` commander
 * would read `cars` as the field list. A bare --json right before the command name is
 * written `--json=` (no fields) instead; after the command, `--json a,b` is a field list.
 */
export function jsonBeforeCommand(argv: string[]): string[] {
  const command = commandNamed(argv);
  const at = command === undefined ? -1 : argv.indexOf(command);
  if (at > 0 && argv[at - 1] === '--json') return [...argv.slice(0, at - 1), '--json=', ...argv.slice(at)];
  return argv;
}
