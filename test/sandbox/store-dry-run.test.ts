// A dry run on an SQLite state (issue 35: "every embedded command costs at most 10 ms more at
// 50,000 reservations"): it reads the database in place, whatever its size, and keeps its own
// changes in memory over it; it used to copy the whole file into the temporary directory
// first (about 0.1 s for 200 MB, 1.9 s through a live server's -wal). Here: no copy is made,
// nothing beside the file is created or changed, a live writer's last commit is seen, the
// dry run sees its own changes as the real store would (a create, its trip in the list, the
// car taken for those dates, its cancel), a file another process wrote meanwhile is read
// again, and one that cannot be gives "try again", never "damaged".
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { overlayConnection } from '../../src/sandbox/sqlite-overlay.js';
import { SCHEMA } from '../../src/sandbox/sqlite-schema.js';
import { loadSqlite, sqliteOpensUrls } from '../../src/sandbox/sqlite-load.js';
import { openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, newKey, tripBody } from './harness.js';

const SQLITE = loadSqlite() !== null;
/** Node 22.13's node:sqlite opens no `file:` URL: there the dry run still works on a copy. */
const IN_PLACE = SQLITE && sqliteOpensUrls();

let dir: string;
let tmp: string;
let savedTmp: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-dry-run-test-'));
  // the dry run's own temporary folder, watched for copies
  tmp = mkdtempSync(join(tmpdir(), 'carrental-dry-run-tmp-'));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(dir, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
});

const now = () => FIXED_NOW;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const contents = (folder: string) => Object.fromEntries(readdirSync(folder).map((n) => [n, readFileSync(join(folder, n)).toString('base64')]));

async function seeded(): Promise<string> {
  const path = join(dir, 'state.db');
  const store = await openStore({ statePath: path, now, kind: 'sqlite' });
  await store.transact((s) => void (s.clockOffsetMs = 3_600_000));
  await store.close();
  return path;
}

