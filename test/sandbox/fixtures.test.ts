import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BODY_TYPES } from '../../src/api/schemas.js';
import { parseLocal } from '../../src/sandbox/clock.js';
import { buildFleet } from '../../src/sandbox/fleet.js';
import { sandboxExtraCredentials, sandboxKeys, seedState } from '../../src/sandbox/fixtures.js';
import { mulberry32 } from '../../src/sandbox/prng.js';

describe('keys', () => {
  it('are svc_ + 32 hex characters, distinct, stable for a seed and different across seeds', () => {
    const keys = { ...sandboxKeys(1), ...sandboxExtraCredentials(1) };
    const svc = Object.entries(keys).filter(([k]) => k !== 'app_token').map(([, v]) => v);
    for (const k of svc) expect(k).toMatch(/^svc_[0-9a-f]{32}$/);
    expect(keys.app_token).toMatch(/^app_[0-9a-f]{32}$/);
    expect(new Set(Object.values(keys)).size).toBe(Object.values(keys).length);
    expect(sandboxKeys(1)).toEqual(sandboxKeys(1));
    expect(sandboxKeys(2).booking_write).not.toBe(sandboxKeys(1).booking_write);
    expect(sandboxKeys()).toEqual(sandboxKeys(1));
  });

  it('are the ones docs/sandbox.md prints for seed 1', () => {
    const doc = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
    for (const [name, value] of Object.entries({ ...sandboxKeys(1), ...sandboxExtraCredentials(1) })) {
      expect(doc).toMatch(new RegExp(`\\| \`${name}\`( \\(extra\\))? \\| \`${value}\``));
    }
  });
});

describe('prng', () => {
  it('mulberry32 is deterministic and in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
  });
});

describe('fleet', () => {
  const fleet = buildFleet(1, '2026-03-10', 300);

  it('is deterministic, and a larger fleet extends a smaller one car by car', () => {
    expect(buildFleet(7, '2026-03-10', 40).cars).toEqual(buildFleet(7, '2026-03-10', 40).cars.map((c) => ({ ...c })));
    const big = buildFleet(1, '2026-03-10', 5000);
    expect(big.cars).toHaveLength(5000);
    expect(big.cars.slice(0, 300)).toEqual(fleet.cars);
    expect(buildFleet(2, '2026-03-10', 300).cars[40]).not.toEqual(fleet.cars[40]);
  });

  it('covers both cities, every body type, several makes, hot deals, extras and open-ended blocks', () => {
    expect(new Set(fleet.cars.map((c) => c.city))).toEqual(new Set(['la', 'miami']));
    expect(new Set(fleet.cars.map((c) => c.body_type))).toEqual(new Set(BODY_TYPES));
    expect(new Set(fleet.cars.map((c) => c.make_id)).size).toBeGreaterThanOrEqual(10);
    expect(fleet.cars.some((c) => c.is_hot_deal)).toBe(true);
    expect(fleet.cars.some((c) => c.blocked.some((b) => b.to === null))).toBe(true);
    expect(new Set(fleet.cars.flatMap((c) => c.blocked.map((b) => b.kind)))).toEqual(new Set(['booked', 'maintenance']));
    const extras = new Set(fleet.cars.flatMap((c) => c.prices.extras.map((e) => e.item_type)));
    for (const e of ['child_seat', 'gps', 'cooler']) expect(extras).toContain(e);
  });

  it('has unique aliases and ids, whole-cent prices, free minimum protection and valid blocks', () => {
    expect(new Set(fleet.cars.map((c) => c.car_alias)).size).toBe(300);
    expect(new Set(fleet.cars.map((c) => c.car_id)).size).toBe(300);
    // looked up by alias or id, a car is the one of the list (generated once, on demand)
    const fresh = buildFleet(1, '2026-03-10', 301);
    const car300 = fresh.byAlias.get(fleet.cars[299].car_alias);
    expect(car300).toEqual(fleet.cars[299]);
    expect(fresh.byId.get(1300)).toBe(car300);
    expect(fresh.cars[299]).toBe(car300);
    for (const c of fleet.cars) {
      expect(fleet.byAlias.get(c.car_alias)).toBe(c);
      expect(fleet.byId.get(c.car_id)).toBe(c);
    }
    const first = fleet.cars[0].car_alias;
    for (const unknown of [`x${first}`, first.replace(/\d+$/, '1301'), first.replace(/\d+$/, '1000'), first.replace(/-\d+$/, ''), `${first}.5`]) {
      expect(fleet.byAlias.get(unknown)).toBeUndefined();
    }
    expect(fleet.byId.get(1000)).toBeUndefined();
    expect(fleet.byId.get(1301)).toBeUndefined();
    for (const c of fleet.cars) {
      expect(Number.isInteger(c.day_rate_cents) && c.day_rate_cents > 0).toBe(true);
      expect(c.prices.protection).toEqual({ minimum: 0, standard: expect.any(Number) });
      for (const b of c.blocked) {
        expect(parseLocal(b.from)).not.toBeNull();
        if (b.to !== null) expect(parseLocal(b.to)! > parseLocal(b.from)!).toBe(true);
      }
      for (const p of c.photos) expect(() => new URL(p)).not.toThrow();
    }
  });
});

describe('seedState', () => {
  it('is a pure function of seed, fleet size and anchor, and survives JSON', () => {
    const anchor = new Date('2026-03-10T18:00:00Z');
    const a = seedState(1, 300, anchor);
    expect(JSON.stringify(a)).toBe(JSON.stringify(seedState(1, 300, anchor)));
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
    expect(JSON.stringify(seedState(2, 300, anchor))).not.toBe(JSON.stringify(a));
  });

  it('seeds five customers with their keys, the demo trips and the used one-time promo', () => {
    const s = seedState(1, 300, new Date('2026-03-10T18:00:00Z'));
    expect(s.customers.map((c) => c.handle)).toEqual(['dana', 'omar', 'lee', 'sam', 'pat']);
    const dana = s.customers[0];
    expect(dana.keys.map((k) => k.key)).toEqual(expect.arrayContaining([sandboxKeys(1).booking_write, sandboxKeys(1).read_only]));
    const danas = Object.values(s.reservations).filter((r) => r.customer_id === dana.id);
    expect(danas.length).toBe(8);
    expect(new Set(danas.map((r) => r.status))).toEqual(new Set(['new', 'complete', 'cancelled']));
    expect(s.usedPromos[dana.id]).toEqual(['FIRSTRIDE']);
    expect(Object.values(s.reservations).filter((r) => r.customer_id === s.customers[1].id).length).toBe(2);
  });

  it('anchors fixture dates to the seeding day (the date in Los Angeles) whatever the time of day', () => {
    // 16:59 in Los Angeles, and 20:59 on 2026-03-10 there at 03:59Z the next UTC day: one seeding day
    const s = seedState(1, 300, new Date('2026-03-10T23:59:00Z'));
    expect(s.anchor).toBe('2026-03-10T12:00:00.000Z');
    expect(seedState(1, 300, new Date('2026-03-11T03:59:00Z'))).toEqual(s);
    expect(Object.values(s.reservations).every((r) => /T10:00$/.test(r.date_checkin))).toBe(true);
  });
});
