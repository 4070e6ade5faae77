// The examples of README.md, of every page of docs/ and of every command's --help are
// executed, each on a fresh sandbox at each of three sandbox clocks (CLOCK_SHIFTS: today,
// +200 and +400 days), by one test file per clock (examples-<clock>.e2e.test.ts). Every
// fenced block with the info string `console` is read; each `$ carrental ...` line in it (a
// trailing `\` continues it on the next line) is run by bash against the embedded sandbox
// (a fresh temp home, CARRENTAL_SANDBOX=1, the clock set by CARRENTAL_SANDBOX_NOW), in page
// order, so state carries over from line to line as in a user's session. Each page (and
// each command's help, with its subcommands') is its own session: its examples never
// depend on another's. Output lines in the block are illustration and are not compared.
//
// How a line runs: bash stays the shell (pipes, `| jq`, quoting, `$(...)`, `VAR=x` prefixes,
// `# exit N`), each line in a subshell of its session's bash (test/helpers/line-shell.ts),
// but `carrental` there is a bash function (and, for `exec` or `xargs`, a script on PATH)
// that hands its argv, cwd, environment and stdin to the test worker, which runs the command
// in-process on the real command tree and answers stdout, stderr and the exit code
// (test/helpers/inprocess-shim.ts says what is the same as a spawned CLI and what is not: a
// wait passes at once, output arrives when the command ends). A line costs milliseconds
// instead of a Node start, which is what lets every example run at all three clocks. The
// built CLI (bin/carrental.js) still runs: the README at today's clock (the newcomer's
// path, SPAWNED_SESSIONS), every line that runs until interrupted at today's clock (a real
// SIGINT; at the later clocks, in-process, its signal is aborted once it printed), and the
// `sandbox serve` that `--port 4780` lines act on; test/readme/inprocess-shim.e2e.test.ts
// holds the two to the same output.
//
// Conventions for authors of the README, of docs/ and of the help examples:
// - a line must exit 0, unless it ends with a comment `# exit N`;
// - a line must work on any day: dates relative to the clock (`tomorrow`, `+10d`, `fri`),
//   never a fixed date the clock will pass; a seeded car or trip named by its alias or
//   uuid is placed relative to the sandbox clock (docs/sandbox.md, "The seeded world");
// - a line whose comment says `until Ctrl-C` (e.g. `sandbox serve`) is started, must print
//   something on stdout, and is then interrupted and must exit 0 or 130;
// - placeholders are filled in with real sandbox values: `<alias>` a car free for every
//   `--from/--to` pair written on `<alias>` lines of the page; `<uuid>` and
//   `<reservation-uuid>` the reservation the last `reserve` line of the page printed (one is
//   created first if none did yet); `<invoice-uuid>` an invoice of that reservation (or of
//   the demo customer's trips); `<serve-port>` the port of a `sandbox serve` the session
//   starts on its state, `<home>` the session's home (both for the help examples, below);
// - pipelines run with `set -o pipefail`, so the exit code is carrental's when it fails
//   (jq is installed by .ci/run for the `| jq ...` parts);
// - blocks run with HOME in a temp directory: a `console` line must not need anything
//   outside it. Install snippets that write to the user's dotfiles belong in `sh` blocks;
// - nothing else needs a real process: a line that needs a terminal or a signal is an `sh`
//   block (pages) or listed in NEEDS_A_TERMINAL (help).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT, ShimDir } from '../helpers/bin.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { InProcessCli } from '../helpers/inprocess-shim.js';
import { LineShell } from '../helpers/line-shell.js';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import { rootHelpAfter } from '../../src/cli/help-text.js';
import { sandboxKeys } from '../../src/sandbox/fixtures.js';

import { type Example, extractExamples } from './extract.js';
import { PAGES } from './pages.js';

export { type Example, extractExamples };

/**
 * The sandbox clocks every example runs at: today, 200 and 400 days ahead (so an example
 * that hard-codes a date, or leans on a seeded block that is a fixed range, fails here on
 * some day), each at a UTC hour where the cars' cities read another date than UTC:
 * - today at 03:30Z: the evening before in Los Angeles and in Miami, so a car-local
 *   "tomorrow" is the UTC today (the `quote --help` example failed exactly there);
 * - +200 days at 06:30Z: late evening in Los Angeles, after midnight in Miami (the two
 *   cities on different dates);
 * - +400 days at 18:00Z: daytime in both.
 * What the pages name with dates is also checked at every hour of 420 days in process,
 * without running them (test/sandbox/seed-day.test.ts).
 */