describe.skipIf(!IN_PLACE)('a dry run on an SQLite state, read in place', () => {
  it('makes no copy and creates or changes nothing beside the file, however much it changes', async () => {
    const path = await seeded();
    const before = contents(dir);
    const mtime = statSync(path).mtimeMs;
    const store = await openStore({ statePath: path, now, snapshot: true });
    expect(readdirSync(tmp), 'no copy in the temporary folder').toEqual([]);
    expect(store.read().clockOffsetMs).toBe(3_600_000);
    await store.transact((s) => {
      s.clockOffsetMs = 0;
      s.idempotency['dry:1'] = { operation: 'createReservation', fingerprint: 'f', status: 200, body: '{}', created_at: '2026-03-10T18:00:00Z' };
    });
    expect(store.read().clockOffsetMs).toBe(0);
    expect(store.read().idempotency['dry:1']?.fingerprint).toBe('f');
    expect(Object.keys(store.read().idempotency)).toContain('dry:1');
    // a transaction that throws keeps nothing, here too
    await expect(
      store.transact((s) => {
        s.clockOffsetMs = 99;
        delete s.idempotency['dry:1'];
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(store.read().clockOffsetMs).toBe(0);
    expect(store.read().idempotency['dry:1']).toBeDefined();
    expect(readdirSync(tmp)).toEqual([]);
    await store.close();
    expect(contents(dir)).toEqual(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
    // the real state never saw any of it
    const real = await openStore({ statePath: path, now, kind: 'sqlite' });
    expect(real.read().clockOffsetMs).toBe(3_600_000);
    expect(real.read().idempotency['dry:1']).toBeUndefined();
    await real.close();
  });

  it("with a live writer: read in place through the writer's -wal (its last commit seen), no copy", async () => {
    const path = await seeded();
    const live = await openStore({ statePath: path, now, kind: 'sqlite' });
    await live.transact((s) => void (s.clockOffsetMs = 7_200_000));
    const store = await openStore({ statePath: path, now, snapshot: true });
    expect(readdirSync(tmp)).toEqual([]);
    expect(store.read().clockOffsetMs).toBe(7_200_000);
    await store.transact((s) => void (s.clockOffsetMs = 0));
    expect(store.read().clockOffsetMs).toBe(0);
    await store.close();
    expect(live.read().clockOffsetMs).toBe(7_200_000);
    await live.close();
  });

  it("a dry run's sandbox: its create, the trip in the list, its payment, the car taken for those dates, its cancel; none of it on file", async () => {
    const path = await seeded();
    const before = contents(dir);
    const sb = await startSandbox({ statePath: path, snapshot: true, now, quiet: true, config: { maxActiveReservations: 100 } });
    try {
      expect(sb.store).toBe('memory');
      const key = sb.keys.booking_write;
      const call = (method: string, p: string, body?: unknown) =>
        fetch(sb.baseUrl + p, {
          method,
          headers: {
            ...(p.startsWith('/cars') ? {} : { Authorization: `Bearer ${key}` }),
            ...(method === 'GET' ? {} : { 'Idempotency-Key': newKey() }),
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
      const from = '2026-04-14T10:00';
      const to = '2026-04-17T10:00';
      const cars = await call('GET', `/cars?city=la&limit=200&date_from=${from}&date_to=${to}`);
      expect(cars.status, JSON.stringify(cars.json)).toBe(200);
      const alias = cars.json.data.cars.find((c: { is_available: boolean }) => c.is_available).car_alias as string;
      const tripsBefore = await call('GET', '/my/trips');

      const created = await call('POST', '/my/reservation', tripBody(alias, from, to));
      expect(created.status, JSON.stringify(created.json)).toBe(200);
      const uuid = created.json.data as string;
      const trips = await call('GET', '/my/trips');
      expect(trips.json.data.active.map((t: { uuid: string }) => t.uuid)).toContain(uuid);
      expect(trips.json.data.active.length).toBe(tripsBefore.json.data.active.length + 1);
      // paid, the car's new trip blocks those dates (the index by car and checkout, through the overlay)
      const paid = await fetch(`${sb.adminUrl}/pay`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ reservation_uuid: uuid, payment_type: 'rent' }) });
      expect(paid.status, await paid.clone().text()).toBe(200);
      const again = await call('GET', `/cars?city=la&limit=200&date_from=${from}&date_to=${to}`);
      expect(again.json.data.cars.find((c: { car_alias: string }) => c.car_alias === alias)?.is_available).toBe(false);
      const twice = await call('POST', '/my/reservation', tripBody(alias, from, to));
      expect(twice.status).toBe(409);

      const cancelled = await call('DELETE', `/my/reservation/${uuid}`);
      expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
      const after = await call('GET', '/my/trips');
      expect(after.json.data.active.map((t: { uuid: string }) => t.uuid)).not.toContain(uuid);
      expect(after.json.data.history.map((t: { uuid: string }) => t.uuid)).toContain(uuid);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      await sb.close();
    }
    expect(contents(dir)).toEqual(before);
  });

  it('a file another process wrote under it (a checkpoint): read again at the next look, the dry run\'s own changes kept', async () => {
    const path = await seeded();
    const store = await openStore({ statePath: path, now, snapshot: true });
    await store.transact((s) => void (s.idempotency['dry:1'] = { operation: 'createReservation', fingerprint: 'mine', status: 200, body: '{}', created_at: '2026-03-10T18:00:00Z' }));
    // another process commits and closes: its checkpoint writes the file the dry run reads
    const other = await openStore({ statePath: path, now, kind: 'sqlite' });
    await other.transact((s) => {
      s.clockOffsetMs = 5_000;
      for (let i = 0; i < 50; i++) s.idempotency[`other:${i}`] = { operation: 'createReservation', fingerprint: 'x'.repeat(2000), status: 200, body: '{}', created_at: '2026-03-10T18:00:00Z' };
    });
    await other.close();
    expect(readdirSync(dir)).toEqual(['state.db']);
    await nextTurn();
    expect(store.read().clockOffsetMs).toBe(5_000);
    expect(store.read().idempotency['other:49']?.fingerprint).toHaveLength(2000);
    expect(store.read().idempotency['dry:1']?.fingerprint).toBe('mine');
    await store.transact((s) => void (s.clockOffsetMs = 0));
    expect(store.read().clockOffsetMs).toBe(0);
    await store.close();
    expect(readdirSync(dir)).toEqual(['state.db']);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a file changed under it that cannot be read again in place (a -wal no process holds): "try again", never "damaged"', async () => {
    const path = await seeded();
    const store = await openStore({ statePath: path, now, snapshot: true });
    expect(store.read().clockOffsetMs).toBe(3_600_000);
    writeFileSync(`${path}-wal`, '');
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    await nextTurn();
    expect(() => store.read()).toThrow(/changed while this dry run read it \(another process wrote it\); try again/);
    await expect(store.transact((s) => void (s.clockOffsetMs = 0))).rejects.toMatchObject({ name: 'StateBusyError' });
    await store.close();
  });
});

describe.skipIf(!SQLITE)("a dry run's read that fails", () => {
  /** An overlay over a database whose connection is closed under it: every read of the file fails. */
  function failing(current: boolean) {
    const { DatabaseSync } = loadSqlite()!;
    const db = new DatabaseSync(':memory:');
    db.exec(SCHEMA);
    const conn = overlayConnection({ db, current: () => current }, () => {
      throw new Error('not reopened here');
    }, () => new Error('changed while this dry run read it'));
    db.close();
    return conn;
  }

  it('on a file another process changed: "changed", whatever SQLite said', () => {
    expect(() => failing(false).st.get.get('reservations', 'x')).toThrow('changed while this dry run read it');
  });

  it('on an unchanged file: SQLite\'s own error, for the store to word', () => {
    expect(() => failing(true).st.get.get('reservations', 'x')).toThrow(/finalized|not open/);
  });
});

describe.skipIf(!SQLITE || IN_PLACE)('a dry run on an SQLite state, on a Node whose node:sqlite opens no file: URL', () => {
  it('works on a private copy, removed when it closes; nothing beside the file changes', async () => {
    const path = await seeded();
    const before = contents(dir);
    const store = await openStore({ statePath: path, now, snapshot: true });
    expect(readdirSync(tmp).filter((n) => n.startsWith('carrental-dry-run-'))).toHaveLength(1);
    await store.transact((s) => void (s.clockOffsetMs = 0));
    expect(store.read().clockOffsetMs).toBe(0);
    await store.close();
    expect(readdirSync(tmp)).toEqual([]);
    expect(contents(dir)).toEqual(before);
  });
});
