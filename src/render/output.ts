// The one place commands write through: data to stdout, messages to stderr, JSON when
// asked, colour only when allowed, progress only when stderr is a terminal. A progress
// line is erased before anything else is written, so it never sticks to the data.
import { CliError } from '../errors.js';
import { foldProse, renderPairs, renderTable, truncate, type Pair, type TableLayout } from './table.js';
import { clean } from '../text/sanitize.js';
import { makeStyle, type Style } from './style.js';
import { selfReportedStreams, underlyingStream, type IO, type OutStream } from './streams.js';
import { safeJsonItems, safeJsonText } from '../text/json-text.js';
import { selectFields, type SelectOptions } from './json-select.js';
import { RawJson } from '../text/raw-json.js';
import { reindent } from '../text/json-scan.js';
import { runJq } from './jq.js';
import { forUser, userPrefix } from './for-user.js';

const MONEY_RE = /^(-?)\$(\d{1,3}(?:,\d{3})*)(?:\.(\d{2}))?$/;

/**
 * A pipe's money is a plain number, so `sort -n` and awk can use it: dollars with two
 * decimals and no `$` or thousands commas (`$1,234.56` -> `1234.56`, `-$15.00` -> `-15.00`,
 * `$25,000` -> `25000.00`). Only a cell that is an amount and nothing else changes.
 */
export function plainMoney(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const m = MONEY_RE.exec(value);
  return m ? `${m[1]}${m[2].replace(/,/g, '')}.${m[3] ?? '00'}` : value;
}

/** What an Output writes to, and the global flags that shape it (a command's Context is one). */
export interface OutputContext {
  io: IO;
  /** sandbox and profile: how a command named in a message is spelt for this user (for-user.ts). */
  globals: { json: boolean; jsonFields?: string[]; jq?: string; color: boolean; wide: boolean; accessible: boolean; sandbox?: boolean; profile?: string };
}

export class Output {
  readonly tty: boolean;
  readonly json: boolean;
  readonly color: Style;
  private progressShown = false;
  private progressText: string | undefined;
  /** The last progress written as a line of its own (plain progress), not repeated. */
  private plainText: string | undefined;
  /** The active key: never printed, whatever field it hides in. */
  private secrets: Array<string | undefined> = [];

  /** Money as plain numbers when not on a terminal: stdout carries data for scripts. */
  private readonly moneyAsNumbers: boolean;

  /** `forPeople`: what this Output writes is a conversation (reserve's quote on stderr), so money keeps its `$`. */
  constructor(
    private readonly ctx: OutputContext,
    opts: { forPeople?: boolean } = {},
  ) {
    this.moneyAsNumbers = !ctx.io.stdout.isTTY && !opts.forPeople;
    this.tty = !!ctx.io.stdout.isTTY;
    this.json = ctx.globals.json;
    this.color = makeStyle(ctx.globals.color);
  }

  /** What committed() is collecting instead of writing, while it runs. */
  private held: string[] | undefined;

  private write(text: string): void {
    if (this.held) this.held.push(text);
    else this.ctx.io.stdout.write(text);
  }

  /**
   * Prints the result of a write the API has committed (a booking, a cancellation) and
   * waits until stdout has taken it. If printing fails (a --jq error, an unknown --json
   * field, a closed pipe, a full disk), the write must not look failed or be lost: the
   * error says what was done (`done`, e.g. "reserved <uuid>"), exit 7, never "the API
   * failed".
   */
  async committed(done: string, print: () => void, hint?: string): Promise<void> {
    const stdout = this.ctx.io.stdout;
    let failed: unknown;
    const onError = (err: unknown) => {
      failed ??= err;
    };
    selfReportedStreams.add(underlyingStream(stdout));
    stdout.on('error', onError);
    try {
      this.held = [];
      try {
        print();
      } finally {
        const text = this.held.join('');
        this.held = undefined;
        if (text) await new Promise<void>((resolve, reject) => {
          try {
            stdout.write(text, (err) => (err ? reject(err) : resolve()));
          } catch (err) {
            reject(err); // a file descriptor's synchronous write (ENOSPC on a full disk)
          }
        });
      }
    } catch (err) {
      failed ??= err;
    }
    if (failed === undefined) {
      stdout.off('error', onError);
      selfReportedStreams.delete(underlyingStream(stdout));
      return;
    }
    // the stream stays ours: its later error events must not end the process before the report
    const why = failed instanceof Error ? failed.message : String(failed);
    throw new CliError('output', `${done}, but printing the result failed: ${why.replace(/^error: /, '')}`, { hint, cause: failed });
  }