export const CLOCK_SHIFTS = [
  { days: 0, time: '03:30:00Z' },
  { days: 200, time: '06:30:00Z' },
  { days: 400, time: '18:00:00Z' },
] as const;

export type ClockShift = (typeof CLOCK_SHIFTS)[number];

export function sandboxClock(shift: ClockShift, today = new Date()): string {
  const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + shift.days));
  return `${day.toISOString().slice(0, 10)}T${shift.time}`;
}

/**
 * The sessions whose every line runs the built CLI (bin/carrental.js, a Node start per
 * `carrental`): the README at today's clock, the path a newcomer takes first. Every other
 * session runs its lines in-process (test/helpers/inprocess-shim.ts).
 */
export const SPAWNED_SESSIONS = [{ page: 'README.md', days: 0 }];
const spawnedSession = (page: string, shift: ClockShift) => SPAWNED_SESSIONS.some((s) => s.page === page && s.days === shift.days);

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const PLACEHOLDER_RE = /<(alias|uuid|reservation-uuid|invoice-uuid|serve-port|home)>/g;
/** Dates for a reservation the test creates itself, away from the pages' own. */
const OWN_TRIP = ['--from', '+40d 10:00', '--days', '2'];

export interface SessionOptions {
  /** The dates of the reservation created for `<uuid>` when no example reserved one. */
  ownTrip?: string[];
  /** More environment for every line. */
  env?: NodeJS.ProcessEnv;
  /** Every line runs the built CLI (SPAWNED_SESSIONS). */
  spawned?: boolean;
  /** The lines that run until interrupted run the built CLI, interrupted by a SIGINT (at today's clock); else in-process. */
  signals?: boolean;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A session's environment (PATH aside): the embedded sandbox in its home, at its clock. */
function sessionEnv(home: TestHome, clock: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return home.env({
    CARRENTAL_SANDBOX: '1',
    CARRENTAL_SANDBOX_NOW: clock,
    // the pages book more cars than the sandbox's default limit of active reservations
    CARRENTAL_SANDBOX_CONFIG: JSON.stringify({ maxActiveReservations: 50 }),
    LANG: 'C.UTF-8',
    ...extra,
  });
}

/** What the sessions of one test file share: the in-process `carrental`, and the built one's PATH shim. */
class Runners {
  private inProcess?: Promise<InProcessCli>;
  private shim?: ShimDir;

  cli(): Promise<InProcessCli> {
    return (this.inProcess ??= InProcessCli.start());
  }

  built(): ShimDir {
    return (this.shim ??= new ShimDir());
  }

  async close(): Promise<void> {
    this.shim?.cleanup();
    if (this.inProcess) await (await this.inProcess).close();
  }
}

/** Declares the hooks that start and stop a file's runners. */
function fileRunners(): Runners {
  const runners = new Runners();
  afterAll(() => runners.close());
  return runners;
}

/** One session: its own home (config, journal, sandbox state) and its own placeholder values. */
class Session {
  private home!: TestHome;
  private env!: NodeJS.ProcessEnv;
  private inProcess!: InProcessCli;
  private shell!: LineShell;
  private readonly values: { alias?: string; reservation?: string; invoice?: string } = {};
  private server?: { child: ChildProcess; port: Promise<string> };

  constructor(
    private readonly page: string,
    private readonly examples: Example[],
    private readonly runners: Runners,
    private readonly clock: string,
    private readonly options: SessionOptions = {},
  ) {}

  async start(): Promise<void> {
    this.inProcess = await this.runners.cli();
    if (this.options.spawned || (this.options.signals && this.examples.some((e) => e.untilInterrupt))) assertBuilt();
    this.home = new TestHome();
    this.env = sessionEnv(this.home, this.clock, this.options.env);
    // in-process, `carrental` is a function of the session's shell (inprocess-shim.ts)
    const spawned = !!this.options.spawned;
    this.shell = new LineShell({ env: this.envFor(spawned), cwd: this.home.dir, prelude: spawned ? undefined : this.inProcess.prelude() });
  }

