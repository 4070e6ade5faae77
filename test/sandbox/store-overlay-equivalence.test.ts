// A dry run's overlay (sqlite-overlay.ts) answers the store's statements in JavaScript over
// the file's rows. Here the same operations (creates, payments, cancels, a failed change, a
// rate budget) run on the real SQLite store and on a dry run over an identical file, and
// after every step both must read the same: every record, every tag lookup the rules make,
// the index of a car's new trips by checkout, the meta, and the budgets.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/sandbox/config.js';
import { fleetOf } from '../../src/sandbox/context.js';
import { licenceState } from '../../src/sandbox/facts.js';
import { cancelReservation, createReservation, payRentInvoice } from '../../src/sandbox/rules.js';
import { loadSqlite, sqliteOpensUrls } from '../../src/sandbox/sqlite-load.js';
import { COLLECTIONS, type SandboxState, anchorDay, newOfCarSince, taggedCountAtMost, taggedKeys, tagsOf } from '../../src/sandbox/state.js';
import { type Store, openStore } from '../../src/sandbox/store.js';

const IN_PLACE = loadSqlite() !== null && sqliteOpensUrls();
const NOW = new Date('2026-03-10T18:00:00Z');
const now = () => NOW;

let dir: string;
let real: Store;
let dry: Store;
beforeAll(async () => {
  if (!IN_PLACE) return;
  dir = mkdtempSync(join(tmpdir(), 'carrental-overlay-'));
  const seeded = await openStore({ statePath: join(dir, 'a.db'), now, kind: 'sqlite' });
  await seeded.close();
  copyFileSync(join(dir, 'a.db'), join(dir, 'b.db'));
  real = await openStore({ statePath: join(dir, 'a.db'), now, kind: 'sqlite' });
  dry = await openStore({ statePath: join(dir, 'b.db'), now, snapshot: true });
});
afterAll(async () => {
  await real?.close();
  await dry?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Everything the rules read, as one comparable value. */
function view(s: SandboxState, carIds: number[]) {
  const tags = new Set<string>();
  const records: Record<string, unknown> = {};
  for (const coll of COLLECTIONS) {
    const keys = Object.keys(s[coll]);
    records[coll] = Object.fromEntries(keys.map((k) => [k, s[coll][k]]));
    for (const k of keys) for (const t of tagsOf(coll, s[coll][k])) tags.add(`${coll}\t${t}`);
  }
  const lookups = Object.fromEntries(
    [...tags].sort().map((ct) => {
      const [coll, tag] = ct.split('\t') as [(typeof COLLECTIONS)[number], string];
      return [ct, { keys: [...taggedKeys(s, coll, tag)], count: taggedCountAtMost(s, coll, tag) }];
    }),
  );
  const day = anchorDay(s);
  // as a set: its callers (availability.ts) ask whether any overlaps, and sort what they keep
  const newOfCar = Object.fromEntries(carIds.map((id) => [id, newOfCarSince(s, id, day).map((r) => r.uuid).sort()]));
  const meta = { seed: s.seed, fleetSize: s.fleetSize, anchor: s.anchor, clockOffsetMs: s.clockOffsetMs, customers: s.customers };
  return { records, lookups, newOfCar, meta };
}

describe.skipIf(!IN_PLACE)("a dry run's overlay reads what the real store reads", () => {
  it('after every create, payment, cancel, failed change and budget spend', async () => {
    const config = resolveConfig({ maxActiveReservations: 1000 });
    let n = 0;
    // the same ids on both sides
    const envOf = (draft: SandboxState) => ({ now: NOW, newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, config, fleet: fleetOf(draft), anchorDay: anchorDay(draft) });
    const both = async (fn: (draft: SandboxState, side: 'real' | 'dry') => void) => {
      const start = n;
      await real.transact((d) => fn(d, 'real'));
      const after = n;
      n = start;
      await dry.transact((d) => fn(d, 'dry'));
      expect(n).toBe(after);
    };
    const cars = fleetOf(real.read()).cars.slice(0, 6);
    const carIds = cars.map((c) => c.car_id);
    const compare = async (step: string) => {
      await nextTurn();
      expect(view(dry.read(), carIds), step).toEqual(view(real.read(), carIds));
    };
    await compare('opened');

    const uuids: string[] = [];
    const day = (d: number) => new Date(NOW.getTime() + d * 86_400_000).toISOString().slice(0, 10);
    for (let i = 0; i < 12; i++) {
      await both((draft) => {
        const env = envOf(draft);
        const drivers = draft.customers.filter((c) => licenceState(c, NOW).approved);
        const car = cars[i % cars.length];
        const body = { car_alias: car.car_alias, date_checkin: `${day(5 + 4 * i)}T10:00`, date_checkout: `${day(7 + 4 * i)}T10:00`, options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } };
        const uuid = createReservation(draft, env, drivers[i % drivers.length], body);
        if (uuids.length === i) uuids.push(uuid);
        if (i % 2 === 0) payRentInvoice(draft, env, uuid);
      });
      await compare(`create ${i}`);
    }
    for (const i of [1, 4, 7]) {
      await both((draft) => {
        const rec = draft.reservations[uuids[i]];
        const customer = draft.customers.find((c) => c.id === rec.customer_id)!;
        cancelReservation(draft, envOf(draft), customer, uuids[i]);
      });
      await compare(`cancel ${i}`);
    }
    // a change that throws keeps nothing on either side
    for (const store of [real, dry]) {
      await expect(
        store.transact((draft) => {
          delete draft.reservations[uuids[0]];
          draft.clockOffsetMs = 42;
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
    }
    await compare('rolled back');
    await both((draft) => void (draft.clockOffsetMs = 86_400_000));
    await compare('meta');

    const spends = (store: Store) => [1, 1, 1, 1, 2].map((window) => store.sharedCounts!.spend('key:x', window, 3));
    expect(spends(dry)).toEqual(spends(real));
    real.sharedCounts!.reset();
    dry.sharedCounts!.reset();
    expect(spends(dry)).toEqual(spends(real));

    await both((draft) => {
      draft.reservations[uuids[2]] = { ...draft.reservations[uuids[2]], status: 'complete' } as never;
    });
    await compare('a trip no longer new');

    // records that were on file before the dry run: its changes must hide the file's tags of them
    const onFile = Object.values(real.read().reservations).filter((r) => r.status === 'new' && !uuids.includes(r.uuid));
    expect(onFile.length).toBeGreaterThanOrEqual(2);
    await both((draft) => {
      const rec = draft.reservations[onFile[0].uuid];
      cancelReservation(draft, envOf(draft), draft.customers.find((c) => c.id === rec.customer_id)!, rec.uuid);
    });
    await compare('a trip on file cancelled');
    await both((draft) => {
      draft.reservations[onFile[1].uuid] = { ...draft.reservations[onFile[1].uuid], status: 'complete' } as never;
      const invoice = Object.keys(draft.invoices).find((k) => draft.invoices[k].reservation_uuid === onFile[1].uuid);
      if (invoice) delete draft.invoices[invoice];
    });
    await compare('a trip on file completed, an invoice of it deleted');
    await real.reseed();
    await dry.reseed();
    await compare('reseeded');
  });
});
