// The page walk of `cars --all` (and `api --paginate`): has_more and offset exactly as the
// spec says, speculation only where the pages have earned it, nothing sent after a failure.
import { describe, expect, it } from 'vitest';
import type { CarsQuery } from '../../src/api/endpoints.js';
import type { Car, CarsPage } from '../../src/api/schemas.js';
import { carsText, plainCarCheck, STREAM_PAGE_SCHEMA } from '../../src/commands/cars.js';
import { fetchAll, walkPages } from '../../src/api/page-walk.js';

const car = (i: number) => ({ car_alias: `car-${i}`, name: `Car ${i}` }) as Car;

interface Served {
  cars: number;
  total: number;
  has_more: boolean;
}

/** A fake list: `answer(offset, limit)` says what a page holds; records offsets and overlap. */
function server(answer: (offset: number, limit: number) => Served, delay = (_o: number) => 2) {
  const asked: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetch = async (offset: number, limit: number, ctl?: { signal: AbortSignal }) => {
    asked.push(offset);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, delay(offset)));
    inFlight--;
    if (ctl?.signal.aborted) throw new Error('abandoned');
    const a = answer(offset, limit);
    return { cars: Array.from({ length: a.cars }, (_, k) => car(offset + k)), total: a.total, has_more: a.has_more } as CarsPage;
  };
  return { fetch, asked, maxInFlight: () => maxInFlight };
}

const honest = (total: number) => (offset: number, limit: number) => {
  const n = Math.max(0, Math.min(limit, total - offset));
  return { cars: n, total, has_more: offset + n < total };
};

async function walk(s: ReturnType<typeof server>, opts: { start?: number; size?: number; concurrency?: number; askAheadAfterMs?: number } = {}) {
  const offsets: number[] = [];
  const aliases: string[] = [];
  for await (const { page, offset } of walkPages<CarsPage>({
    start: opts.start ?? 0,
    size: opts.size ?? 100,
    concurrency: opts.concurrency ?? 4,
    askAheadAfterMs: opts.askAheadAfterMs ?? 0,
    fetch: (o, l, ctl) => s.fetch(o, l, ctl),
    facts: (p) => ({ count: p.cars.length, total: p.total, hasMore: p.has_more }),
  })) {
    offsets.push(offset);
    aliases.push(...page.cars.map((c) => c.car_alias));
  }
  return { offsets, aliases };
}

describe('walkPages', () => {
  it('yields every page in order; asks ahead only after pages agreed with total, at most 4 in flight', async () => {
    // later pages answer first, so the ordering is really tested
    const s = server(honest(1_050), (o) => 10 - o / 200);
    const { offsets, aliases } = await walk(s);
    expect(aliases).toEqual(Array.from({ length: 1_050 }, (_, i) => `car-${i}`));
    expect(offsets).toEqual(Array.from({ length: 11 }, (_, i) => i * 100));
    expect([...s.asked].sort((a, b) => a - b)).toEqual(offsets);
    // the first two pages go one at a time
    expect(s.asked.slice(0, 2)).toEqual([0, 100]);
    expect(s.maxInFlight()).toBe(4);
  });

  it('stops when has_more is false, whatever total says: 2 requests where 2 suffice', async () => {
    const s = server((offset) => ({ cars: 100, total: 1_000_000, has_more: offset === 0 }));
    const { aliases } = await walk(s);
    expect(s.asked).toEqual([0, 100]);
    expect(aliases).toHaveLength(200);
  });

  it('goes on while has_more is true, past total (a list that grows while it is walked)', async () => {
    const s = server((offset) => ({ cars: 100, total: 600, has_more: offset < 600 }));
    const { aliases } = await walk(s);
    expect(aliases).toHaveLength(700);
    expect(s.asked.at(-1)).toBe(600);
    expect(new Set(s.asked).size).toBe(s.asked.length);
  });

  it('a short page (a server with a smaller limit) continues from what arrived, dropping the guesses', async () => {
    const s = server((offset) => ({ cars: 60, total: 300, has_more: offset + 60 < 300 }));
    const { aliases, offsets } = await walk(s);
    expect(offsets).toEqual([0, 60, 120, 180, 240]);
    expect(aliases).toEqual(Array.from({ length: 300 }, (_, i) => `car-${i}`));
  });

  it('asks ahead only when pages keep it waiting: a server that answers at once gets the sequential walk', async () => {
    const fast = server(honest(1_000), () => 1);
    await walk(fast, { askAheadAfterMs: 20 });
    expect(fast.maxInFlight()).toBe(1);
    const slow = server(honest(1_000), () => 30);
    await walk(slow, { askAheadAfterMs: 20 });
    expect(slow.maxInFlight()).toBe(4);
  });

  it('concurrency 1 is the plain sequential walk', async () => {
    const s = server(honest(500));
    await walk(s, { concurrency: 1, size: 200 });
    expect(s.maxInFlight()).toBe(1);
    expect(s.asked).toEqual([0, 200, 400]);
  });

  it('never asks ahead at or past total, and starts at the given offset', async () => {
    const s = server(honest(150));
    const { aliases } = await walk(s, { start: 20, size: 200 });
    expect(s.asked).toEqual([20]);
    expect(aliases).toHaveLength(130);
  });

  it('has_more with an empty page ends the walk there (no endless walk, nothing asked past it), marked as stalled', async () => {
    const s = server(() => ({ cars: 0, total: 10, has_more: true }));
    const { aliases } = await walk(s);
    expect(aliases).toEqual([]);
    expect(s.asked).toEqual([0]);
    const pages = [];
    for await (const p of walkPages({ start: 0, size: 200, concurrency: 4, fetch: async () => ({ n: 0 }), facts: () => ({ count: 0, total: 10, hasMore: true }) })) pages.push(p);
    expect(pages).toEqual([{ page: { n: 0 }, offset: 0, stalled: true }]);
  });

  it('a failed page ends the walk: the pages asked ahead are abandoned and nothing is asked afterwards', async () => {
    const signals: AbortSignal[] = [];
    let asked = 0;
    const gen = walkPages<CarsPage>({
      start: 0,
      size: 100,
      concurrency: 4,
      askAheadAfterMs: 0,
      fetch: async (offset, _l, ctl) => {
        asked++;
        signals.push(ctl.signal);
        await new Promise((r) => setTimeout(r, 5));
        if (offset === 300) throw new Error('429 for good');
        return { cars: Array.from({ length: 100 }, (_, k) => car(offset + k)), total: 10_000, has_more: true };
      },
      facts: (p) => ({ count: p.cars.length, total: p.total, hasMore: p.has_more }),
    });
    await expect((async () => {
      for await (const _ of gen) void _;
    })()).rejects.toThrow('429 for good');
    const after = asked;
    expect(signals.slice(4).every((s) => s.aborted)).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect(asked).toBe(after);
  });

  it('asks nothing ahead while a request waits out a Retry-After', async () => {
    let now = 0;
    const asked: number[] = [];
    const gen = walkPages<CarsPage>({
      start: 0,
      size: 100,
      concurrency: 4,
      askAheadAfterMs: 0,
      now: () => now,
      fetch: async (offset, _l, ctl) => {
        asked.push(offset);
        // page 200 was rate limited: it waited 60 s before its answer
        if (offset === 200) ctl.onRetryWait(60_000);
        return { cars: Array.from({ length: 100 }, (_, k) => car(offset + k)), total: 1_000, has_more: offset < 900 };
      },
      facts: (p) => ({ count: p.cars.length, total: p.total, hasMore: p.has_more }),
    });
    const seen: number[] = [];
    for await (const { offset } of gen) {
      seen.push(offset);
      if (offset === 200) expect(asked.filter((o) => o > 200)).toHaveLength(1);
      if (offset === 300) now = 61_000;
    }
    expect(seen).toHaveLength(10);
  });
});

