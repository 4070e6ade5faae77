// The command tree. Only commander and this file load for `--help`; each command's module
// (and with it zod, conf, inquirer or the sandbox) is imported when it runs.
import { Command, CommanderError, Option } from 'commander';
import { KEY_TOKEN_RE, maskKey } from '../api/redact.js';
import { CliError, formatErrorLine, usageError } from '../errors.js';
import { fstatSync, writeSync } from 'node:fs';
import { makeSleep, resolveGlobals, type Context, type IO, type OutStream, type RawGlobals } from './context.js';
import { COMMANDS, JSON_OUTPUT_MODULE, type CommandSpec, type OptionSpec } from './commands.js';
import { GLOBAL_OPTIONS } from './global-options.js';

declare const __CARRENTAL_VERSION__: string;
export const VERSION = typeof __CARRENTAL_VERSION__ === 'string' ? __CARRENTAL_VERSION__ : '0.0.0-dev';

export interface RunOptions {
  io?: IO;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
  signal?: AbortSignal;
  /** Replaces the real sleep (tests that must not wait). */
  sleep?: (ms: number) => Promise<void>;
  /** Where help, the overview and usage errors of the parser go (default: io). */
  parserIO?: Pick<IO, 'stdout' | 'stderr'>;
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

/**
 * The top-level command the arguments name (`help <command>`'s too), skipping global
 * options and their values; undefined when they name none.
 */
export function commandNamed(argv: string[]): string | undefined {
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
 * The commander tree. With `argv`, only the command it names is built in full; the others
 * are outlines (name, aliases, arguments, description: what the root help, the command list
 * and the "did you mean" suggestions read), which keeps the tree's cold start short.
 */
export function buildProgram(io: IO, run: (spec: CommandSpec, input: Record<string, unknown>, raw: RawGlobals) => Promise<number>, argv?: string[]) {
  let exitCode = 0;
  const program = new Command('carrental');
  program
    .description('Command-line client for the car-rental customer and agent API')
    .version(VERSION, '-V, --version', 'print the version')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // commander's defaults read process.stdout, which both ignores the streams we were
      // given and costs start-up the creation of the stream
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns ? io.stdout.columns : 80),
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns ? io.stderr.columns : 80),
      getOutHasColors: () => !!io.stdout.isTTY,
      getErrHasColors: () => !!io.stderr.isTTY,
      // commander echoes unknown options, and `--api-key=svc_...` must not reach the terminal
      outputError: (s, write) => write(redactKeys(s.startsWith('error:') ? s : `error: ${s}`)),
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
  // with an action of its own the root gets no implicit `help` command; `carrental help cars` is common
  program.helpCommand(true);

  const wanted = argv && commandNamed(argv);
  const addCommand = (parent: Command, spec: CommandSpec, outline = false) => {
    const cmd = parent.command(spec.name, { hidden: spec.hidden }).description(spec.description);
    if (spec.aliases) cmd.aliases(spec.aliases);
    for (const arg of spec.args ?? []) cmd.argument(arg.syntax, arg.description);
    if (outline) {
      // the root help writes "[options]" after a command with any option: one stands for all
      if (spec.options?.length) cmd.addOption(toOption(spec.options[0]));
      return;
    }
    for (const opt of spec.options ?? []) cmd.addOption(toOption(opt));
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
  for (const spec of COMMANDS) {
    addCommand(program, spec, argv !== undefined && spec.name !== wanted && !spec.aliases?.includes(wanted ?? ''));
  }
  // set after the subcommands were added: they inherit commander's settings on creation
  program.allowExcessArguments(true);
  program.allowUnknownOption(true);
  program.addHelpText(
    'after',
    `\nExamples:\n  $ carrental --sandbox cars --city la\n  $ carrental cars --city miami --from 2026-12-01T10:00 --to 2026-12-04T10:00 --jq '.cars[].car_alias'\n  $ carrental auth login\n\nExit codes: 0 ok, 1 API error, 2 usage, 3 auth, 4 not found, 5 conflict, 6 unavailable (safe to rerun), 130 interrupted.\n`,
  );
  return { program, exitCode: () => exitCode };
}

function toOption(opt: OptionSpec): Option {
  const option = new Option(opt.flags, opt.description);
  if (opt.choices) option.choices(opt.choices);
  if (opt.repeatable) option.argParser((value: string, prev: string[] | undefined) => [...(prev ?? []), value]);
  if (opt.hidden) option.hideHelp();
  return option;
}

/** `carrental cars | head -3`: the reader went away, which is not an error of ours. */
function quietOnEpipe<T extends NodeJS.WriteStream>(stream: T): T {
  if (stream.listenerCount('error') === 0) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  return stream;
}

/** The process's streams, each created only when first used (creating one costs ~1.5 ms). */
function processIO(): IO {
  return {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      return quietOnEpipe(process.stdout);
    },
    get stderr() {
      return quietOnEpipe(process.stderr);
    },
  };
}

