import { describe, expect, it } from 'vitest';
import { fitWidths, renderTable } from '../../src/render/table.js';

describe('fitWidths', () => {
  const headers = ['ID', 'DESCRIPTION', 'AMOUNT'];
  const cells = [['a1', 'x'.repeat(80), '$1.00']];

  it('leaves a table that fits alone', () => {
    expect(fitWidths(headers, cells, 200)).toEqual([null, null, null]);
    expect(fitWidths(headers, cells, undefined)).toEqual([null, null, null]);
  });

  it('narrows the widest column until the table fits the terminal', () => {
    const widths = fitWidths(headers, cells, 60);
    expect(widths[0]).toBeNull();
    expect(widths[2]).toBeNull();
    // ID 4 + AMOUNT 8 (padding included) + 4 borders leave 44 for the description
    expect(widths[1]).toBe(44);
    const out = renderTable(headers, cells, { tty: true, columns: 60 });
    for (const line of out.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(60);
    expect(out.replace(/[│\s]/g, '')).toContain('x'.repeat(80).slice(0, 40));
  });

  it('never narrows a column below twelve characters, even when the table cannot fit', () => {
    const widths = fitWidths(['A', 'B'], [['y'.repeat(50), 'z'.repeat(50)]], 10);
    expect(widths).toEqual([14, 14]);
  });
});
