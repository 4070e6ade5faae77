// The entry point: runs one command line and returns its exit code. A plain help request
// (`--help`, `cars --help`, `help quote`) is answered from the command tree without
// loading commander (help-text.ts); everything else is parsed by commander (program.ts),
// and each command's module (and with it zod, conf, inquirer or the sandbox) is imported
// only when it runs.
import { holdsSecret, KEY_TOKEN_RE, scrubSecrets } from '../text/redact.js';
import { CliError, formatError, usageError } from '../errors.js';
import { safeJsonText } from '../text/json-text.js';
import { clean, cleanText } from '../text/sanitize.js';
import { maskedIO } from '../cmdkit/masked-io.js';
import { makeSleep, selfReportedStreams, WRAPPED_STREAM, type Context, type IO, type OutStream } from '../session/context.js';
import { resolveGlobals, type RawGlobals } from '../cmdkit/globals.js';
import { jsonBeforeCommand } from './argv.js';
import type { CommandSpec } from '../cmdkit/command-specs.js';
import { helpRequest, renderHelp } from './help-text.js';
import { loadCommand } from './commands.js';

// Not `import ... from 'node:fs'`: the ES-module view of a builtin reads every export, and
// node:fs's lazy ReadStream getter then loads all of node's streams, ~1.5 ms of --help.
const { fstatSync, writeSync } = process.getBuiltinModule('node:fs');

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
  /** Told when a pager starts (true) and ends (false): Ctrl-C is the pager's meanwhile. */
  onPager?: (running: boolean) => void;
}

/**
 * `carrental cars | head -3`: the reader went away, which is not an error of ours. Except
 * after a booking: then the command says what was booked (selfReportedStreams).
 */
function quietOnEpipe<T extends NodeJS.WriteStream>(stream: T): T {
  if (stream.listenerCount('error') === 0) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (selfReportedStreams.has(stream)) return;
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
  argv = jsonBeforeCommand(argv);
  let jsonErrors = argv.some((a) => a === '--json' || a.startsWith('--json=') || a === '--jq');
  // the keys every error printed by this run is scrubbed of (whatever field a server echoed
  // them in): the environment's now, the one the command resolves once it does
  const secrets: string[] = [];
  const activeKey = (key: string | undefined) => {
    if (!key || secrets.includes(key)) return;
    secrets.push(key);
    const holder = keyArgument(argv, key);
    if (holder !== undefined) throw keyOnCommandLine(holder, secrets);
  };
  try {
    activeKey(env.CARRENTAL_API_KEY);
    const holder = keyArgument(argv);
    if (holder !== undefined) throw keyOnCommandLine(holder, secrets);
  } catch (err) {
    return await reportError(err, io, jsonErrors, env, secrets, argv);
  }

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
  const help = helpRequest(argv);
  if (help) {
    const out = say.stdout;
    out.write(renderHelp(help, out.isTTY && out.columns ? out.columns : 80));
    return 0;
  }

  const controller = new AbortController();
  if (options.signal) {
    if (options.signal.aborted) controller.abort();
    else options.signal.addEventListener('abort', () => controller.abort(), { once: true });
  }
  const shownWhole = new Set<string>();
  const run = async (spec: CommandSpec, input: Record<string, unknown>, raw: RawGlobals): Promise<number> => {
    const globals = resolveGlobals(raw, env, io);
    jsonErrors = globals.json;
    // an AI agent gets what a pipe gets, even on a pseudo-terminal
    const seen = globals.agent ? asPipes(io) : io;
    const held = globals.pager && seen.stdout.isTTY && pages(spec, input) ? new (await import('../cmdkit/pager.js')).HeldOutput(seen.stdout, seen.stderr) : undefined;
    const cio: IO = held
      ? {
          // whatever reads stdin (a prompt, or canPrompt asking whether one can be shown) may
          // ask: what was held is shown first and nothing is paged (pager.ts)
          get stdin() {
            held.release();
            return seen.stdin;
          },
          stdout: held.stdout,
          stderr: held.stderr,
        }
      : seen;
    const ctx: Context = {
      // whatever the command prints passes the active key's mask first (then the pager, if any)
      io: maskedIO(cio, secrets, shownWhole),
      env,
      globals,
      version: VERSION,
      now: options.now ?? (() => new Date()),
      sleep: options.sleep ?? makeSleep(controller.signal),
      signal: controller.signal,
      canPrompt: () => globals.input && !!cio.stdin.isTTY && !!cio.stdout.isTTY,
      onCleanup: (fn) => cleanups.push(fn),
      activeKey,
      showWhole: (values) => values.forEach((v) => shownWhole.add(v)),
    };
    // a bad field list or jq expression is a usage error before anything is sent
    if (globals.jsonFields || globals.jq !== undefined) await (await import('./json-output.js')).prepare(spec.name, globals);
    const mod = (await loadCommand(spec)) as { run: (input: Record<string, unknown>, ctx: Context) => Promise<number | void> };
    try {
      const code = await mod.run(input, ctx);
      return code ?? 0;
    } catch (err) {
      // a hint names commands as `carrental …`: spelt for this user (--sandbox, --profile)
      if (err instanceof CliError && (globals.sandbox || globals.profile !== 'default')) {
        const { forUserError } = await import('../cmdkit/hints.js');
        const { cliPrefix } = await import('../cmdkit/confirm.js');
        throw forUserError(err, cliPrefix(ctx));
      }
      throw err;
    } finally {
      // what was printed before a failure is shown too, before the error line
      if (held) await held.finish((await import('../cmdkit/pager.js')).pagerCommand(env), env, options.onPager);
    }
  };

  const { buildProgram, CommanderError } = await import('./program.js');
  const { program, exitCode } = buildProgram(say, run, errorColor(say, env, argv));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      // commander already printed its one-line message; a script asked for JSON gets it as JSON too
      if (jsonErrors) writeJsonError(io, { error: scrubSecrets(clean(err.message.replace(/^error:\s*/, '')), secrets), kind: 'usage', exit_code: 2 });
      return 2;
    }
    return await reportError(err, io, jsonErrors, env, secrets, argv);
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

