// Fitting tables to the terminal like gh's: borderless, one line per row at any width, ids
// never cut (uuids as short prefixes), free text cut with …, optional columns left out.
import { describe, expect, it } from 'vitest';
import { fitColumns, renderPairs, renderTable, shortenUuids, wrap } from '../../src/render/table.js';

const UUID = '2ce09bb7-0123-4567-89ab-0123456789ab';
const lines = (text: string) => text.trimEnd().split('\n');
const widest = (text: string) => Math.max(...lines(text).map((l) => l.length));

describe('fitColumns', () => {
  const headers = ['ID', 'DESCRIPTION', 'AMOUNT'];
  const cells = [['a1', 'x'.repeat(80), '$1.00']];

  it('leaves a table that fits alone: every column at its natural width', () => {
    expect(fitColumns(headers, cells, 200)).toEqual({ keep: [0, 1, 2], widths: [2, 80, 6] });
    expect(fitColumns(headers, cells, undefined)).toEqual({ keep: [0, 1, 2], widths: [2, 80, 6] });
  });

  it('narrows free text first, and only as much as the terminal needs (two spaces between columns)', () => {
    const h = ['UUID', 'CAR', 'CHECK-IN'];
    const c = [['2ce09bb7', 'MINI Cooper Convertible 2024', '2026-12-01 10:00']];
    expect(fitColumns(h, c, 40, { ids: [0], text: [1] })).toEqual({ keep: [0, 1, 2], widths: [8, 12, 16] });
  });

  it('leaves out optional columns, in their order, before free text goes under its floor', () => {
    const h = ['UUID', 'CAR', 'CHECK-IN', 'TOTAL', 'DEPOSIT'];
    const c = [['2ce09bb7', 'MINI Cooper Convertible 2024', '2026-12-01 10:00', '$1,234.00', '$500.00']];
    const fit = fitColumns(h, c, 50, { ids: [0], text: [1], optional: [4, 3] });
    expect(fit.keep).toEqual([0, 1, 2, 3]);
    expect(fit.widths).toEqual([8, 11, 16, 9]);
    expect(fitColumns(h, c, 40, { ids: [0], text: [1], optional: [4, 3] }).keep).toEqual([0, 1, 2]);
  });

  it('never narrows an id; cuts any other column when nothing else is left', () => {
    const h = ['ALIAS', 'NAME', 'CHECK-IN'];
    const c = [['toyota-rav4-hybrid-1003', 'Toyota RAV4 Hybrid 2019', '2026-12-01 10:00']];
    const { widths } = fitColumns(h, c, 36, { ids: [0], text: [1] });
    expect(widths[0]).toBe(23);
    expect(widths.reduce((a, b) => a + b, 0) + 4).toBe(36);
  });
});

describe('shortenUuids', () => {
  it('shows each uuid of an id column as its shortest unique prefix, at least 8 characters', () => {
    const a = '2ce09bb7-0123-4567-89ab-0123456789ab';
    const b = '2ce09bb7-0199-4567-89ab-0123456789ab';
    const c = '0b4852a1-1b05-42e2-9d0f-e74bf9033781';
    expect(shortenUuids([[a], [b], [c], ['-']], [0]).map((r) => r[0])).toEqual(['2ce09bb7-012', '2ce09bb7-019', '0b4852a1', '-']);
    // unique among other uuids too (those of another table of the same listing)
    expect(shortenUuids([[c]], [0], ['0b4852a1-ffff-42e2-9d0f-e74bf9033781'])[0][0]).toBe('0b4852a1-1');
    // a column holding anything else is left whole
    expect(shortenUuids([[a], ['not-a-uuid']], [0])).toEqual([[a], ['not-a-uuid']]);
  });
});

