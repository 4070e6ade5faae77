// The one place commands write through: data to stdout, messages to stderr, JSON when
// asked, colour only when allowed, progress only when stderr is a terminal. A progress
// line is erased before anything else is written, so it never sticks to the data.
import type { Context } from '../cli/context.js';
import { renderPairs, renderTable, type Pair, type TableLayout } from './table.js';
import { clean } from './sanitize.js';
import { makeStyle, type Style } from './style.js';

export class Output {
  readonly tty: boolean;
  readonly json: boolean;
  readonly color: Style;
  private progressShown = false;
  private progressText: string | undefined;

  constructor(private readonly ctx: Pick<Context, 'io' | 'globals'>) {
    this.tty = !!ctx.io.stdout.isTTY;
    this.json = ctx.globals.json;
    this.color = makeStyle(ctx.globals.color);
  }

  /** The payload as JSON on stdout, nothing else. */
  printJson(payload: unknown): void {
    this.clearProgress();
    this.ctx.io.stdout.write(JSON.stringify(payload, null, this.tty ? 2 : 0) + '\n');
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
   * A table fitted to the terminal. `layout` marks the id columns (never cut) and the free
   * text (narrowed first); a bare array is the right-aligned columns.
   */
  table(headers: string[], rows: unknown[][], layout: TableLayout | number[] = {}): void {
    this.clearProgress();
    const marks = Array.isArray(layout) ? { alignRight: layout } : layout;
    this.ctx.io.stdout.write(
      renderTable(headers, rows, { ...marks, tty: this.tty, columns: this.ctx.io.stdout.columns, style: (h) => this.color.bold(h) }),
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

  /** Progress on stderr, only on a terminal, overwritten in place; often names a server string, so cleaned. */
  progress(text: string): void {
    if (!this.ctx.io.stderr.isTTY) return;
    this.progressText = clean(text);
    this.ctx.io.stderr.write(`\r\u001b[2K${this.progressText}`);
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
