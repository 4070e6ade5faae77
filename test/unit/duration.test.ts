import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/input/duration.js';

describe('parseDuration', () => {
  it('adds its parts, in every unit, and keeps a leading minus', () => {
    expect(parseDuration('2d')).toBe(172_800);
    expect(parseDuration(' 1d12h ')).toBe(129_600);
    expect(parseDuration('1w1d1h1m1s')).toBe(604_800 + 86_400 + 3_600 + 60 + 1);
    expect(parseDuration('-3h')).toBe(-10_800);
  });

  it('refuses a number without a unit, an unknown unit and more than ten years', () => {
    for (const bad of ['2', '2y', 'd', '', '+2d']) expect(() => parseDuration(bad)).toThrow(/a duration is a number and a unit/);
    expect(() => parseDuration('3651d')).toThrow('3651d is more than ten years');
    expect(parseDuration('3650d')).toBe(3650 * 86_400);
  });
});