describe('renderTable on a terminal', () => {
  const headers = ['UUID', 'CAR', 'CHECK-IN', 'CHECK-OUT', 'STATUS'];
  const rows = [
    [UUID, 'MINI Cooper Convertible 2024', '2026-12-01 10:00', '2026-12-04 10:00', 'confirmed'],
    ['0b4852a1-1b05-42e2-9d0f-e74bf9033781', 'Honda Civic 2022', '2026-11-28 10:00', '2026-12-01 10:00', 'cancelled'],
  ];
  const layout = { ids: [0], text: [1] };

  it('at 160 columns: borderless, a header line and one line per row, short uuids', () => {
    const out = renderTable(headers, rows, { tty: true, columns: 160, ...layout });
    expect(lines(out)).toEqual([
      'UUID      CAR                           CHECK-IN          CHECK-OUT         STATUS',
      '2ce09bb7  MINI Cooper Convertible 2024  2026-12-01 10:00  2026-12-04 10:00  confirmed',
      '0b4852a1  Honda Civic 2022              2026-11-28 10:00  2026-12-01 10:00  cancelled',
    ]);
  });

  it('at every width from 60 up: one line per row, no line wider than the terminal, the name cut with …', () => {
    for (const columns of [60, 64, 70, 80, 90, 100, 120]) {
      const out = renderTable(headers, rows, { tty: true, columns, ...layout });
      expect(lines(out)).toHaveLength(3);
      expect(widest(out)).toBeLessThanOrEqual(columns);
      expect(out).not.toMatch(/[│─┌└]/);
      expect(out).toContain('2026-12-01 10:00');
    }
    // leaving the check-out out gives the name room
    const narrow = renderTable(headers, rows, { tty: true, columns: 60, ...layout, optional: [3] });
    expect(lines(narrow)[1]).toBe('2ce09bb7  MINI Cooper Converti…  2026-12-01 10:00  confirmed');
  });

  it('the same layout whatever the data: a long name never turns the table into per-record cards', () => {
    const long = [[UUID, 'x'.repeat(300), '2026-12-01 10:00', '2026-12-04 10:00', 'confirmed']];
    const out = renderTable(headers, long, { tty: true, columns: 60, ...layout });
    expect(lines(out)).toHaveLength(2);
    expect(lines(out)[0]).toMatch(/^UUID {6}CAR/);
  });

  it('--wide: uuids whole and every column, even past the terminal', () => {
    const out = renderTable(headers, rows, { tty: true, columns: 60, wide: true, ...layout, optional: [3] });
    expect(out).toContain(UUID);
    expect(out).toContain('MINI Cooper Convertible 2024');
    expect(lines(out)[0]).toContain('CHECK-OUT');
  });

  it('in a pipe: tab-separated, uuids whole, never cut, whatever the width', () => {
    expect(renderTable(headers, rows, { tty: false, columns: 40, ...layout })).toBe(rows.map((r) => r.join('\t')).join('\n') + '\n');
  });
});

describe('renderPairs on a terminal', () => {
  it('wraps a long value under itself, within the terminal; a pipe gets the bare value on one line', () => {
    const long = 'unknown (the billing records cannot be classified, e.g. a paid trip that was cancelled or a manual adjustment)';
    const out = renderPairs([['trip total', 'unknown', long], ['days', 3]], { tty: true, columns: 60 });
    expect(widest(out)).toBeLessThanOrEqual(60);
    expect(lines(out)[0]).toBe('trip total  unknown (the billing records cannot be');
    expect(lines(out)[1]).toMatch(/^ {12}classified/);
    expect(renderPairs([['trip total', 'unknown', long], ['hidden', 'x', null]], { tty: false })).toBe('trip total\tunknown\nhidden\tx\n');
    expect(renderPairs([['hidden', 'x', null]], { tty: true })).toBe('');
  });
});

describe('wide characters', () => {
  it('measures a CJK or emoji name by the columns it takes, so the table still fits', () => {
    const name = '丰田卡罗拉 2019 🚗 混合动力版 特别款';
    const out = renderTable(['UUID', 'CAR'], [[UUID, name]], { tty: true, columns: 30, ids: [0], text: [1] });
    expect(lines(out)[1]).toMatch(/^2ce09bb7  丰田卡罗拉.*…$/);
    // a CJK character or an emoji takes two columns
    const columnsOf = (l: string) => [...l].reduce((n, ch) => n + (/[\u3000-\u9fff\u{1F300}-\u{1FAFF}]/u.test(ch) ? 2 : 1), 0);
    for (const line of lines(out)) expect(columnsOf(line)).toBeLessThanOrEqual(30);
    expect(wrap('丰田卡罗拉混合', 6)).toEqual(['丰田卡', '罗拉混', '合']);
  });

  it('wrap fills lines greedily: a word longer than the width is split, and what follows its last piece joins it', () => {
    expect(wrap('a bb ccccccccc dd', 4)).toEqual(['a bb', 'cccc', 'cccc', 'c dd']);
    expect(wrap('short\none two three', 7)).toEqual(['short', 'one two', 'three']);
    expect(wrap('x  y', 2)).toEqual(['x ', 'y']);
  });
});
