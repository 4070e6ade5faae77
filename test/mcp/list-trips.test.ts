// list_trips in pages (issue 34): with ~50 trips every answer stays under 10,000 bytes,
// following next_cursor reaches every trip exactly once, status and dates filter, and the
// call without arguments still answers (its first page).
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { admin, freeCars, test } from '../booking/sandbox.js';
import { errorOf, serve, structured } from './in-process.js';

const DATES = [
  { from: '2026-12-01T10:00', to: '2026-12-04T10:00' },
  { from: '2026-12-10T10:00', to: '2026-12-12T10:00' },
];

/** Books `count` more trips for the demo customer (cancelling every third), straight through the API. */
async function manyTrips(sb: RunningSandbox, count: number): Promise<void> {
  await admin(sb, 'PATCH', '/config', { maxActiveReservations: 200 });
  const headers = { authorization: `Bearer ${sb.keys.booking_write}`, 'content-type': 'application/json' };
  let made = 0;
  for (const dates of DATES) {
    for (const alias of await freeCars(sb, Math.ceil(count / DATES.length), dates)) {
      if (made === count) return;
      const res = await fetch(`${sb.baseUrl}/my/reservation`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ car_alias: alias, date_checkin: dates.from, date_checkout: dates.to, options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const uuid = ((await res.json()) as { data: string }).data;
      if (made % 3 === 0) {
        const del = await fetch(`${sb.baseUrl}/my/reservation/${uuid}`, { method: 'DELETE', headers: { ...headers, 'idempotency-key': randomUUID() } });
        expect(del.status).toBe(200);
      }
      made++;
    }
  }
  expect(made).toBe(count);
}

const uuids = (page: Record<string, any>) => [...page.active, ...page.history].map((t: { uuid: string }) => t.uuid);

describe('list_trips pages', () => {
  test('~50 trips: every answer under 10,000 bytes; next_cursor reaches every trip exactly once; no arguments still works', async ({ sb, home }) => {
    await manyTrips(sb, 48);
    const s = await serve(sb, home, { argv: [] });
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      let total = 0;
      do {
        const r = await s.call('list_trips', cursor ? { cursor, limit: 50 } : { limit: 50 });
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        expect(s.lastSize()).toBeLessThanOrEqual(10_000);
        const page = structured(r);
        expect(page.returned).toBe(uuids(page).length);
        seen.push(...uuids(page));
        total = page.total;
        cursor = page.next_cursor;
        expect(!!cursor).toBe(page.has_more);
        pages++;
      } while (cursor && pages < 100);
      expect(total).toBeGreaterThanOrEqual(48);
      expect(pages).toBeGreaterThan(1);
      expect(seen).toHaveLength(total);
      expect(new Set(seen).size).toBe(total);

      const first = await s.call('list_trips', {});
      expect(s.lastSize()).toBeLessThanOrEqual(10_000);
      expect(structured(first)).toMatchObject({ has_more: true, returned: expect.any(Number) });
      expect(structured(first).returned).toBeLessThanOrEqual(10);
      expect(structured(first).active.length).toBeGreaterThan(0);
    } finally {
      await s.stop();
    }
  });

  test('filters: status (a status, or active / history) and dates overlapping the range; a cursor belongs to its filters', async ({ sb, home }) => {
    await manyTrips(sb, 12);
    const s = await serve(sb, home, { argv: [] });
    try {
      const all = async (args: Record<string, unknown>) => {
        const out: any[] = [];
        let cursor: string | undefined;
        do {
          const page = structured(await s.call('list_trips', { ...args, ...(cursor ? { cursor } : {}) }));
          out.push(...page.active, ...page.history);
          cursor = page.next_cursor;
        } while (cursor);
        return out;
      };
      const cancelled = await all({ status: 'cancelled' });
      expect(cancelled.length).toBeGreaterThanOrEqual(4);
      expect(cancelled.every((t) => t.status === 'cancelled')).toBe(true);
      const active = await all({ status: 'active' });
      expect(active.length).toBeGreaterThan(0);
      expect(active.every((t) => t.status !== 'cancelled')).toBe(true);

      const december10 = await all({ date_from: '2026-12-09T00:00', date_to: '2026-12-13T00:00' });
      expect(december10.length).toBeGreaterThanOrEqual(6);
      expect(december10.every((t) => t.date_checkout >= '2026-12-09T00:00' && t.date_checkin <= '2026-12-13T00:00')).toBe(true);
      expect(december10.some((t) => t.date_checkin === '2026-12-10T10:00')).toBe(true);
      expect(december10.some((t) => t.date_checkin === '2026-12-01T10:00')).toBe(false);

      const page = structured(await s.call('list_trips', { status: 'cancelled', limit: 1 }));
      const wrong = await s.call('list_trips', { status: 'new', cursor: page.next_cursor });
      expect(wrong.isError).toBe(true);
      expect(errorOf(wrong).message).toBe('this cursor was made for other filters: pass the same status, date_from and date_to as the call that returned it');
      const bad = await s.call('list_trips', { date_from: '2026-12-05T10:00', date_to: '2026-12-01T10:00' });
      expect(errorOf(bad).message).toBe('date_to (2026-12-01T10:00) must not be before date_from (2026-12-05T10:00)');
    } finally {
      await s.stop();
    }
  });
});
