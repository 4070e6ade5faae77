// Tables: fitted to the terminal with headers (never cutting an id), tab-separated lines
// without headers in a pipe (the gh convention), so `cut -f` and `awk -F'\t'` work on the
// output: one record a line, one value a field.
import { loadStringWidth, loadTable } from './cli-table3.cjs';
import { clean } from './sanitize.js';

/** A table cell the server left out (or sent as null): a dash, on a terminal and in a pipe. */
export const MISSING = '-';
/** A labelled value the server left out. */
export const NOT_STATED = 'not stated';

/** A value the server may leave out: formatted when present, "not stated" when absent or null. */
export function stated<T>(value: T | null | undefined, show: (v: T) => string = String): string {
  return value === null || value === undefined ? NOT_STATED : show(value);
}

/** The same for a table cell: formatted when present, else undefined, which a table draws as MISSING. */
export function cell<T>(value: T | null | undefined, show: (v: T) => string = String): string | undefined {
  return value === null || value === undefined ? undefined : show(value);
}

/** What a table's columns are, by index: how they align and which give up width first. */
export interface TableLayout {
  /** Right-aligned columns (money, counts). */
  alignRight?: number[];
  /**
   * Ids the user types next (a car alias, a reservation uuid, an invoice id, an operation
   * id): never wrapped, never cut, on any terminal (go-gh's tableprinter does the same).
   */
  ids?: number[];
  /** Free text (names, descriptions): the first columns to give up width and wrap. */
  text?: number[];
}

export interface TableOptions extends TableLayout {
  tty: boolean;
  /** The terminal's width: a wider table wraps its free text, then its other columns, to fit. */
  columns?: number;
  style?: (header: string) => string;
}

/**
 * How a table is drawn, from the most to the least room it needs: boxed (cli-table3, each
 * column "│ value "), plain (gh's look: columns two spaces apart, for a narrow terminal),
 * then one record per row when even plain does not fit without cutting an id.
 */
export type Frame = 'boxed' | 'plain';
const chromeOf = (frame: Frame, n: number) => (frame === 'boxed' ? 3 * n + 1 : 2 * (n - 1));
/** Free text never gets narrower than this (a word longer than that wraps inside itself). */
export const MIN_TEXT_COLUMN = 10;

export function renderTable(headers: string[], rows: unknown[][], opts: TableOptions): string {
  const cells = rows.map((row) => headers.map((_, i) => clean(row[i] ?? MISSING)));
  if (!opts.tty) {
    return cells.map((row) => row.join('\t')).join('\n') + (cells.length ? '\n' : '');
  }
  const boxed = fitWidths(headers, cells, opts.columns, opts, 'boxed');
  if (boxed) return renderBoxed(headers, cells, boxed, opts);
  const plain = fitWidths(headers, cells, opts.columns, opts, 'plain');
  if (plain) return renderPlain(headers, cells, plain, opts);
  return renderRecords(headers, cells, opts);
}

function renderBoxed(headers: string[], cells: string[][], widths: number[], opts: TableOptions): string {
  const tall = cells.some((row) => row.some((c, i) => wrap(c, widths[i]).length > 1));
  const Table = loadTable();
  const table = new Table({
    head: headers.map((h, i) => wrap(h, widths[i]).join('\n')).map((h) => (opts.style ? opts.style(h) : h)),
    // compact: no rule between rows, so a 50-car list stays 50 lines, not 100; rows of
    // several lines keep their rules, or they would run into each other
    style: { head: [], border: [], compact: !tall },
    colAligns: headers.map((_, i) => (opts.alignRight?.includes(i) ? 'right' : 'left')),
    colWidths: widths.map((w) => w + 2),
    // wrapped here, not by cli-table3, which cuts a word longer than its column with "…"
    wordWrap: false,
  });
  for (const row of cells) table.push(row.map((c, i) => wrap(c, widths[i]).join('\n')));
  return table.toString() + '\n';
}

const lines = (text: string) => text.split('\n');
/** Columns a string takes on a terminal: ASCII as is, anything else as cli-table3 measures it. */
const widthOf = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text.length : loadStringWidth()(text));
const padEnd = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - widthOf(text)));
const padStart = (text: string, width: number) => ' '.repeat(Math.max(0, width - widthOf(text))) + text;
const longestLine = (text: string) => Math.max(...lines(text).map(widthOf));
const longestWord = (text: string) => Math.max(0, ...text.split(/[\s]+/).map(widthOf));

/** Splits a word wider than `width` into pieces that fit, by characters (never inside a surrogate pair). */
function splitWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (const ch of word) {
    if (piece && widthOf(piece + ch) > width) {
      pieces.push(piece);
      piece = '';
    }
    piece += ch;
  }
  return [...pieces, piece];
}

/**
 * Content widths (padding excluded) that fit `columns`, or null when even the narrowest
 * layout that cuts no id and no date is wider (the caller then draws one record per row).
 * Free text gives up width first, down to MIN_TEXT_COLUMN; then the other columns, down to
 * their longest word, so a date wraps between day and time but is never cut; ids never
 * give up any. The widest column gives first, one character at a time.
 */
