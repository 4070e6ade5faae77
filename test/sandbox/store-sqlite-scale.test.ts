// The catalog and availability on the SQLite store do not read a car's history (issue 35:
// `--sandbox cars --json` cost +506 ms at 50,400 reservations): completed trips stay stored
// `new`, and every catalog page used to read each of them and its invoices. Counted here as
// the JSON parses of history rows while the catalog, a car's detail, a quote and a search
// with dates are answered; then a paid trip still ahead still blocks its car. Needs
// node:sqlite (Node 22.13+); bench/embedded-scale measures the time.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, type Harness, availableCar, newKey, reserve, startHarness, tempDir, tripBody } from './harness.js';

const sqlite = loadSqlite();
const HISTORY = 1500;
const MARK = 'history-of-the-car';

describe.skipIf(!sqlite)('the catalog on a state with a long history (SQLite store)', () => {
  let dir: string;
  let cleanup: () => void;
  let h: Harness | undefined;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.close();
    h = undefined;
    cleanup();
  });

  it('reads none of a car’s completed trips for the car list, its detail, a quote or a search with dates', async () => {
    const statePath = join(dir, 'state.json');
    const FROM = '2026-04-14T10:00';
    const TO = '2026-04-17T10:00';
    h = await startHarness({ statePath, store: 'sqlite', config: { maxActiveReservations: 100 } });
    const car = await availableCar(h, FROM, TO);
    const key = h.sb.keys.booking_write;
    const uuid = await reserve(h, key, tripBody(car.car_alias, FROM, TO));
    expect((await h.admin('POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' })).status).toBe(200);
    await h.close();

    // the car's history: trips that ended before today, stored `new` as completed trips are
    const store = await openStore({ statePath, now: () => FIXED_NOW });
    const model = store.read().reservations[uuid];
    await store.transact((draft) => {
      for (let i = 0; i < HISTORY; i++) {
        const day = new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString().slice(0, 10);
        const id = randomUUID();
        draft.reservations[id] = { ...model, uuid: id, date_checkin: `${day}T10:00`, date_checkout: `${day}T11:00`, description: MARK } as never;
      }
    });
    await store.close();

    h = await startHarness({ statePath, store: 'sqlite', config: { maxActiveReservations: 100 } });
    const parse = JSON.parse;
    let historyParsed = 0;
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (typeof text === 'string' && text.includes(MARK)) historyParsed++;
      return parse(text, reviver);
    });
    const list = await h.call('GET', '/cars?limit=200');
    const detail = await h.call('GET', `/cars/${car.car_alias}`);
    const search = await h.call('GET', `/cars?limit=200&date_from=2026-04-15T10:00&date_to=2026-04-16T10:00`);
    const quote = await h.call('POST', '/reservation/quote', { key, body: tripBody(car.car_alias, '2026-05-14T10:00', '2026-05-17T10:00') });
    expect([list.status, detail.status, search.status, quote.status]).toEqual([200, 200, 200, 200]);
    expect(historyParsed).toBe(0);

    // what is still ahead is read: the paid trip blocks its car
    expect(detail.json.data.blocked_ranges).toContainEqual({ from: FROM, kind: 'booked', to: TO });
    expect(search.json.data.cars.find((c: { car_alias: string }) => c.car_alias === car.car_alias).is_available).toBe(false);
    const again = await h.call('POST', '/my/reservation', { key, body: tripBody(car.car_alias, '2026-04-15T10:00', '2026-04-16T10:00'), idempotencyKey: newKey() });
    expect(again.json.error_code).toBe('car_not_available');
  }, 60_000);
});