/** Whether a command's output may go through a pager (`pager` in the command tree). */
function pages(spec: CommandSpec, input: Record<string, unknown>): boolean {
  return typeof spec.pager === 'function' ? spec.pager(input) : spec.pager === true;
}

/**
 * The streams as a pipe would show them (no terminal, no width): what an AI agent's
 * pseudo-terminal gets, so no prompt, colour, progress, redraw or pager reaches it.
 */
function asPipes(io: IO): IO {
  const pipe = <T extends object>(stream: T): T =>
    new Proxy(stream, {
      get(target, key) {
        if (key === WRAPPED_STREAM) return target;
        if (key === 'isTTY') return false;
        if (key === 'columns' || key === 'rows') return undefined;
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return {
    get stdin() {
      return pipe(io.stdin);
    },
    get stdout() {
      return pipe(io.stdout);
    },
    get stderr() {
      return pipe(io.stderr);
    },
  };
}

/**
 * The first argument that holds an API key anywhere in it (a path, a header value, a JSON
 * body, `--opt=value`): the given key, or any key-shaped token.
 */
export function keyArgument(argv: readonly string[], key?: string): string | undefined {
  const shaped = new RegExp(KEY_TOKEN_RE.source, 'i');
  if (key !== undefined) return argv.find((a) => spellings(a).some((s) => holdsSecret(s, key.toLowerCase())));
  return argv.find((a) => spellings(a).some((s) => shaped.test(s)));
}

/**
 * An argument as a server may read it: as typed, percent-decoded (`svc%5F…`, also twice
 * over: `%255F`), `+` as a space, all lower-cased, so that no spelling of the key, in
 * any case, gets past the check (a path or query is decoded by the server).
 */
function spellings(arg: string): string[] {
  const out = [arg.toLowerCase()];
  for (let text = arg, i = 0; i < 3; i++) {
    const next = text.replace(/\+/g, ' ').replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === text) break;
    out.push(next.toLowerCase());
    text = next;
  }
  return out;
}

function keyOnCommandLine(arg: string, secrets: string[]): CliError {
  // the argument masked; a long one (a JSON body) shown around the first mask only
  let masked = scrubSecrets(clean(arg), secrets);
  // percent-encoded or in another case, the mask does not find it: the argument is not shown
  if (keyArgument([masked]) !== undefined || secrets.some((k) => keyArgument([masked], k) !== undefined)) masked = 'an argument holding it encoded or in another case';
  const from = Math.max(0, masked.indexOf('…') - 40);
  const shown = masked.length <= 80 ? masked : `${from > 0 ? '...' : ''}${masked.slice(from, from + 80)}${from + 80 < masked.length ? '...' : ''}`;
  return usageError(
    `an API key is never accepted as a command-line argument (it would land in shell history and \`ps\`); got ${shown}`,
    'run `carrental auth login` (it prompts, or reads the key from stdin with --with-key), or set CARRENTAL_API_KEY; with `carrental api`, the key is sent for you: leave it out of the path, headers and body',
  );
}

async function reportError(err: unknown, io: IO, json: boolean, env: NodeJS.ProcessEnv, secrets: string[], argv: readonly string[] = []): Promise<number> {
  // a progress line (`cars --all`, a retry, the spinner) still on the terminal is erased first
  if (io.stderr.isTTY) io.stderr.write('\r\u001b[2K');
  if (err instanceof CliError) {
    if (err.kind === 'interrupted') {
      // once: `interrupted`, or the command's own line that starts with it (and, for a write
      // left pending, how to finish it)
      const rerun = err.journalKey === undefined ? '' : `; ${(await import('../cmdkit/hints.js')).rerunHint(err.journalKey)}`;
      io.stderr.write(`${err.message.startsWith('interrupted') ? scrubSecrets(clean(err.message + rerun), secrets) : 'interrupted'}\n`);
      return err.exitCode;
    }
    // the CLI's words for what to do next (loaded here: --help and --version never need them)
    const hint = (await import('../cmdkit/hints.js')).hintFor(err);
    const text = formatError(err, secrets, errorColor(io, env, argv), hint);
    // on a terminal, folded at spaces to its width as every message is (a command kept whole)
    const columns = io.stderr.isTTY ? io.stderr.columns : undefined;
    io.stderr.write(columns && columns > 0 ? `${(await import('../render/table.js')).foldProse(text.replace(/\n$/, ''), columns).join('\n')}\n` : text);
    if (json) {
      // the API's error object as sent, minus the key, with C1 and bidi characters as \u escapes;
      // an error of carrental's own (bad input, no key, ...) as an object of the same shape
      if (err.api?.body !== undefined) io.stderr.write(safeJsonText(JSON.stringify(err.api.body), secrets) + '\n');
      else writeJsonError(io, { error: scrubSecrets(clean(err.message), secrets), kind: err.kind, exit_code: err.exitCode, ...(hint ? { hint: scrubSecrets(clean(hint), secrets) } : {}) });
    }
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`${errorColor(io, env, argv) ? '\u001b[31merror:\u001b[39m' : 'error:'} unexpected failure: ${scrubSecrets(clean(message), secrets)}\n`);
  if (env.CARRENTAL_DEBUG && err instanceof Error && err.stack) io.stderr.write(scrubSecrets(cleanText(err.stack), secrets) + '\n');
  return 1;
}

function writeJsonError(io: Pick<IO, 'stderr'>, error: Record<string, unknown>): void {
  io.stderr.write(safeJsonText(JSON.stringify(error)) + '\n');
}

/**
 * `error:` is red where `warning:` is yellow: on a terminal (stderr), unless NO_COLOR or
 * --no-color, or with FORCE_COLOR.
 */
export function errorColor(io: Pick<IO, 'stderr'>, env: NodeJS.ProcessEnv, argv: readonly string[]): boolean {
  if (argv.includes('--no-color') || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return !!io.stderr.isTTY;
}

/**
 * Entry point of bin/carrental.js (dist/cli.js is this file's build): help and usage errors
 * load the command tree only; a command's module (dist/commands/) is imported when it runs.
 */
export async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  let paging = false;
  const onSigint = () => {
    // the pager (less) got this Ctrl-C too and handles it; we leave when it exits, as git
    // and gh do: leaving now would orphan it on the terminal
    if (paging) return;
    interrupts += 1;
    // a second Ctrl-C leaves at once; the first lets the command clean up (journal, sandbox)
    if (interrupts > 1) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    return await runCli(argv, { signal: controller.signal, parserIO: parserIO(), onPager: (running) => (paging = running) });
  } finally {
    process.off('SIGINT', onSigint);
  }
}