export function fitWidths(headers: string[], cells: string[][], columns: number | undefined, layout: TableLayout = {}, frame: Frame = 'boxed'): number[] | null {
  const natural = headers.map((h, i) => Math.max(longestLine(h), ...cells.map((row) => longestLine(row[i] ?? ''))));
  if (!columns || columns <= 0) return natural;
  const wordFloor = headers.map((h, i) => Math.max(longestWord(h), ...cells.map((row) => longestWord(row[i] ?? ''))));
  const floor = natural.map((n, i) =>
    layout.ids?.includes(i) ? n : layout.text?.includes(i) ? Math.min(n, Math.max(MIN_TEXT_COLUMN, longestWord(headers[i]))) : wordFloor[i],
  );
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) + chromeOf(frame, headers.length) - columns;
  for (const stage of [(i: number) => !!layout.text?.includes(i), (i: number) => !layout.ids?.includes(i)]) {
    while (excess > 0) {
      let widest = -1;
      widths.forEach((w, i) => {
        if (stage(i) && w > floor[i] && (widest < 0 || w > widths[widest])) widest = i;
      });
      if (widest < 0) break;
      widths[widest] -= 1;
      excess -= 1;
    }
  }
  return excess > 0 ? null : widths;
}

/** Greedy word wrap to `width`; a word longer than the width is split (only free text has one). */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const line of lines(text)) {
    if (widthOf(line) <= width) {
      out.push(line);
      continue;
    }
    let current = '';
    for (let word of line.split(' ')) {
      if (widthOf(word) > width) {
        if (current) out.push(current);
        const pieces = splitWord(word, width);
        out.push(...pieces.slice(0, -1));
        current = '';
        word = pieces.at(-1)!;
      }
      if (!current) current = word;
      else if (widthOf(current) + 1 + widthOf(word) <= width) current += ` ${word}`;
      else {
        out.push(current);
        current = word;
      }
    }
    out.push(current);
  }
  return out;
}

/** Columns two spaces apart, no borders: what fits a narrow terminal when boxes do not. */
function renderPlain(headers: string[], cells: string[][], widths: number[], opts: TableOptions): string {
  const style = opts.style ?? ((s: string) => s);
  const draw = (row: string[], styled: boolean) => {
    const wrapped = row.map((c, i) => wrap(c, widths[i]));
    const height = Math.max(...wrapped.map((w) => w.length));
    return Array.from({ length: height }, (_, l) =>
      wrapped
        .map((w, i) => {
          const text = w[l] ?? '';
          const padded = opts.alignRight?.includes(i) ? padStart(text, widths[i]) : padEnd(text, widths[i]);
          return styled && text ? padded.replace(text, style(text)) : padded;
        })
        .join('  ')
        .trimEnd(),
    );
  };
  return [...draw(headers, true), ...cells.flatMap((row) => draw(row, false))].join('\n') + '\n';
}

/**
 * A table too wide for the terminal even when narrowed, drawn as one block per row, each
 * value beside its header (psql's expanded display): nothing is cut and nothing overflows.
 */
function renderRecords(headers: string[], cells: string[][], opts: TableOptions): string {
  const labelWidth = Math.max(...headers.map(widthOf));
  const valueWidth = Math.max(MIN_TEXT_COLUMN, (opts.columns ?? 80) - labelWidth - 2);
  const style = opts.style ?? ((s: string) => s);
  const blocks = cells.map((row, r) => {
    const rule = `── ${r + 1} of ${cells.length} `;
    const body = row.flatMap((value, i) => {
      const wrapped = opts.ids?.includes(i) ? lines(value) : wrap(value, valueWidth);
      return wrapped.map((l, j) => `${j === 0 ? style(padEnd(headers[i], labelWidth)) : ' '.repeat(labelWidth)}  ${l}`.trimEnd());
    });
    return [rule.padEnd(Math.min(opts.columns ?? 40, 40), '─'), ...body].join('\n');
  });
  return blocks.join('\n') + '\n';
}

/**
 * A label/value row. `shown`, when given, is what a terminal shows instead of the value:
 * the value with its explanation ("HOLD (card authorisation, not a charge)"); `null` keeps
 * the row out of a terminal (a detail the terminal line already says, such as a car alias).
 * A pipe always gets the bare value, so one line holds one value.
 */
export type Pair = [label: string, value: unknown, shown?: unknown];

/**
 * A label/value block: aligned on a terminal, `label<TAB>value` in a pipe. A row whose value
 * is undefined is left out (an optional detail); a value the reader expects and the server
 * left out is passed as `stated(value)`, which reads "not stated".
 */
export function renderPairs(pairs: Pair[], opts: { tty: boolean; style?: (s: string) => string; columns?: number }): string {
  if (!opts.tty) {
    const rows = pairs.filter(([, v]) => v !== undefined);
    return rows.map(([k, v]) => `${k}\t${clean(v)}`).join('\n') + (rows.length ? '\n' : '');
  }
  const visible = pairs.filter(([, v, shown]) => v !== undefined && shown !== null).map(([k, v, shown]): [string, unknown] => [k, shown === undefined ? v : shown]);
  const width = Math.max(0, ...visible.map(([k]) => k.length));
  // a long value wraps under itself, within the terminal
  const room = opts.columns && opts.columns > 0 ? Math.max(MIN_TEXT_COLUMN, opts.columns - width - 2) : Infinity;
  const style = opts.style ?? ((s: string) => s);
  return (
    visible
      .map(([k, v]) => {
        const value = clean(v);
        const lines = widthOf(value) > room ? wrap(value, room) : [value];
        return lines.map((l, i) => `${i === 0 ? style(k.padEnd(width)) : ' '.repeat(width)}  ${l}`).join('\n');
      })
      .join('\n') + (visible.length ? '\n' : '')
  );
}