  stop(): void {
    this.shell?.close();
    if (this.server) {
      try {
        process.kill(-this.server.child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    this.home?.cleanup();
  }

  /** The session's environment with PATH finding the built `carrental`, or the in-process one. */
  private envFor(spawned: boolean): NodeJS.ProcessEnv {
    return { ...this.env, PATH: spawned ? this.runners.built().path() : this.inProcess.path() };
  }

  /** A `sandbox serve` of the built CLI on this session's state, on a free port, for the lines that act on a running one. */
  private servePort(): Promise<string> {
    if (this.server) return this.server.port;
    assertBuilt();
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--json'], {
      env: this.envFor(true),
      cwd: this.home.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const port = new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /"base_url":"http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('error', reject);
      child.on('close', (code) => reject(new Error(`sandbox serve exited ${code} before it listened: ${out}`)));
    });
    this.server = { child, port };
    return port;
  }

  /** A command the runner needs for a placeholder's value: in-process, as the session's lines. */
  private async cli(argv: string[]): Promise<string> {
    const r = await this.inProcess.run({ argv, env: this.envFor(false), cwd: this.home.dir });
    if (r.code !== 0) throw new Error(`carrental ${argv.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  }

  private async alias(): Promise<string> {
    if (this.values.alias) return this.values.alias;
    // a car free for every trip the page writes on an <alias> line
    const pairs = this.examples
      .filter((e) => e.command.includes('<alias>'))
      .map((e) => /--from[ =]("[^"]+"|\S+) --(to|days)[ =]("[^"]+"|\S+)/.exec(e.command))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => ['--from', m[1].replace(/"/g, ''), `--${m[2]}`, m[3].replace(/"/g, '')]);
    let candidates: string[] | undefined;
    for (const dates of pairs.length ? pairs : [this.options.ownTrip ?? OWN_TRIP]) {
      const page = JSON.parse(await this.cli(['cars', '--city', 'la', ...dates, '--json'])) as { cars: Array<{ car_alias: string; is_available?: boolean }> };
      const free = page.cars.filter((c) => c.is_available !== false).map((c) => c.car_alias);
      candidates = candidates ? candidates.filter((a) => free.includes(a)) : free;
    }
    if (!candidates?.length) throw new Error(`no sandbox car is free for all the dates of ${this.page}`);
    return (this.values.alias = candidates[0]);
  }

  private async reservation(): Promise<string> {
    if (this.values.reservation) return this.values.reservation;
    const out = await this.cli(['reserve', await this.alias(), ...(this.options.ownTrip ?? OWN_TRIP), '-y']);
    const uuid = UUID_RE.exec(out)?.[0];
    if (!uuid) throw new Error(`reserve printed no uuid: ${out}`);
    return (this.values.reservation = uuid);
  }

  private async invoice(): Promise<string> {
    if (this.values.invoice) return this.values.invoice;
    const own = JSON.parse(await this.cli(['invoices', await this.reservation(), '--json'])) as Array<{ id: string }>;
    if (own.length) return (this.values.invoice = own[0].id);
    const trips = JSON.parse(await this.cli(['trips', '--json'])) as { active: Array<{ uuid: string }>; history: Array<{ uuid: string }> };
    for (const t of [...trips.active, ...trips.history]) {
      const list = JSON.parse(await this.cli(['invoices', t.uuid, '--json'])) as Array<{ id: string }>;
      if (list.length) return (this.values.invoice = list[0].id);
    }
    throw new Error('the sandbox has no invoice to put in <invoice-uuid>');
  }

  private async substitute(command: string): Promise<string> {
    let result = command;
    for (const [placeholder, name] of [...new Set(command.match(PLACEHOLDER_RE) ?? [])].map((p) => [p, p.slice(1, -1)])) {
      const value =
        name === 'alias'
          ? await this.alias()
          : name === 'invoice-uuid'
            ? await this.invoice()
            : name === 'serve-port'
              ? await this.servePort()
              : name === 'home'
                ? this.home.dir
                : await this.reservation();
      result = result.split(placeholder).join(value);
    }
    const unknown = /<[a-z][a-z-]*>/.exec(result);
    if (unknown) throw new Error(`unknown placeholder ${unknown[0]} (known: <alias>, <uuid>, <reservation-uuid>, <invoice-uuid>)`);
    return result;
  }

  /** A line that runs until interrupted: the built CLI, in a bash of its own, interrupted (SIGINT) once it printed. */
  private runUntilInterrupted(command: string): Promise<Ran> {
    return new Promise((resolve, reject) => {
      // its own process group, so a line that hangs is killed with everything it started
      const child = spawn('bash', ['--noprofile', '--norc', '-o', 'pipefail', '-c', `exec ${command}`], {
        env: this.envFor(true),
        cwd: this.home.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let stdout = '';
      let stderr = '';
      // well inside the test's own timeout, so a hung line is reaped before vitest gives up on it
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 20_000);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        child.kill('SIGINT');
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code: code ?? (signal === 'SIGINT' ? 130 : null), stdout, stderr });
      });
    });
  }

  /** Runs one example and checks its exit code; remembers the reservation a `reserve` printed. */
  async run(example: Example): Promise<void> {
    const command = await this.substitute(example.command);
    // a line that runs until interrupted gets a real Ctrl-C (SIGINT) in the built CLI at
    // today's clock; at the others, in-process, its signal is aborted once it printed
    const signals = example.untilInterrupt && (!!this.options.spawned || !!this.options.signals);
    const spawned = !!this.options.spawned || signals;
    let r: Ran;
    if (signals) r = await this.runUntilInterrupted(command);
    else {
      this.inProcess.interruptOnOutput = example.untilInterrupt;
      try {
        // the shell kills a line after 20 s, inside the test's own timeout (an in-process
        // command is interrupted sooner, by the worker: inprocess-shim.ts)
        r = await this.shell.run(command);
      } finally {
        this.inProcess.interruptOnOutput = false;
      }
    }
    const how = spawned ? 'the built CLI' : 'in-process';
    const detail = `${this.page}${example.line ? `:${example.line}` : ''} at sandbox clock ${this.clock} (${how})\n$ ${command}\n--- exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
    if (example.untilInterrupt) {
      expect(r.stdout, detail).not.toBe('');
      expect([0, 130], detail).toContain(r.code);
    } else {
      expect(r.code, detail).toBe(example.expectedCode);
    }
    // nothing crashed on the way, whatever the exit code
    expect(r.stderr, detail).not.toMatch(/unexpected failure|\n\s+at .+:\d+:\d+\)?\n|carrental \(in-process\)/);
    if (r.code === 0 && /^carrental\b[^|]*\sreserve\s/.test(command)) {
      const uuid = UUID_RE.exec(r.stdout)?.[0];
      if (uuid) {
        this.values.reservation = uuid;
        this.values.invoice = undefined;
      }
    }
  }
}

/** A page's examples, read from the repository. */
export const examplesOf = (page: string): Example[] => extractExamples(readFileSync(join(ROOT, page), 'utf8'));

/** Declares one session of a page, or of a command's help: a fresh sandbox and home, its lines in order. */
function describeSession(title: string, page: string, examples: Example[], runners: Runners, shift: ClockShift, options: SessionOptions = {}): void {
  const clock = sandboxClock(shift);
  const spawned = spawnedSession(page, shift);
  describe(`${title}, sandbox clock ${clock} (today + ${shift.days} days${spawned ? ', the built CLI' : ''})`, () => {
    const session = new Session(page, examples, runners, clock, { ...options, spawned, signals: shift.days === 0 });
    beforeAll(() => session.start());
    afterAll(() => session.stop());
    it.each(examples.map((e) => [e.line ? `${page}:${e.line} $ ${e.command}` : `$ ${e.command}`, e] as const))('%s', async (_title, example) => {
      await session.run(example);
    });
  });
}

/**
 * The help examples that need a terminal to type into (a prompt for what is missing, a
 * masked key): test/booking/reserve-interactive.tmux.e2e.test.ts and the prompt tests
 * drive those; here they are listed, so that a new example is run unless it is added here.
 */
export const NEEDS_A_TERMINAL = ['carrental reserve   # on a terminal: prompts for city, dates, car and options', 'carrental auth login'];

/** The commands that ask before acting, and with `-y` answer yes where no terminal can. */
const ASKS_FIRST = /^carrental (?:--sandbox )?(?:reserve|cancel|sandbox reset|pending clear)\b/;
/** Lines that run until interrupted: a server, a watch, a wait for a payment. */
const RUNS_UNTIL_INTERRUPTED = /\bsandbox serve\b|\bmcp --http\b|--watch\b|--wait\b/;

/**
 * A help example as the runner runs it. The help shows what a user types on a terminal;
 * the runner has none, so it adds what the user would do there:
 * - `-y` on a command that asks first (the user answers the question);
 * - a line that runs until interrupted is interrupted, and its fixed port is 0 (the three
 *   clocks' files run at once), a state file under /tmp is in the session's home;
 * - `--port 4780` acts on a `sandbox serve` this session starts on a free port;
 * - `CARRENTAL_API_KEY=...` is the sandbox's booking_write key, `$CARRENTAL_KEY` too;
 * - a comment `# after CMD` runs CMD first.
 */
export function runnableHelpExample(example: string, line: number): Example {
  let command = example;
  const comment = /\s+#.*$/.exec(command)?.[0] ?? '';
  let body = command.slice(0, command.length - comment.length);
  if (ASKS_FIRST.test(body) && !/\s(?:-y|--yes|--dry-run)\b/.test(body)) body += ' -y';
  const untilInterrupt = RUNS_UNTIL_INTERRUPTED.test(body);
  if (untilInterrupt) body = body.replace(/--port \d+/, '--port 0');
  else body = body.replace(/--port 4780\b/, '--port <serve-port>');
  body = body.replace(/(^|\s)\/tmp\//g, '$1<home>/').replace(/CARRENTAL_API_KEY=\.\.\./g, `CARRENTAL_API_KEY=${sandboxKeys().booking_write}`);
  const after = /#\s*after\s+(.+)$/.exec(comment)?.[1];
  command = `${after ? `${after.trim()} && ` : ''}${body}${comment}`;
  return { line, command, expectedCode: 0, untilInterrupt };
}

export interface HelpGroup {
  /** `carrental cars --help`, `carrental --help` (the overview and the program's help). */
  name: string;
  /** The examples as written in the help. */
  written: string[];
}

/** Every command's help examples by top-level command, its subcommands' after its own, and the program's. */
export function helpExampleGroups(overview: string): HelpGroup[] {
  const collect = (spec: CommandSpec): string[] => [...(spec.examples ?? []), ...(spec.subcommands ?? []).flatMap(collect)];
  const indented = (text: string) =>
    text
      .split('\n')
      .map((l) => /^\s+(?:\$ )?(carrental\b.*)$/.exec(l)?.[1])
      .filter((c): c is string => !!c);
  return [
    { name: 'carrental --help', written: [...indented(overview), ...indented(rootHelpAfter(80).split('Examples:')[1].split('\n\n')[0])] },
    ...COMMANDS.map((spec) => ({ name: `carrental ${spec.name} --help`, written: collect(spec) })).filter((g) => g.written.length > 0),
  ];
}

/** What `carrental` alone prints: the overview, with its commands to try. */
async function overviewText(): Promise<string> {
  const home = new TestHome();
  try {
    const r = await runCommand([], { env: home.env({ LANG: 'C.UTF-8' }) });
    return r.stdout + r.stderr;
  } finally {
    home.cleanup();
  }
}

/** The help examples as the runner runs them, by session: each top-level command with its subcommands, and the program's. */
export async function runnableHelpGroups(): Promise<Array<{ name: string; examples: Example[] }>> {
  return helpExampleGroups(await overviewText())
    .map((group) => ({
      name: group.name,
      examples: group.written
        .map((e, i) => [e, i + 1] as const)
        .filter(([e]) => !NEEDS_A_TERMINAL.includes(e))
        .map(([e, line]) => runnableHelpExample(e, line)),
    }))
    .filter((g) => g.examples.length > 0);
}

/**
 * Declares the runs of every example at one of CLOCK_SHIFTS, each session on a fresh
 * sandbox: every page of PAGES (the README and docs/), then every command's help examples.
 * One test file per clock calls it.
 */
export async function describeExamplesAt(shift: ClockShift): Promise<void> {
  const runners = fileRunners();
  // the embedded sandbox reads its clock from the process's environment: in-process, the
  // command's own (inprocess-shim.ts); were it the worker's, every clock would be today
  it(`runs the sessions' commands at sandbox clock ${sandboxClock(shift)}`, async () => {
    const home = new TestHome();
    try {
      const clock = sandboxClock(shift);
      const r = await (await runners.cli()).run({ argv: ['--sandbox', 'sandbox', 'clock', 'show', '--jq', '.now'], env: sessionEnv(home, clock), cwd: home.dir });
      expect(r.stdout.slice(0, 13), r.stderr).toBe(clock.slice(0, 13));
    } finally {
      home.cleanup();
    }
  });
  for (const page of PAGES) {
    const examples = examplesOf(page);
    if (examples.length) describeSession(`${page} examples`, page, examples, runners, shift);
  }
  for (const group of await runnableHelpGroups()) {
    describeSession(`${group.name} examples`, group.name, group.examples, runners, shift, {
      // a trip that `extend-link <uuid> --to "+30d 10:00"` extends
      ownTrip: ['--from', '+25d 10:00', '--days', '2'],
      // --open runs `true` instead of a browser
      env: { BROWSER: 'true', CARRENTAL_KEY: sandboxKeys().booking_write },
    });
  }
}
