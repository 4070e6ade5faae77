import { describe, expect, it } from 'vitest';
import type { CarsQuery } from '../../src/api/endpoints.js';
import type { Car, CarsPage } from '../../src/api/schemas.js';
import { fetchAll } from '../../src/commands/cars.js';

const car = (i: number) => ({ car_alias: `car-${i}`, name: `Car ${i}` }) as Car;

/** A fake catalog that records the offsets asked and how many requests overlapped. */
function catalog(total: number, delay = 5) {
  const asked: Array<{ offset: number; limit: number }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetchPage = async (q: CarsQuery): Promise<CarsPage> => {
    asked.push({ offset: q.offset!, limit: q.limit! });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // later pages answer first, so the stitching order is really tested
    await new Promise((r) => setTimeout(r, delay * (total - q.offset!) / total));
    inFlight--;
    const cars = Array.from({ length: Math.max(0, Math.min(q.limit!, total - q.offset!)) }, (_, k) => car(q.offset! + k));
    return { cars, total, has_more: q.offset! + cars.length < total };
  };
  return { fetchPage, asked, maxInFlight: () => maxInFlight };
}

describe('fetchAll (cars --all)', () => {
  it('fetches the first page, then the rest with at most 4 in flight, in order', async () => {
    const c = catalog(1_050);
    const progress: number[] = [];
    const page = await fetchAll({ city: 'la', limit: 100 }, c.fetchPage, (done) => progress.push(done));
    expect(page.total).toBe(1_050);
    expect(page.has_more).toBe(false);
    expect(page.cars.map((x) => x.car_alias)).toEqual(Array.from({ length: 1_050 }, (_, i) => `car-${i}`));
    expect(c.asked[0]).toEqual({ offset: 0, limit: 100 });
    expect(c.asked.map((a) => a.offset).sort((a, b) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i * 100));
    expect(c.maxInFlight()).toBe(4);
    expect(progress.at(-1)).toBe(1_050);
    expect(progress[0]).toBe(100);
  });

  it('walks one page at a time with concurrency 1', async () => {
    const c = catalog(500);
    await fetchAll({ limit: 200 }, c.fetchPage, () => {}, 1);
    expect(c.maxInFlight()).toBe(1);
    expect(c.asked.map((a) => a.offset)).toEqual([0, 200, 400]);
  });

  it('stops at one page when there is no more, and starts at --offset', async () => {
    const c = catalog(150);
    const page = await fetchAll({ limit: 200, offset: 20 }, c.fetchPage);
    expect(c.asked).toEqual([{ offset: 20, limit: 200 }]);
    expect(page.cars).toHaveLength(130);
  });

  it('never lists a car twice when the catalog shifts between pages', async () => {
    const fetchPage = async (q: CarsQuery): Promise<CarsPage> => {
      // the second page starts one car early: car-1 appears on both
      const start = q.offset === 0 ? 0 : 1;
      return { cars: [car(start), car(start + 1)], total: 4, has_more: q.offset === 0 };
    };
    const page = await fetchAll({ limit: 2 }, fetchPage);
    expect(page.cars.map((x) => x.car_alias)).toEqual(['car-0', 'car-1', 'car-2']);
  });

  it('fails as soon as a page fails and stops asking for more', async () => {
    let calls = 0;
    const fetchPage = async (q: CarsQuery): Promise<CarsPage> => {
      calls++;
      if (q.offset === 100) throw new Error('page failed');
      await new Promise((r) => setTimeout(r, 5));
      return { cars: [car(q.offset!)], total: 5_000, has_more: true };
    };
    await expect(fetchAll({ limit: 100 }, fetchPage)).rejects.toThrow('page failed');
    await new Promise((r) => setTimeout(r, 30));
    // the first page, the failing one and at most the three already in flight
    expect(calls).toBeLessThanOrEqual(5);
  });
});
