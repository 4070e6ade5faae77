// A command we tell someone to run must work when they copy it: on the sandbox it carries
// `--sandbox`, on another profile `--profile <name>`. Hints, notes and next steps are
// written once, as `carrental <command>`; this spells each such command (a backticked one)
// for the user who runs this command, wherever the text comes from.

/** `carrental [--sandbox] [--profile p]`: the start of a command for this user. */
export function userPrefix(globals: { sandbox?: boolean; profile?: string }): string {
  return ['carrental', globals.sandbox ? '--sandbox' : '', globals.profile && globals.profile !== 'default' ? `--profile ${globals.profile}` : ''].filter(Boolean).join(' ');
}

/**
 * Subcommands that take neither: `sandbox …` drives a sandbox server by its own options,
 * `help` and `completion` read nothing. A command already spelt with a global option is
 * left as written.
 */
const AS_WRITTEN = /^carrental(?: (?:-|sandbox\b|help\b|completion\b)|$)/;

/** Each backticked `carrental …` in `text`, spelt with `prefix` (see userPrefix). */
export function forUser(text: string, prefix: string): string {
  if (prefix === 'carrental') return text;
  return text.replace(/`(carrental\b[^`]*)`/g, (whole, command: string) => (AS_WRITTEN.test(command) ? whole : `\`${prefix}${command.slice('carrental'.length)}\``));
}
