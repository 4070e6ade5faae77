// Fitting tables to the terminal: ids are never cut, free text gives up width first, dates
// wrap only between words, and a table that cannot fit boxed is drawn plain, then as records.
import { describe, expect, it } from 'vitest';
import { fitWidths, MIN_TEXT_COLUMN, renderPairs, renderTable, wrap } from '../../src/render/table.js';

const UUID = '2ce09bb7-0123-4567-89ab-0123456789ab';
const lines = (text: string) => text.trimEnd().split('\n');
const widest = (text: string) => Math.max(...lines(text).map((l) => l.length));

describe('fitWidths', () => {
  const headers = ['ID', 'DESCRIPTION', 'AMOUNT'];
  const cells = [['a1', 'x'.repeat(80), '$1.00']];

  it('leaves a table that fits alone: every column at its natural width', () => {
    expect(fitWidths(headers, cells, 200)).toEqual([2, 80, 6]);
    expect(fitWidths(headers, cells, undefined)).toEqual([2, 80, 6]);
  });

  it('narrows free text first, and only as much as the terminal needs', () => {
    const h = ['UUID', 'CAR', 'CHECK-IN'];
    const c = [[UUID, 'MINI Cooper Convertible 2024', '2026-12-01 10:00']];
    // boxed: 3 characters a column and one border: 36 + 16 + 10 chrome leave 18 for the car
    expect(fitWidths(h, c, 80, { ids: [0], text: [1] })).toEqual([36, 18, 16]);
  });

  it('never narrows an id column, even when everything else is at its floor', () => {
    const h = ['UUID', 'NAME', 'CHECK-IN'];
    const c = [[UUID, 'Ford Transit Passenger Van', '2026-12-01 10:00']];
    const w = fitWidths(h, c, 66, { ids: [0], text: [1] })!;
    expect(w[0]).toBe(36);
    expect(w[1]).toBe(MIN_TEXT_COLUMN);
    // the date gave up width too, but only down to its longest word: it wraps between day and time
    expect(w[2]).toBe(10);
    expect(fitWidths(h, c, 65, { ids: [0], text: [1] })).toBeNull();
  });

  it('a plain frame (two spaces between columns) needs less room than a boxed one', () => {
    const h = ['ALIAS', 'NAME', 'CITY'];
    const c = [['toyota-rav4-hybrid-1003', 'Toyota RAV4 Hybrid 2019', 'la']];
    expect(fitWidths(h, c, 45, { ids: [0], text: [1] }, 'boxed')).toBeNull();
    expect(fitWidths(h, c, 45, { ids: [0], text: [1] }, 'plain')).toEqual([23, 14, 4]);
  });
});

describe('wrap', () => {
  it('wraps at spaces and splits only a word longer than the width', () => {
    expect(wrap('Ford Transit Passenger Van', 12)).toEqual(['Ford Transit', 'Passenger', 'Van']);
    expect(wrap('abcdefghijklmnop', 10)).toEqual(['abcdefghij', 'klmnop']);
    expect(wrap('2026-12-01 10:00', 10)).toEqual(['2026-12-01', '10:00']);
  });
});

describe('renderTable on a terminal', () => {
  const headers = ['UUID', 'CAR', 'CHECK-IN', 'CHECK-OUT', 'STATUS'];
  const rows = [
    [UUID, 'MINI Cooper Convertible 2024', '2026-12-01 10:00', '2026-12-04 10:00', 'confirmed'],
    ['0b4852a1-1b05-42e2-9d0f-e74bf9033781', 'Honda Civic 2022', '2026-11-28 10:00', '2026-12-01 10:00', 'cancelled'],
  ];
  const layout = { ids: [0], text: [1] };

  it('at 160 columns: boxed, natural widths, every row on one line', () => {
    const out = renderTable(headers, rows, { tty: true, columns: 160, ...layout });
    expect(lines(out)).toHaveLength(6); // top, header, rule, two rows, bottom
    expect(out).toContain(`│ ${UUID} │ MINI Cooper Convertible 2024 │ 2026-12-01 10:00 │`);
  });

  it('at 110 columns: the car wraps, the uuid and the dates stay whole on one line', () => {
    const out = renderTable(headers, rows, { tty: true, columns: 110, ...layout });
    expect(widest(out)).toBeLessThanOrEqual(110);
    expect(out).toContain(`│ ${UUID} │`);
    expect(out).toMatch(/│ 2026-12-01 10:00 │ 2026-12-04 10:00 │/);
    expect(out).not.toContain('…');
  });

  it('at 90 columns: plain columns when boxes do not fit, nothing cut, nothing wider than 90', () => {
    const out = renderTable(headers, rows, { tty: true, columns: 90, ...layout });
    expect(out).not.toContain('│');
    expect(widest(out)).toBeLessThanOrEqual(90);
    expect(lines(out)[0]).toMatch(/^UUID {34}CAR/);
    expect(out).toContain(UUID);
    expect(out).toContain('0b4852a1-1b05-42e2-9d0f-e74bf9033781');
    expect(out).not.toContain('…');
  });

  it('narrower still: one record per row, each value beside its header, the uuid whole', () => {
    const out = renderTable(headers, rows, { tty: true, columns: 50, ...layout });
    expect(widest(out)).toBeLessThanOrEqual(50);
    expect(out).toContain('── 1 of 2 ─');
    expect(out).toContain(`UUID       ${UUID}`);
    expect(out).toContain('CAR        MINI Cooper Convertible 2024');
  });

  it('before the fix a 36-character uuid in an 80-column table was cut with "…"', () => {
    const out = renderTable(['INVOICE', 'TYPE', 'STATUS', 'AMOUNT', 'CREATED', 'DESCRIPTION'], [[UUID, 'RENT', 'PAID', '$166.00', '2026-11-13 05:11 UTC', 'Rent for Honda Civic 2022, 2026-11-28T10:00 to 2026-12-01T10:00']], {
      tty: true,
      columns: 80,
      ids: [0],
      text: [5],
    });
    expect(out).toContain(UUID);
    expect(widest(out)).toBeLessThanOrEqual(80);
  });

  it('in a pipe: tab-separated, never wrapped, whatever the width', () => {
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
    const out = renderTable(['UUID', 'CAR'], [[UUID, name]], { tty: true, columns: 70, ids: [0], text: [1] });
    expect(out).toContain(UUID);
    // a CJK character or an emoji takes two columns
    const columnsOf = (l: string) => [...l].reduce((n, ch) => n + (/[\u3000-\u9fff\u{1F300}-\u{1FAFF}]/u.test(ch) ? 2 : 1), 0);
    for (const line of lines(out)) expect(columnsOf(line)).toBeLessThanOrEqual(70);
    expect(wrap('丰田卡罗拉混合', 6)).toEqual(['丰田卡', '罗拉混', '合']);
  });
});
