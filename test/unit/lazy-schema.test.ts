import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { lazy, lazySchemaStats } from '../../src/api/lazy-schema.js';

describe('lazy schemas (a start-up trick, src/api/lazy-schema.ts)', () => {
  it('importing the API schemas builds none of them; using one builds it (and what it is made of) once', async () => {
    const before = lazySchemaStats.built;
    const S = await import('../../src/api/schemas.js');
    expect(lazySchemaStats.built).toBe(before);
    expect(Object.keys(S.Car.shape)).toContain('car_alias');
    expect(lazySchemaStats.built - before).toBe(1);
    // a parse builds what Car is made of as it reaches them (CarPrices, BlockedRange, and the
    // shared leaves: Cents, LocalDateTime, PhotoLink), once
    const car = { car_alias: 'x', prices: { car: {} }, blocked: [{ start: '2026-01-01', end: '2026-01-02' }] };
    S.Car.safeParse(car);
    const afterCar = lazySchemaStats.built;
    expect(afterCar - before).toBeLessThanOrEqual(6);
    S.Car.safeParse(car);
    expect(lazySchemaStats.built).toBe(afterCar);
  });

  it('a stand-in behaves as the schema: parse, errors with paths, nesting, wrappers, extend', () => {
    const Inner = lazy(() => z.looseObject({ n: z.number() }));
    const Outer = lazy(() => z.looseObject({ inner: z.optional(Inner), list: z.array(Inner) }));
    expect(Outer.safeParse({ list: [{ n: 1, extra: true }] })).toEqual({ success: true, data: { list: [{ n: 1, extra: true }] } });
    const bad = Outer.safeParse({ list: [{ n: 'one' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['list', 0, 'n']);
    expect(() => Inner.parse({})).toThrow();
    const Wider = z.extend(Inner, { m: z.string() });
    expect(Wider.safeParse({ n: 1, m: 'x' }).success).toBe(true);
    expect(Wider.safeParse({ n: 1 }).success).toBe(false);
    expect('shape' in Inner).toBe(true);
    expect(Object.keys(Inner.shape)).toEqual(['n']);
  });

  it('builds nothing until read', () => {
    let calls = 0;
    const S = lazy(() => {
      calls++;
      return z.string();
    });
    expect(calls).toBe(0);
    expect(S.safeParse('a').success).toBe(true);
    expect(S.safeParse(1).success).toBe(false);
    expect(calls).toBe(1);
  });
});
