// Tables: boxed with headers on a terminal, tab-separated lines without headers in a
// pipe (the gh convention), so `cut -f` and `awk -F'\t'` work on the output.
import { loadTable } from './cli-table3.cjs';
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

export interface TableOptions {
  tty: boolean;
  /** Right-aligned columns (money, counts), by index. */
  alignRight?: number[];
  /** The terminal's width: wider tables wrap their widest columns to fit. */
  columns?: number;
  style?: (header: string) => string;
}

/** A cell drawn on several lines on a terminal (one tab-separated field in a pipe). */
export class MultiLine {
  constructor(readonly lines: unknown[]) {}
}

export function renderTable(headers: string[], rows: unknown[][], opts: TableOptions): string {
  const tall = rows.some((row) => row.some((c) => c instanceof MultiLine));
  const cells = rows.map((row) =>
    row.map((c) => (c instanceof MultiLine ? c.lines.map((l) => clean(l ?? MISSING)).join(opts.tty ? '\n' : ' ') : clean(c ?? MISSING))),
  );
  if (!opts.tty) {
    return cells.map((row) => row.join('\t')).join('\n') + (cells.length ? '\n' : '');
  }
  const Table = loadTable();
  const table = new Table({
    head: headers.map((h) => (opts.style ? opts.style(h) : h)),
    // compact: no rule between rows, so a 50-car list stays 50 lines, not 100; rows of
    // several lines keep their rules, or they would run into each other
    style: { head: [], border: [], compact: !tall },
    colAligns: headers.map((_, i) => (opts.alignRight?.includes(i) ? 'right' : 'left')),
    colWidths: fitWidths(headers, cells, opts.columns),
    wordWrap: true,
  });
  for (const row of cells) table.push(row);
  return table.toString() + '\n';
}

const MIN_WRAPPED_COLUMN = 12;

/**
 * Column widths (padding included) that fit `columns`: the widest columns give up width,
 * down to a minimum, and wrap. Undefined entries let cli-table3 size a column itself.
 */
export function fitWidths(headers: string[], cells: string[][], columns: number | undefined): Array<number | null> {
  const natural = headers.map((h, i) => 2 + Math.max(h.length, ...cells.map((row) => Math.max(...(row[i] ?? '').split('\n').map((l) => l.length)))));
  if (!columns || columns <= 0) return natural.map(() => null);
  const borders = headers.length + 1;
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) + borders - columns;
  while (excess > 0) {
    const widest = widths.indexOf(Math.max(...widths));
    const floor = MIN_WRAPPED_COLUMN + 2;
    if (widths[widest] <= floor) break; // cannot fit: let the terminal wrap
    const second = Math.max(floor, ...widths.filter((_, i) => i !== widest));
    const cut = Math.min(excess, widths[widest] - Math.max(floor, second - 1));
    widths[widest] -= Math.max(1, cut);
    excess -= Math.max(1, cut);
  }
  return widths.map((w, i) => (w === natural[i] ? null : w));
}

/**
 * A label/value block: aligned on a terminal, `label<TAB>value` in a pipe. A row whose value
 * is undefined is left out (an optional detail); a value the reader expects and the server
 * left out is passed as `stated(value)`, which reads "not stated".
 */
export function renderPairs(pairs: Array<[string, unknown]>, opts: { tty: boolean; style?: (s: string) => string }): string {
  const visible = pairs.filter(([, v]) => v !== undefined);
  if (!opts.tty) return visible.map(([k, v]) => `${k}\t${clean(v)}`).join('\n') + (visible.length ? '\n' : '');
  const width = Math.max(0, ...visible.map(([k]) => k.length));
  return visible.map(([k, v]) => `${(opts.style ?? ((s) => s))(k.padEnd(width))}  ${clean(v)}`).join('\n') + (visible.length ? '\n' : '');
}
