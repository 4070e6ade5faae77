// The commander tree: parses a command line and runs the command it names. Loaded by
// runCli (main.ts) for everything but a plain help request, which help-text.ts answers.
import { Command, CommanderError, Help, Option } from 'commander';
import { scrubSecrets } from '../text/redact.js';
import { cleanText } from '../text/sanitize.js';
import type { IO } from '../session/context.js';
import type { RawGlobals } from '../cmdkit/globals.js';
import { COMMANDS, type CommandSpec, type OptionSpec } from '../cmdkit/command-specs.js';
import { GLOBAL_OPTIONS } from '../cmdkit/global-options.js';
import { examplesText, PROGRAM_DESCRIPTION, rootHelpAfter, stackedItem } from './help-text.js';

declare const __CARRENTAL_VERSION__: string;
const VERSION = typeof __CARRENTAL_VERSION__ === 'string' ? __CARRENTAL_VERSION__ : '0.0.0-dev';

export { CommanderError };

const KEY_NOT_AN_ARGUMENT =
  'the key is never an argument (it would land in shell history and `ps`): run `carrental auth login` and paste it at the prompt, or pipe it in: `printf %s "$KEY" | carrental auth login --with-key`';

const OVERVIEW = `carrental: search, quote, book and manage car rentals from the terminal.

Try it now against the embedded sandbox (no account needed):
  carrental --sandbox cars --city la
  carrental --sandbox quote toyota-camry-1001 --from "tomorrow 10:00" --days 3

Use a real API:
  carrental config set base_url https://api.example.com/v1
  carrental auth login

Run \`carrental --help\` for every command, \`carrental <command> --help\` for one,
\`carrental help <topic>\` for a page of the manual (exit-codes, environment, formatting, ...).
`;

/** A terminal's width; 80 in a pipe. */
const helpWidth = (stream: IO['stdout']) => (stream.isTTY && stream.columns ? stream.columns : 80);

/** The commander tree, every command in full. */
export function buildProgram(io: IO, run: (spec: CommandSpec, input: Record<string, unknown>, raw: RawGlobals) => Promise<number>, color = false) {
  let exitCode = 0;
  const program = new Command('carrental');
  program
    .description(PROGRAM_DESCRIPTION)
    .version(VERSION, '-V, --version', 'print the version')
    .configureHelp({
      showGlobalOptions: true,
      sortSubcommands: false,
      // on a narrow terminal, the description under its term (help-text.ts lays out the same)
      formatItem(term, termWidth, description, helper) {
        return stackedItem(term, termWidth, description, this.helpWidth ?? 80) ?? Help.prototype.formatItem.call(this, term, termWidth, description, helper);
      },
    })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // commander's defaults read process.stdout, which both ignores the streams we were
      // given and costs start-up the creation of the stream
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
      getOutHasColors: () => !!io.stdout.isTTY,
      getErrHasColors: () => !!io.stderr.isTTY,
      // commander echoes unknown options and bad values as typed: `--api-key=svc_...` must not
      // reach the terminal, nor escape sequences the user pasted by mistake
      outputError: (s, write) => {
        const line = scrubSecrets(cleanText(s.startsWith('error:') ? s : `error: ${s}`));
        write(color ? line.replace(/^error:/, '\u001b[31merror:\u001b[39m') : line);
        // `auth login <key>`: what was typed is likely a key; never echo it, say how to give one
        if (/too many arguments for 'login'/.test(s)) write(`hint: ${KEY_NOT_AN_ARGUMENT}\n`);
      },
    })
    .action(() => {
      // the root has an action (the overview), so commander hands it unknown command names
      // (and, allowed through below, the flags typed after it: `carz --city la` is a mistyped
      // command, not an unknown --city); a leading unknown flag is still reported as one
      const first = program.args[0];
      const internals = program as unknown as { unknownCommand(): never; unknownOption(flag: string): never };
      if (first?.startsWith('-')) {
        program.allowUnknownOption(false);
        internals.unknownOption(first);
      }
      if (first !== undefined) internals.unknownCommand();
      io.stdout.write(OVERVIEW);
    });
  for (const opt of GLOBAL_OPTIONS) program.addOption(toOption(opt));

  const addCommand = (parent: Command, spec: CommandSpec) => {
    const cmd = parent.command(spec.name, { hidden: spec.hidden }).description(spec.description);
    if (spec.aliases) cmd.aliases(spec.aliases);
    for (const arg of spec.args ?? []) cmd.argument(arg.syntax, arg.description);
    for (const opt of spec.options ?? []) cmd.addOption(toOption(opt));
    if (spec.examples?.length) cmd.addHelpText('after', examplesText(spec));
    cmd.exitOverride();
    if (spec.subcommands) {
      for (const sub of spec.subcommands) addCommand(cmd, sub);
      if (!spec.module) return;
    }
    cmd.action(async (...params: unknown[]) => {
      const command = params[params.length - 1] as Command;
      // InputOf<path> of the spec by construction (command-types.ts models exactly this: opts()
      // plus each argument under its key); commands.ts checks each module's run accepts it
      const input: Record<string, unknown> = { ...command.opts() };
      (spec.args ?? []).forEach((arg, i) => {
        input[arg.key] = params[i];
      });
      exitCode = await run(spec, input, command.optsWithGlobals() as RawGlobals);
    });
  };
  for (const spec of COMMANDS) addCommand(program, spec);
  // `help` and `help <command>` that reach commander (after global flags, or an alias) print
  // commander's help, as `--help` does, without loading any module; only `help <topic>` runs
  // the help command's module (the manual's text)
  program.commands
    .find((c) => c.name() === 'help')
    ?.hook('preAction', (_help, action) => {
      const name = action.args[0];
      const target = name === undefined ? program : program.commands.find((c) => c.name() === name || c.aliases().includes(name));
      target?.help();
    });
  // set after the subcommands were added: they inherit commander's settings on creation
  program.allowExcessArguments(true);
  program.allowUnknownOption(true);
  program.addHelpText('after', ({ error }) => rootHelpAfter(helpWidth(error ? io.stderr : io.stdout)));
  return { program, exitCode: () => exitCode };
}

function toOption(opt: OptionSpec): Option {
  const option = new Option(opt.flags, opt.description);
  if (opt.choices) {
    option.choices(opt.choices);
    // `--city LA` is `--city la`: choices are matched ignoring case, and passed on as listed
    const check = option.parseArg!;
    const choices = opt.choices;
    option.argParser((value: string, previous: unknown) => check(choices.find((c) => c.toLowerCase() === value.toLowerCase()) ?? value, previous));
  }
  if (opt.repeatable) option.argParser((value: string, prev: string[] | undefined) => [...(prev ?? []), value]);
  if (opt.hidden) option.hideHelp();
  return option;
}

