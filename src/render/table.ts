// Tables: borderless and fitted to the terminal with headers, one line per row (go-gh's
// tableprinter: ids never cut, free text cut with …), tab-separated lines without headers
// in a pipe (the gh convention), so `cut -f` and `awk -F'\t'` work on the output: one
// record a line, one value a field.
import { loadStringWidth, loadTable } from './cli-table3.cjs';
import { clean } from '../text/sanitize.js';

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
   * id): never cut (go-gh's tableprinter does the same). A column of full uuids shows each
   * as its shortest unique prefix of at least 8 characters, which every command accepts.
   */
  ids?: number[];
  /**
   * Every uuid a short one must be told apart from, when the table shows only some of them
   * (`trips` draws a table per section and zone): the table's own uuids otherwise.
   */
  uuidsAmong?: string[];
  /** Free text (names, descriptions): the columns cut with "…" to fit the terminal. */
  text?: number[];
  /**
   * Columns a narrow terminal may leave out, the first listed first (amounts a detail
   * command shows again): a cut amount or date would be a wrong one, so such a column
   * goes whole or not at all. `--wide` keeps every column.
   */
  optional?: number[];
  /**
   * Colour for a cell's text on a terminal (doctor's ok/FAILED), applied after the layout
   * is fitted, so styles never count toward a column's width.
   */
  paint?: (column: number, text: string) => string;
}

export interface TableOptions extends TableLayout {
  tty: boolean;
  /** The terminal's width: every row fits on one line of it. */
  columns?: number;
  /** `--wide`: uuids whole and every column, even when a row is then wider than the terminal. */
  wide?: boolean;
  style?: (header: string) => string;
}

/** Columns are two spaces apart (gh's look), no borders, no rules. */
const GAP = 2;
/** Free text keeps this much before an optional column is left out. */
export const MIN_TEXT_COLUMN = 10;
/** The shortest uuid prefix shown (git's and gh's short ids are 7 or 8). */
export const MIN_ID_PREFIX = 8;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_CHARS = Object.fromEntries(
  ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right', 'left', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid'].map((k) => [k, '']),
);

/**
 * On a terminal: borderless, one line per row whatever the data, fitted to the width (free
 * text cut with "…", then optional columns left out, then any value but an id cut); in a
 * pipe: tab-separated lines without headers, every value whole.
 */
export function renderTable(headers: string[], rows: unknown[][], opts: TableOptions): string {
  const cells = rows.map((row) => headers.map((_, i) => clean(row[i] ?? MISSING)));
  if (!opts.tty) {
    return cells.map((row) => row.join('\t')).join('\n') + (cells.length ? '\n' : '');
  }
  // a row is one line: a value that held a line break reads as one with a space
  const flat = cells.map((row) => row.map((c) => c.replace(/\s*\n\s*/g, ' ')));
  const shown = opts.wide ? flat : shortenUuids(flat, opts.ids ?? [], opts.uuidsAmong);
  const { keep, widths } = fitColumns(headers, shown, opts.wide ? undefined : opts.columns, opts);
  const Table = loadTable();
  const style = opts.style ?? ((s: string) => s);
  const table = new Table({
    head: keep.map((c, k) => style(truncate(headers[c], widths[k]))),
    chars: { ...NO_CHARS, middle: ' '.repeat(GAP) },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    colAligns: keep.map((c) => (opts.alignRight?.includes(c) ? 'right' : 'left')),
    colWidths: widths,
    wordWrap: false,
  });
  for (const row of shown) {
    table.push(
      keep.map((c, k) => {
        const text = truncate(row[c], widths[k]);
        return text && opts.paint ? opts.paint(c, text) : text;
      }),
    );
  }
  return (
    table
      .toString()
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n') + '\n'
  );
}

/**
 * Full uuids in an id column as their shortest unique prefix (at least MIN_ID_PREFIX
 * characters) among the column's values and `among`: what gh and git do with long ids. A
 * column with any other value is left whole.
 */
export function shortenUuids(cells: string[][], ids: number[], among: string[] = []): string[][] {
  const columns = ids.filter((c) => cells.length > 0 && cells.every((row) => UUID_RE.test(row[c]) || row[c] === MISSING));
  if (columns.length === 0) return cells;
  const short = new Map<number, Map<string, string>>();
  for (const c of columns) {
    const values = [...new Set(cells.map((row) => row[c].toLowerCase()).filter((v) => v !== MISSING))];
    const all = [...new Set([...values, ...among.map((v) => v.toLowerCase())])];
    short.set(c, new Map(values.map((v) => [v, shortestPrefix(v, all)])));
  }
  return cells.map((row) => row.map((v, c) => short.get(c)?.get(v.toLowerCase()) ?? v));
}