describe('fetchAll (reserve prompts, completions)', () => {
  it('collects the walk, never listing a car twice when the catalog shifts between pages', async () => {
    const fetchPage = async (q: CarsQuery): Promise<CarsPage> => {
      const start = q.offset === 0 ? 0 : 1;
      return { cars: [car(start), car(start + 1)], total: 4, has_more: q.offset === 0 };
    };
    const page = await fetchAll({ limit: 2 }, fetchPage);
    expect(page.cars.map((c) => c.car_alias)).toEqual(['car-0', 'car-1', 'car-2']);
    expect(page.has_more).toBe(false);
  });
});

describe('the cheap car check', () => {
  it('accepts a well-formed car and names the field of a malformed one (through the schema)', () => {
    const good = { car_alias: 'a', name: 'A', prices: {}, seats: 4 };
    expect(plainCarCheck(good)).toBe(true);
    expect(plainCarCheck({ ...good, seats: 'four' })).toBe(false);
    const r = STREAM_PAGE_SCHEMA.safeParse({ cars: [good, { ...good, name: 7 }], total: 2, has_more: false });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues[0].path).toEqual(['cars', 1, 'name']);
    expect(STREAM_PAGE_SCHEMA.safeParse({ cars: [], total: '2', has_more: false }).success).toBe(false);
  });
});

describe('carsText: the server bytes of the cars printed', () => {
  const page = (body: string) => body;
  it('a whole page with bare commas is one slice of the body; otherwise each car, comma-joined', () => {
    const tight = page('{"data":{"cars":[{"car_alias":"a","x":[1,2]},{"car_alias":"b"},{"car_alias":"c"}],"total":3,"has_more":false}}');
    expect(carsText(tight, [0, 1, 2])).toBe('{"car_alias":"a","x":[1,2]},{"car_alias":"b"},{"car_alias":"c"}');
    expect(carsText(tight, [0, 2])).toBe('{"car_alias":"a","x":[1,2]},{"car_alias":"c"}');
    const spaced = page('{ "data": { "cars": [ {"car_alias":"a"} ,\n {"car_alias":"b"} ], "total": 2, "has_more": false } }');
    expect(carsText(spaced, [0, 1])).toBe('{"car_alias":"a"},{"car_alias":"b"}');
    expect(carsText(page('{"data":{"cars":[{"car_alias":"a"}],"total":1,"has_more":false}}'), [0])).toBe('{"car_alias":"a"}');
  });
});
