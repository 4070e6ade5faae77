// The examples of README.md and of every page of docs/ are executed (by
// readme-examples.e2e.test.ts, and the longest pages by a file each, so that they run on
// both workers: see PAGES_OF_THEIR_OWN). Every fenced block with
// the info string `console` is read; each `$ carrental ...` line in it (a trailing `\`
// continues it on the next line) is run by bash, with the built CLI first on PATH, against
// the embedded sandbox (a fresh temp home, CARRENTAL_SANDBOX=1, the sandbox clock pinned),
// in page order, so state carries over from line to line as in a user's session. Each page
// is its own session: a page's examples never depend on another page's. Output lines in the
// block are illustration and are not compared.
//
// Conventions for authors of the README and of docs/:
// - a line must exit 0, unless it ends with a comment `# exit N`;
// - a line whose comment says `until Ctrl-C` (e.g. `sandbox serve`) is started, must print
//   something on stdout, and is then interrupted and must exit 0 or 130;
// - placeholders are filled in with real sandbox values: `<alias>` a car free for every
//   `--from/--to` pair written on `<alias>` lines of the page; `<uuid>` and
//   `<reservation-uuid>` the reservation the last `reserve` line of the page printed (one is
//   created first if none did yet); `<invoice-uuid>` an invoice of that reservation (or of
//   the demo customer's trips);
// - pipelines run with `set -o pipefail`, so the exit code is carrental's when it fails
//   (jq is installed by .ci/run for the `| jq ...` parts);
// - blocks run with HOME in a temp directory: a `console` line must not need anything
//   outside it. Install snippets that write to the user's dotfiles belong in `sh` blocks.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ShimDir, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/cli.js';

export interface Example {
  /** 1-based line of the README where the command starts. */
  line: number;
  command: string;
  expectedCode: number;
  untilInterrupt: boolean;
}