/**
 * For the parser's own output (help, usage errors): plain synchronous writes to a pipe or
 * file, without creating node's stream objects; a terminal gets the real stream (width).
 */
function parserIO(): Pick<IO, 'stdout' | 'stderr'> {
  const writer = (fd: 1 | 2, stream: () => OutStream): OutStream => {
    let direct = false;
    try {
      direct = !fstatSync(fd).isCharacterDevice();
    } catch {
      // a closed descriptor: let the stream report it
    }
    if (!direct) return stream();
    let closed = false;
    const write = (text: string) => {
      const bytes = Buffer.from(text);
      for (let off = 0; off < bytes.length && !closed; ) {
        try {
          off += writeSync(fd, bytes, off);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          // `carrental --help | head -3`: the reader went away; not an error of ours
          if (code === 'EPIPE') closed = true;
          // a non-blocking pipe that is full: wait for the reader
          else if (code !== 'EAGAIN') throw err;
        }
      }
      return true;
    };
    return { write, isTTY: false } as unknown as OutStream;
  };
  return { stdout: writer(1, () => quietOnEpipe(process.stdout)), stderr: writer(2, () => quietOnEpipe(process.stderr)) };
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
  argv = jsonBeforeCommand(argv);
  let jsonErrors = argv.some((a) => a === '--json' || a.startsWith('--json=') || a === '--jq');
  const keyArgument = argv.find((a) => new RegExp(`^(--?[\\w-]+=)?${KEY_TOKEN_RE.source}$`).test(a));
  if (keyArgument) {
    return reportError(
      usageError(
        `an API key is never accepted as a command-line argument (it would land in shell history and \`ps\`); got ${redactKeys(keyArgument)}`,
        'run `carrental auth login` (it prompts, or reads the key from stdin with --with-key), or set CARRENTAL_API_KEY',
      ),
      io,
      jsonErrors,
      env,
    );
  }

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
    // a bad field list or jq expression is a usage error before anything is sent
    if (globals.jsonFields || globals.jq !== undefined) await (await JSON_OUTPUT_MODULE()).prepare(spec.name, globals);
    const mod = (await spec.module!()) as { run: (input: Record<string, unknown>, ctx: Context) => Promise<number | void> };
    const code = await mod.run(input, ctx);
    return code ?? 0;
  };

  const parserOut = options.parserIO;
  // not a spread: that would read (and so create) every stream of a lazy IO
  const say: IO = parserOut
    ? {
        get stdin() {
          return io.stdin;
        },
        stdout: parserOut.stdout,
        stderr: parserOut.stderr,
      }
    : io;
  const { program, exitCode } = buildProgram(say, run, argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (err) {
    return reportError(err, io, jsonErrors, env);
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

function redactKeys(text: string): string {
  return text.replace(KEY_TOKEN_RE, (token) => maskKey(token));
}

function reportError(err: unknown, io: IO, json: boolean, env: NodeJS.ProcessEnv): number {
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
  if (env.CARRENTAL_DEBUG && err instanceof Error && err.stack) io.stderr.write(err.stack + '\n');
  return 1;
}

/**
 * Entry point of bin/carrental.js, from the CommonJS build of this file (dist/cli/start.cjs):
 * help and usage errors never start node's ESM loader; a command's module is imported from
 * the ES-module build (dist/commands/) when it runs.
 */
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
    return await runCli(argv, { signal: controller.signal, parserIO: parserIO() });
  } finally {
    process.off('SIGINT', onSigint);
  }
}
