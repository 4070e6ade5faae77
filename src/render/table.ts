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

export function renderTable(headers: string[], rows: unknown[][], opts: TableOptions): string {
  const cells = rows.map((row) => row.map((cell) => clean(cell)));
  if (!opts.tty) {
    return cells.map((row) => row.join('\t')).join('\n') + (cells.length ? '\n' : '');
  }
  const Table = loadTable();
  const table = new Table({
    head: headers.map((h) => (opts.style ? opts.style(h) : h)),
    // compact: no rule between rows, so a 50-car list stays 50 lines, not 100
    style: { head: [], border: [], compact: true },
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
