import { describe, expect, it } from 'vitest';
import type { Globals } from '../../src/session/context.js';
import { Output } from '../../src/render/output.js';
import { clean, cleanText, visible } from '../../src/text/sanitize.js';
import { renderPairs, renderTable } from '../../src/render/table.js';
import { FakeOut } from '../helpers/cli.js';

const ESC = '\u001b';

describe('sanitising server strings', () => {
  it('strips ANSI colour, cursor, OSC (hyperlink, title) and 8-bit CSI sequences', () => {
    expect(clean(`${ESC}[31mRed${ESC}[0m car`)).toBe('Red car');
    expect(clean(`${ESC}[2J${ESC}[HWiped`)).toBe('Wiped');
    expect(clean(`${ESC}]0;pwned${ESC}\\title`)).toBe('title');
    expect(clean(`${ESC}]8;;https://evil.example\u0007link${ESC}]8;;\u0007`)).toBe('link');
    expect(clean('\u009b31mC1')).toBe('C1');
  });
  it('drops C0/C1 controls and bidi overrides, turns line breaks into spaces', () => {
    expect(clean('a\u0000b\u0007c\u007fd\u0085e')).toBe('abcde');
    expect(clean('line1\r\nline2\tcol')).toBe('line1 line2 col');
    expect(clean('abc\u202edcba\u2066x\u2069')).toBe('abcdcbax');
  });
  it('keeps ordinary Unicode', () => {
    expect(clean('Citroën ë – 🚗 東京')).toBe('Citroën ë – 🚗 東京');
  });
  it('cleanText keeps the lines of prose', () => {
    expect(cleanText(`para 1\r\npara 2\n${ESC}[1mbold${ESC}[0m\u0007`)).toBe('para 1\npara 2\nbold');
  });
  it('null and undefined are empty, never the text "undefined"', () => {
    expect(clean(null)).toBe('');
    expect(clean(undefined)).toBe('');
    expect(cleanText(undefined)).toBe('');
    expect(cleanText(null)).toBe('');
    expect(clean(0)).toBe('0');
  });
  it('a lone CR is a line break: a space in a cell, a newline in prose', () => {
    expect(clean('over\rwrite')).toBe('over write');
    expect(cleanText('over\rwrite')).toBe('over\nwrite');
  });
  it('drops the invisible direction marks too (ALM, LRM, RLM), and treats line/paragraph separators as line breaks', () => {
    expect(clean('a\u061cb\u200ec\u200fd')).toBe('abcd');
    expect(clean('one\u2028two\u2029three')).toBe('one two three');
    expect(cleanText('one\u2028two')).toBe('one\ntwo');
  });
  it('visible() (for --debug) shows every control, bidi and separator character as an escape, and nothing else', () => {
    expect(visible(`${ESC}[31mred\u009b1m\u202eevil\u2028\u0000é 🚗`)).toBe('\\u001b[31mred\\u009b1m\\u202eevil\\u2028\\u0000é 🚗');
    expect(visible('tab\there\nline')).toBe('tab\\u0009here\\u000aline');
  });
});

describe('tables', () => {
  const rows = [
    ['car-1', `Evil ${ESC}[31mred${ESC}[0m`, '$1,234.56'],
    ['car-2', 'Tab\there', '-$5.00'],
  ];
  it('are tab-separated lines without headers in a pipe', () => {
    expect(renderTable(['ALIAS', 'NAME', 'PRICE'], rows, { tty: false })).toBe('car-1\tEvil red\t$1,234.56\ncar-2\tTab here\t-$5.00\n');
    expect(renderTable(['A'], [], { tty: false })).toBe('');
  });
  it('are borderless with headers on a terminal, money right-aligned', () => {
    const text = renderTable(['ALIAS', 'NAME', 'PRICE'], rows, { tty: true, alignRight: [2] });
    expect(text).toMatch(/^ALIAS  NAME +PRICE\n/);
    expect(text).toMatch(/ \$1,234\.56\n/);
    expect(text).toMatch(/ {5}-\$5\.00\n/);
    expect(text).not.toContain(ESC);
  });
  it('pairs: label<TAB>value in a pipe, aligned on a terminal, undefined values skipped', () => {
    const pairs: Array<[string, unknown]> = [['Name', 'A'], ['Skipped', undefined], ['Longer label', `x${ESC}[1m`]];
    expect(renderPairs(pairs, { tty: false })).toBe('Name\tA\nLonger label\tx\n');
    expect(renderPairs(pairs, { tty: true })).toBe('Name          A\nLonger label  x\n');
  });
});

function makeOutput(opts: { tty: boolean; json?: boolean; color?: boolean }) {
  const stdout = new FakeOut(opts.tty);
  const stderr = new FakeOut(opts.tty);
  const globals = { json: !!opts.json, color: !!opts.color } as Globals;
  return { out: new Output({ io: { stdin: process.stdin, stdout, stderr }, globals }), stdout, stderr };
}

describe('Output', () => {
  it('prints the JSON payload alone: compact in a pipe, indented on a terminal', () => {
    const pipe = makeOutput({ tty: false, json: true });
    pipe.out.printJson({ a: 1, b: [2] });
    expect(pipe.stdout.text()).toBe('{"a":1,"b":[2]}\n');
    const tty = makeOutput({ tty: true, json: true });
    tty.out.printJson({ a: 1 });
    expect(tty.stdout.text()).toBe('{\n  "a": 1\n}\n');
  });
  it('shows progress only on a terminal and erases it before data', () => {
    const pipe = makeOutput({ tty: false });
    pipe.out.progress('fetched 1 of 2');
    expect(pipe.stderr.text()).toBe('');
    const tty = makeOutput({ tty: true });
    tty.out.progress('fetched 1 of 2');
    tty.out.line('data');
    expect(tty.stderr.text()).toBe(`\r${ESC}[2Kfetched 1 of 2\r${ESC}[2K`);
    expect(tty.stdout.text()).toBe('data\n');
  });
  it('cleans a progress line: it often names a server string (a car alias, an error code)', () => {
    const tty = makeOutput({ tty: true });
    tty.out.progress(`probing GET /cars/kia${ESC}]0;owned\u0007\u202e-1…`);
    expect(tty.stderr.text()).toBe(`\r${ESC}[2Kprobing GET /cars/kia-1…`);
  });
  it('headings are bold on a terminal, "# " lines in a pipe; colour only when enabled', () => {
    const pipe = makeOutput({ tty: false });
    pipe.out.heading('Prices');
    pipe.out.warn('careful');
    expect(pipe.stdout.text()).toBe('# Prices\n');
    expect(pipe.stderr.text()).toBe('warning: careful\n');
    const tty = makeOutput({ tty: true, color: true });
    tty.out.heading('Prices');
    expect(tty.stdout.text()).toBe(`${ESC}[1mPrices${ESC}[22m\n`);
  });
  it('prints a link alone on its line, cleaned', () => {
    const pipe = makeOutput({ tty: false });
    pipe.out.link(`https://app.example.com/trips/1?x=1${ESC}[2J`);
    expect(pipe.stdout.text()).toBe('https://app.example.com/trips/1?x=1\n');
  });
});