  setSecrets(secrets: Array<string | undefined>): void {
    this.secrets = secrets;
  }

  /**
   * The payload as JSON on stdout, nothing else. A RawJson (the server's bytes) is printed
   * as received; `--json a,b` keeps those fields (of each item of `opts.lists`, or of an
   * array's items); `--jq` filters the result. Always through safeJsonText: C1 and bidi
   * characters escaped, the key masked.
   */
  printJson(payload: unknown, opts: SelectOptions = {}): void {
    const { jsonFields, jq } = this.ctx.globals;
    let text: string;
    // a pipe gets the server's bytes; a terminal the same tokens, indented
    if (!jsonFields) text = payload instanceof RawJson ? (this.tty && jq === undefined ? reindent(payload.text) : payload.text) : JSON.stringify(payload, null, this.tty ? 2 : 0);
    else text = JSON.stringify(selectFields(payload instanceof RawJson ? payload.value : payload, jsonFields, opts), null, this.tty && !jq ? 2 : 0);
    this.clearProgress();
    if (jq !== undefined) {
      const result = runJq(jq, text, { tty: this.tty, secrets: this.secrets });
      if (result !== '') this.write(result.endsWith('\n') ? result : `${result}\n`);
      return;
    }
    this.write(safeJsonText(text, this.secrets) + '\n');
  }

  /**
   * Items of a JSON array being streamed (cars --all): a run of comma-separated JSON
   * values as is, made safe (and after a comma when `more` items came before), in one write.
   */
  jsonItems(items: string, more: boolean): void {
    this.clearProgress();
    if (more) this.write(',');
    this.write(safeJsonItems(items, this.secrets));
  }

