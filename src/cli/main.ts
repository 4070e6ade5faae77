// The command tree. Only commander and this file load for `--help`; each command's module
// (and with it undici, zod, conf, inquirer or the sandbox) is imported when it runs.
import { Command, CommanderError, Option } from 'commander';
import { CliError, formatErrorLine } from '../errors.js';
import { makeSleep, resolveGlobals, type Context, type IO, type RawGlobals } from './context.js';
import { COMMANDS, type CommandSpec } from './commands.js';

declare const __CARRENTAL_VERSION__: string;
export const VERSION = typeof __CARRENTAL_VERSION__ === 'string' ? __CARRENTAL_VERSION__ : '0.0.0-dev';

export interface RunOptions {
  io?: IO;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
  signal?: AbortSignal;
  /** Replaces the real sleep (tests that must not wait). */
  sleep?: (ms: number) => Promise<void>;
}

const OVERVIEW = `carrental: search, quote, book and manage car rentals from the terminal.

Try it now against the embedded sandbox (no account needed):
  carrental --sandbox cars --city la
  carrental --sandbox quote <alias> --from 2026-12-01T10:00 --to 2026-12-04T10:00

Use a real API:
  carrental config set base_url https://api.example.com/v1
  carrental auth login

Run \`carrental --help\` for every command, \`carrental <command> --help\` for one.
`;

export function buildProgram(io: IO, run: (spec: CommandSpec, input: Record<string, unknown>, raw: RawGlobals) => Promise<number>) {
  let exitCode = 0;
  const program = new Command('carrental');
  program
    .description('Command-line client for the car-rental customer and agent API')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--profile <name>', 'configuration profile (env CARRENTAL_PROFILE; default "default")')
    .option('--base-url <url>', 'API base address ending in /v1 (env CARRENTAL_BASE_URL)')
    .option('--sandbox', 'use the embedded sandbox instead of a remote API (env CARRENTAL_SANDBOX=1)')
    .option('--json', 'print the response payload as JSON on stdout, nothing else')
    .option('--no-color', 'no colour (also NO_COLOR; off whenever stdout is not a terminal)')
    .option('--no-input', 'never prompt; a missing value is a usage error (also when CI is set)')
    .option('-y, --yes', 'answer yes to confirmations')
    .option('--debug', 'trace HTTP requests and responses to stderr, credentials redacted (env CARRENTAL_DEBUG=1)')
    .option('--timeout <seconds>', 'per-request timeout in seconds (env CARRENTAL_TIMEOUT; default 30)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error:') ? s : `error: ${s}`),
    })
    .action(() => {
      io.stdout.write(OVERVIEW);
    });

  const addCommand = (parent: Command, spec: CommandSpec) => {
    const cmd = parent.command(spec.name).description(spec.description);
    if (spec.aliases) cmd.aliases(spec.aliases);
    for (const arg of spec.args ?? []) cmd.argument(arg.syntax, arg.description);
    for (const opt of spec.options ?? []) {
      const option = new Option(opt.flags, opt.description);
      if (opt.choices) option.choices(opt.choices);
      if (opt.repeatable) option.argParser((value: string, prev: string[] | undefined) => [...(prev ?? []), value]);
      if (opt.hidden) option.hideHelp();
      cmd.addOption(option);
    }
    if (spec.examples?.length) {
      cmd.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
    }
    cmd.exitOverride();
    if (spec.subcommands) {
      for (const sub of spec.subcommands) addCommand(cmd, sub);
      if (!spec.module) return;
    }
    cmd.action(async (...params: unknown[]) => {
      const command = params[params.length - 1] as Command;
      const input: Record<string, unknown> = { ...command.opts() };
      (spec.args ?? []).forEach((arg, i) => {
        input[arg.key] = params[i];
      });
      exitCode = await run(spec, input, command.optsWithGlobals() as RawGlobals);
    });
  };
  for (const spec of COMMANDS) addCommand(program, spec);
  program.addHelpText(
    'after',
    `\nExamples:\n  $ carrental --sandbox cars --city la\n  $ carrental cars --city miami --from 2026-12-01T10:00 --to 2026-12-04T10:00 --json | jq '.cars[].car_alias'\n  $ carrental auth login\n\nExit codes: 0 ok, 1 API error, 2 usage, 3 auth, 4 not found, 5 conflict, 6 unavailable (safe to rerun), 130 interrupted.\n`,
  );
  return { program, exitCode: () => exitCode };
}

function processIO(): IO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Runs the CLI in this process and returns the exit code; never calls process.exit. */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<number> {
  const io = options.io ?? processIO();
  const env = options.env ?? process.env;
  const cleanups: Array<() => Promise<void> | void> = [];
  const controller = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) controller.abort();
    else options.signal.addEventListener('abort', () => controller.abort(), { once: true });
  }
  let jsonErrors = argv.includes('--json');

  const run = async (spec: CommandSpec, input: Record<string, unknown>, raw: RawGlobals): Promise<number> => {
    const globals = resolveGlobals(raw, env, io);
    jsonErrors = globals.json;
    const ctx: Context = {
      io,
      env,
      globals,
      version: VERSION,
      now: options.now ?? (() => new Date()),
      sleep: options.sleep ?? makeSleep(controller.signal),
      signal: controller.signal,
      canPrompt: () => globals.input && !!io.stdin.isTTY && !!io.stdout.isTTY,
      onCleanup: (fn) => cleanups.push(fn),
    };
    const mod = (await spec.module!()) as { run: (input: Record<string, unknown>, ctx: Context) => Promise<number | void> };
    const code = await mod.run(input, ctx);
    return code ?? 0;
  };

  const { program, exitCode } = buildProgram(io, run);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (err) {
    return reportError(err, io, jsonErrors);
  } finally {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // cleanup must never mask the command's own result
      }
    }
  }
}

function reportError(err: unknown, io: IO, json: boolean): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    // commander already printed its one-line message
    return 2;
  }
  if (err instanceof CliError) {
    if (err.kind === 'interrupted') {
      io.stderr.write('interrupted\n');
      return err.exitCode;
    }
    io.stderr.write(formatErrorLine(err) + '\n');
    if (err.hint) io.stderr.write(`hint: ${err.hint}\n`);
    if (json && err.api?.body !== undefined) io.stderr.write(JSON.stringify(err.api.body) + '\n');
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`error: unexpected failure: ${message}\n`);
  if (process.env.CARRENTAL_DEBUG && err instanceof Error && err.stack) io.stderr.write(err.stack + '\n');
  return 1;
}

/** Entry point used by bin/carrental.js. */
export async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    // a second Ctrl-C leaves at once; the first lets the command clean up (journal, sandbox)
    if (interrupts > 1) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    return await runCli(argv, { signal: controller.signal });
  } finally {
    process.off('SIGINT', onSigint);
  }
}
