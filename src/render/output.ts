// The one place commands write through: data to stdout, messages to stderr, JSON when
// asked, colour only when allowed, progress only when stderr is a terminal. A progress
// line is erased before anything else is written, so it never sticks to the data.
import type { Context } from '../cli/context.js';
import { renderPairs, renderTable, truncate, type Pair, type TableLayout } from './table.js';
import { clean } from './sanitize.js';
import { makeStyle, type Style } from './style.js';
import { safeJsonItems, safeJsonText } from './json-text.js';
import { selectFields, type SelectOptions } from './json-select.js';
import { RawJson } from './raw-json.js';
import { reindent } from './json-scan.js';
import { runJq } from './jq.js';

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

  constructor(private readonly ctx: Pick<Context, 'io' | 'globals'>) {
    this.tty = !!ctx.io.stdout.isTTY;
    this.json = ctx.globals.json;
    this.color = makeStyle(ctx.globals.color);
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
      if (result !== '') this.ctx.io.stdout.write(result.endsWith('\n') ? result : `${result}\n`);
      return;
    }
    this.ctx.io.stdout.write(safeJsonText(text, this.secrets) + '\n');
  }

  /**
   * Items of a JSON array being streamed (cars --all): a run of comma-separated JSON
   * values as is, made safe (and after a comma when `more` items came before), in one write.
   */
  jsonItems(items: string, more: boolean): void {
    this.clearProgress();
    if (more) this.ctx.io.stdout.write(',');
    this.ctx.io.stdout.write(safeJsonItems(items, this.secrets));
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
    this.ctx.io.stdout.write(text);
  }

  /** A line of data on stdout. */
  line(text = ''): void {
    this.clearProgress();
    this.ctx.io.stdout.write(text + '\n');
  }

  /** A message for the human on stderr (never mixed into data). */
  info(text: string): void {
    this.clearProgress();
    this.ctx.io.stderr.write(text + '\n');
  }

  warn(text: string): void {
    this.clearProgress();
    this.ctx.io.stderr.write(`${this.color.yellow('warning:')} ${text}\n`);
  }

  /** A one-line title; often holds a server string (a car name), so it is cleaned. */
  heading(text: string): void {
    if (this.tty) this.line(this.color.bold(clean(text)));
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
    this.ctx.io.stdout.write(
      renderTable(headers, rows, { ...marks, tty: this.tty, columns: this.ctx.io.stdout.columns, wide: this.ctx.globals.wide, style: (h) => this.color.bold(h) }),
    );
  }

  pairs(pairs: Pair[]): void {
    this.clearProgress();
    this.ctx.io.stdout.write(renderPairs(pairs, { tty: this.tty, style: (s) => this.color.dim(s), columns: this.ctx.io.stdout.columns }));
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