  /**
   * Waits until stdout has taken what was written: a pipe whose reader is slower than the
   * API would otherwise queue the whole fleet in memory (cars --all).
   */
  async drain(): Promise<void> {
    const stdout = this.ctx.io.stdout;
    if (!stdout.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        stdout.off('drain', done);
        stdout.off('close', done);
        stdout.off('error', done);
        resolve();
      };
      stdout.on('drain', done);
      stdout.on('close', done);
      stdout.on('error', done);
    });
  }

  /** Raw text of a JSON document being streamed: separators and brackets (no server data). */
  jsonSyntax(text: string): void {
    this.clearProgress();
    this.write(text);
  }

  /** A record of a pipe form: tab-separated fields, each cleaned, money as plain numbers. */
  record(fields: unknown[]): void {
    this.line(fields.map((f) => clean(this.moneyAsNumbers ? plainMoney(f ?? '') : f ?? '')).join('\t'));
  }

  /** The terminal's width on stdout; undefined in a pipe. */
  get columns(): number | undefined {
    return this.tty ? this.ctx.io.stdout.columns : undefined;
  }

  /** A line of data on stdout. */
  line(text = ''): void {
    this.clearProgress();
    this.write(text + '\n');
  }

  /** Prose on stdout (a car's description): folded to a terminal's width, one line each in a pipe. */
  prose(text: string): void {
    for (const part of this.tty ? folded(text, this.ctx.io.stdout) : [text]) this.line(part);
  }

  /** A command named in a message, spelt for this user: `carrental --sandbox trips`. */
  private forUser(text: string): string {
    return forUser(text, userPrefix(this.ctx.globals));
  }

  /** A message for the human on stderr (never mixed into data), folded to a terminal's width. */
  info(text: string): void {
    this.clearProgress();
    this.ctx.io.stderr.write(folded(this.forUser(text), this.ctx.io.stderr).join('\n') + '\n');
  }

  warn(text: string): void {
    this.clearProgress();
    const [first, ...rest] = folded(`warning: ${this.forUser(text)}`, this.ctx.io.stderr);
    this.ctx.io.stderr.write([`${this.color.yellow('warning:')}${first.slice('warning:'.length)}`, ...rest].join('\n') + '\n');
  }

  /** A title; often holds a server string (a car name), so it is cleaned; folded on a terminal. */
  heading(text: string): void {
    if (this.tty) for (const part of folded(clean(text), this.ctx.io.stdout)) this.line(this.color.bold(part));
    else this.line(`# ${clean(text)}`);
  }

  /**
   * A heading on a terminal only: in a pipe, data lines carry no section lines (a pipe form
   * says what a line is in its fields instead).
   */
  section(text: string): void {
    if (this.tty) this.heading(text);
  }

  /**
   * A table fitted to the terminal, one line per row. `layout` marks the id columns (never
   * cut), the free text (cut with …) and the optional columns (left out on a narrow
   * terminal); a bare array is the right-aligned columns.
   */
  table(headers: string[], rows: unknown[][], layout: TableLayout | number[] = {}): void {
    this.clearProgress();
    const marks = Array.isArray(layout) ? { alignRight: layout } : layout;
    if (this.moneyAsNumbers) rows = rows.map((row) => row.map(plainMoney));
    this.write(
      renderTable(headers, rows, { ...marks, tty: this.tty, columns: this.ctx.io.stdout.columns, wide: this.ctx.globals.wide, style: (h) => this.color.bold(h) }),
    );
  }

  pairs(pairs: Pair[]): void {
    this.clearProgress();
    if (this.moneyAsNumbers) pairs = pairs.map(([label, value, ...rest]) => [label, plainMoney(value), ...rest] as Pair);
    this.write(renderPairs(pairs, { tty: this.tty, style: (s) => this.color.dim(s), columns: this.ctx.io.stdout.columns }));
  }

  /** An action link on its own line on stdout: nothing else on that line, so scripts can take it. */
  link(url: string): void {
    this.line(clean(url));
  }

  /**
   * Whether progress is redrawn in place: stderr is a terminal of known width and the
   * accessible mode is off. Otherwise each new progress text is a line of its own (a screen
   * reader reads it, nothing is left half-erased), and no spinner is drawn.
   */
  get redraws(): boolean {
    const err = this.ctx.io.stderr;
    return !!err.isTTY && !!err.columns && !this.ctx.globals.accessible;
  }

  /**
   * Progress on stderr, only on a terminal; often names a server string, so cleaned.
   * Redrawn in place, cut to the terminal's width (a line that wrapped could not be erased
   * by the next one and would stay on the screen), or written as plain lines (`redraws`).
   */
  progress(text: string): void {
    const err = this.ctx.io.stderr;
    if (!err.isTTY) return;
    const line = clean(text);
    this.progressText = line;
    if (!this.redraws) {
      if (line !== this.plainText) err.write(`${line}\n`);
      this.plainText = line;
      return;
    }
    // one column short of the width: a line that fills the last column wraps on some terminals
    err.write(`\r\u001b[2K${truncate(line, err.columns! - 1)}`);
    this.progressShown = true;
  }

  /** The progress line on screen, if any (the spinner leaves another one alone). */
  get progressLine(): string | undefined {
    return this.progressShown ? this.progressText : undefined;
  }

  clearProgress(): void {
    if (!this.progressShown) return;
    this.ctx.io.stderr.write('\r\u001b[2K');
    this.progressShown = false;
  }
}

/**
 * A terminal of known width gets prose folded at spaces, never wrapped by the terminal in
 * the middle of a word (a line that wraps also leaves rows behind when redrawn); a pipe
 * gets each message as one line, for grep.
 */
function folded(text: string, stream: OutStream): string[] {
  const columns = stream.isTTY ? stream.columns : undefined;
  return columns && columns > 0 ? foldProse(text, columns) : [text];
}
