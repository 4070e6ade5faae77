import { describe, expect, it } from 'vitest';
import { formatCents, formatCentsOrUnknown, formatUsd } from '../../src/render/money.js';

describe('formatCents', () => {
  it.each([
    [0, '$0.00'],
    [5, '$0.05'],
    [99, '$0.99'],
    [100, '$1.00'],
    [123456, '$1,234.56'],
    [100000000, '$1,000,000.00'],
    [-500, '-$5.00'],
    [-123456, '-$1,234.56'],
    [-1, '-$0.01'],
  ])('%i cents -> %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it('uses integer arithmetic: no float drift on large amounts', () => {
    expect(formatCents(Number.MAX_SAFE_INTEGER)).toBe('$90,071,992,547,409.91');
  });

  it('refuses a non-integer: cents are integers everywhere in the API', () => {
    expect(() => formatCents(12.5)).toThrow(new TypeError('cents must be an integer, got 12.5'));
  });
});

describe('formatUsd (whole dollars)', () => {
  it.each([
    [0, '$0'],
    [25000, '$25,000'],
    [1000000, '$1,000,000'],
    [-750, '-$750'],
  ])('%i -> %s', (dollars, text) => {
    expect(formatUsd(dollars)).toBe(text);
  });

  it('refuses fractions', () => {
    expect(() => formatUsd(1.5)).toThrow(new TypeError('dollars must be an integer, got 1.5'));
  });
});

describe('formatCentsOrUnknown', () => {
  it('never turns an unknown amount into $0.00', () => {
    expect(formatCentsOrUnknown(null)).toBe('unknown');
    expect(formatCentsOrUnknown(undefined)).toBe('unknown');
    expect(formatCentsOrUnknown(0)).toBe('$0.00');
  });
});