function shortestPrefix(value: string, all: string[]): string {
  let n = MIN_ID_PREFIX;
  const clash = (len: number) => all.some((o) => o !== value && o.startsWith(value.slice(0, len)));
  while (n < value.length && (clash(n) || value[n - 1] === '-')) n += 1;
  return value.slice(0, n);
}

/** Cuts text to `width` columns, the last one an ellipsis. */
export function truncate(text: string, width: number): string {
  if (widthOf(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  for (const ch of text) {
    if (widthOf(out + ch) > width - 1) break;
    out += ch;
  }
  return `${out}…`;
}

/**
 * Which columns a terminal of `columns` shows (by index) and their widths, so that a row is
 * one line: free text gives up width first (down to MIN_TEXT_COLUMN), then the optional
 * columns go, in their order, then free text shrinks further, then any column but an id is
 * cut. Each stage takes from the widest column first, one character at a time. Without a
 * width (or with --wide) every column keeps its natural width.
 */
export function fitColumns(headers: string[], cells: string[][], columns: number | undefined, layout: TableLayout = {}): { keep: number[]; widths: number[] } {
  const natural = headers.map((h, i) => Math.max(widthOf(h), ...cells.map((row) => widthOf(row[i] ?? ''))));
  let keep = headers.map((_, i) => i);
  if (!columns || columns <= 0) return { keep, widths: natural };
  const isText = (i: number) => !!layout.text?.includes(i);
  const isId = (i: number) => !!layout.ids?.includes(i);
  const shrink = (widths: number[], excess: number, may: (i: number) => boolean, floor: (i: number) => number) => {
    while (excess > 0) {
      let widest = -1;
      keep.forEach((c, k) => {
        if (may(c) && widths[k] > floor(c) && (widest < 0 || widths[k] > widths[widest])) widest = k;
      });
      if (widest < 0) break;
      widths[widest] -= 1;
      excess -= 1;
    }
    return excess;
  };
  const textFloor = (c: number) => Math.min(natural[c], MIN_TEXT_COLUMN);
  const excessOf = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1) - columns;
  const attempt = () => {
    const widths = keep.map((c) => natural[c]);
    return { widths, excess: shrink(widths, excessOf(widths), isText, textFloor) };
  };
  let fit = attempt();
  for (const drop of layout.optional ?? []) {
    if (fit.excess <= 0) break;
    keep = keep.filter((c) => c !== drop);
    fit = attempt();
  }
  const { widths } = fit;
  shrink(widths, shrink(widths, fit.excess, isText, () => 1), (c) => !isId(c), () => 1);
  return { keep, widths };
}

/** Columns a string takes on a terminal: ASCII as is, anything else as cli-table3 measures it. */
const widthOf = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text.length : loadStringWidth()(text));
const lines = (text: string) => text.split('\n');

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

/** Pieces joined by spaces, greedily, into lines no wider than `width` where they fit; the first line starts with `lead` (an indent). */
function fill(pieces: readonly string[], width: number, lead = ''): string[] {
  const out: string[] = [];
  let current = lead;
  for (const piece of pieces) {
    if (current.trim() === '') current += piece;
    else if (widthOf(current) + 1 + widthOf(piece) <= width) current += ` ${piece}`;
    else {
      out.push(current);
      current = piece;
    }
  }
  out.push(current);
  return out;
}

/** Greedy word wrap to `width` (a label/value block's long value); a word longer than the width is split. */
export function wrap(text: string, width: number): string[] {
  return lines(text).flatMap((line) =>
    widthOf(line) <= width ? [line] : fill(line.split(' ').flatMap((word) => (widthOf(word) > width ? splitWord(word, width) : [word])), width),
  );
}

/**
 * Prose folded at spaces to `width` (a note, a warning, a title on a terminal). Only a real
 * command is kept unbroken, so that it copies whole into a shell: a `backticked` span, or a
 * whole command line after a label (`next: carrental …`, `the same without prompts:
 * carrental …`) or alone on its line. It goes on a line of its own when it is too long (the
 * terminal wraps it then, which a copy does not see). "a carrental sandbox runs on port …"
 * is prose: the word carrental inside a sentence folds like any other.
 */
export function foldProse(text: string, width: number): string[] {
  return lines(text).flatMap((line) => {
    if (widthOf(line) <= width) return [line];
    const indent = /^\s*/.exec(line)![0];
    const pieces = [...line.slice(indent.length).matchAll(/`[^`]*`[^\s`]*|(?:^|(?<=: ))carrental (?:--?[a-z]|[a-z-]+(?: |$)).*$|\S+/g)].map((m) => m[0]);
    return fill(pieces, width, indent);
  });
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
