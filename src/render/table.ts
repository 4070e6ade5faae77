// Tables: boxed with headers on a terminal, tab-separated lines without headers in a
// pipe (the gh convention), so `cut -f` and `awk -F'\t'` work on the output.
import { loadTable } from './cli-table3.cjs';
import { clean } from './sanitize.js';

export interface TableOptions {
  tty: boolean;
  /** Right-aligned columns (money, counts), by index. */
  alignRight?: number[];
  columns?: number;
  style?: (header: string) => string;
}

/** A cell drawn on several lines on a terminal (one tab-separated field in a pipe). */
export class MultiLine {
  constructor(readonly lines: unknown[]) {}
}

export function renderTable(headers: string[], rows: unknown[][], opts: TableOptions): string {
  const tall = rows.some((row) => row.some((cell) => cell instanceof MultiLine));
  const cells = rows.map((row) =>
    row.map((cell) => (cell instanceof MultiLine ? cell.lines.map((l) => clean(l)).join(opts.tty ? '\n' : ' ') : clean(cell))),
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
    wordWrap: true,
  });
  for (const row of cells) table.push(row);
  return table.toString() + '\n';
}

/** A label/value block: aligned on a terminal, `label<TAB>value` in a pipe. */
export function renderPairs(pairs: Array<[string, unknown]>, opts: { tty: boolean; style?: (s: string) => string }): string {
  const visible = pairs.filter(([, v]) => v !== undefined);
  if (!opts.tty) return visible.map(([k, v]) => `${k}\t${clean(v)}`).join('\n') + (visible.length ? '\n' : '');
  const width = Math.max(0, ...visible.map(([k]) => k.length));
  return visible.map(([k, v]) => `${(opts.style ?? ((s) => s))(k.padEnd(width))}  ${clean(v)}`).join('\n') + (visible.length ? '\n' : '');
}