/** Extracts the `$ carrental` lines of the `console` blocks of a markdown document. */
export function extractExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i];
    if (fence === undefined) {
      const open = /^\s*(`{3,}|~{3,})\s*console\s*$/.exec(text);
      if (open) fence = open[1];
      continue;
    }
    if (text.trim().startsWith(fence) && text.trim().replace(/[`~]/g, '') === '') {
      fence = undefined;
      continue;
    }
    const start = /^\s*\$ (carrental\b.*)$/.exec(text);
    if (!start) continue;
    let command = start[1];
    const first = i;
    while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)}${lines[++i].trim()}`;
    const exit = /#\s*exit\s+(\d+)\s*$/.exec(command);
    examples.push({
      line: first + 1,
      command: command.trim(),
      expectedCode: exit ? Number(exit[1]) : 0,
      untilInterrupt: /#.*until ctrl-c/i.test(command),
    });
  }
  if (fence !== undefined) throw new Error('a console block is not closed');
  return examples;
}

/**
 * The sandbox clocks the pages run at: a fixed day, and a year later, so an example that
 * hard-codes a date (which rots as the calendar moves) fails here first.
 */
const CLOCKS = ['2026-11-20T18:00:00Z', '2027-11-20T18:00:00Z'];
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const PLACEHOLDER_RE = /<(alias|uuid|reservation-uuid|invoice-uuid)>/g;
/** Dates for a reservation the test creates itself, away from the pages' own. */
const OWN_TRIP = ['--from', '+40d 10:00', '--days', '2'];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One page's run: its own home (config, journal, sandbox state) and its own placeholder values. */
class Session {
  private home!: TestHome;
  private env!: NodeJS.ProcessEnv;
  private readonly values: { alias?: string; reservation?: string; invoice?: string } = {};

  constructor(
    private readonly page: string,
    private readonly examples: Example[],
    private readonly shim: () => ShimDir,
    private readonly clock: string,
  ) {}

  start(): void {
    this.home = new TestHome();
    // the pages book more cars than the sandbox's default limit of active reservations
    this.env = this.home.env({
      PATH: this.shim().path(),
      CARRENTAL_SANDBOX: '1',
      CARRENTAL_SANDBOX_NOW: this.clock,
      CARRENTAL_SANDBOX_CONFIG: JSON.stringify({ maxActiveReservations: 50 }),
      LANG: 'C.UTF-8',
    });
  }

  stop(): void {
    this.home?.cleanup();
  }

  private async cli(argv: string[]): Promise<string> {
    const r = await runBin(argv, { env: this.env });
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
    for (const dates of pairs.length ? pairs : [OWN_TRIP]) {
      const page = JSON.parse(await this.cli(['cars', '--city', 'la', ...dates, '--json'])) as { cars: Array<{ car_alias: string; is_available?: boolean }> };
      const free = page.cars.filter((c) => c.is_available !== false).map((c) => c.car_alias);
      candidates = candidates ? candidates.filter((a) => free.includes(a)) : free;
    }
    if (!candidates?.length) throw new Error(`no sandbox car is free for all the dates of ${this.page}`);
    return (this.values.alias = candidates[0]);
  }

  private async reservation(): Promise<string> {
    if (this.values.reservation) return this.values.reservation;
    const out = await this.cli(['reserve', await this.alias(), ...OWN_TRIP, '-y']);
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
      const value = name === 'alias' ? await this.alias() : name === 'invoice-uuid' ? await this.invoice() : await this.reservation();
      result = result.split(placeholder).join(value);
    }
    const unknown = /<[a-z][a-z-]*>/.exec(result);
    if (unknown) throw new Error(`unknown placeholder ${unknown[0]} (known: <alias>, <uuid>, <reservation-uuid>, <invoice-uuid>)`);
    return result;
  }

  private runLine(command: string, untilInterrupt: boolean): Promise<Ran> {
    return new Promise((resolve, reject) => {
      // its own process group, so a line that hangs is killed with everything it started
      const child = spawn('bash', ['--noprofile', '--norc', '-o', 'pipefail', '-c', untilInterrupt ? `exec ${command}` : command], {
        env: this.env,
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
        if (untilInterrupt) child.kill('SIGINT');
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
    const r = await this.runLine(command, example.untilInterrupt);
    const detail = `${this.page}:${example.line}\n$ ${command}\n--- exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
    if (example.untilInterrupt) {
      expect(r.stdout, detail).not.toBe('');
      expect([0, 130], detail).toContain(r.code);
    } else {
      expect(r.code, detail).toBe(example.expectedCode);
    }
    // nothing crashed on the way, whatever the exit code
    expect(r.stderr, detail).not.toMatch(/unexpected failure|\n\s+at .+:\d+:\d+\)?\n/);
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

/**
 * The pages with the most examples, each run by a test file of its own
 * (`<name>-examples.e2e.test.ts` here) so that they run beside the others instead of one
 * file being the suite's long pole; readme-examples.e2e.test.ts runs every other page, so a
 * new page is run without being listed.
 */
export const PAGES_OF_THEIR_OWN = ['docs/commands.md', 'docs/scripting.md'];

/** Declares the runs of these pages' examples: each page at each sandbox clock is its own session. */
export function describeExamples(pages: string[]): void {
  let shim: ShimDir | undefined;
  const sharedShim = () => (shim ??= new ShimDir());
  afterAll(() => shim?.cleanup());
  for (const [page, clock] of pages.flatMap((p) => CLOCKS.map((c) => [p, c] as const))) {
    const examples = examplesOf(page);
    if (!examples.length) continue;
    describe(`${page} examples, sandbox clock ${clock}`, () => {
      const session = new Session(page, examples, sharedShim, clock);
      beforeAll(() => session.start());
      afterAll(() => session.stop());
      it.each(examples.map((e) => [`${page}:${e.line} $ ${e.command}`, e] as const))('%s', async (_title, example) => {
        await session.run(example);
      });
    });
  }
}
