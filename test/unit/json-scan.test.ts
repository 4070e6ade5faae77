// The scanner's fast path (a regular expression that takes everything up to the next
// bracket) against JSON.parse, on texts built to trip it: brackets, quotes and backslashes
// inside strings, every spacing, and runs too long for the expression's backtracking stack,
// which the JavaScript loop then takes.
import { describe, expect, it } from 'vitest';
import { arrayElementsAt, memberSpan, rootSpan, skipValue, UP_TO_BRACKET } from '../../src/text/json-scan.js';

/** A deterministic pseudo-random source (mulberry32), so a failure reruns the same. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['"', '\\', '[', ']', '{', '}', ',', ':', ' ', 'a', 'é', '\u2028', '\\"', '\\\\'];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 4 : 6));
  if (pick === 0) return Array.from({ length: Math.floor(next() * 4) }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
  if (pick === 1) return Math.round((next() - 0.5) * 1e6) / 100;
  if (pick === 2) return [true, false, null][Math.floor(next() * 3)];
  if (pick === 3) return '';
  if (pick === 4) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, (_, i) => [`${PIECES[Math.floor(next() * PIECES.length)]}${i}`, value(next, depth + 1)]));
}

describe('json scanner, fast path', () => {
  it('finds the same values as JSON.parse in 500 random documents, compact and spaced', () => {
    const next = random(24);
    for (let n = 0; n < 500; n++) {
      const cars = Array.from({ length: 1 + Math.floor(next() * 4) }, () => value(next, 0));
      const data = { cars, total: cars.length };
      const text = JSON.stringify({ data, meta: value(next, 2) }, null, n % 2 ? 2 : undefined);
      expect(arrayElementsAt(text, ['data', 'cars'])!.map((s) => JSON.parse(text.slice(s.start, s.end)))).toEqual(cars);
      const span = memberSpan(text, rootSpan(text), 'data')!;
      expect(JSON.parse(text.slice(span.start, span.end))).toEqual(data);
    }
  });

  it('a run the expression cannot take (past its backtracking stack) is read by the loop, with the same answer', () => {
    const long = 'x'.repeat(12_000_000);
    UP_TO_BRACKET.lastIndex = 0;
    expect(() => UP_TO_BRACKET.test(`"${long}"`)).toThrow(RangeError);
    const text = `{"data":["${long}",{"n":[1,"]"]}],"meta":{}}`;
    expect(memberSpan(text, rootSpan(text), 'data')).toEqual({ start: 8, end: text.lastIndexOf(',"meta"') });
    const numbers = `[${'1,'.repeat(6_000_000)}2]`;
    expect(skipValue(numbers, 0)).toBe(numbers.length);
  });
});
