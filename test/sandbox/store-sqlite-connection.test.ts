// What the SQLite store promises about its connection and its transactions, seen from the
// connection itself: node:sqlite's DatabaseSync is wrapped for the test so that the store's
// own connection can be asked for its settings and given a temporary trigger (a TEMP trigger
// lives on that connection only: the file never holds it). Node 22.13+ only, like
// store-sqlite.test.ts; .ci/extra runs it on Node 22 and 24.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SqliteDatabase, type SqliteModule, loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { openStore } from '../../src/sandbox/store.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { FIXED_NOW, createOfFreeCar, newKey, tempDir, tripBody } from './harness.js';

const sqlite = loadSqlite();
const now = () => FIXED_NOW;
const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

type Connection = SqliteDatabase & { function(name: string, fn: (...args: unknown[]) => unknown): void };

describe.skipIf(!sqlite)('the SQLite store, seen from its connection', () => {
  let dir: string;
  let cleanup: () => void;
  /** Every connection opened through node:sqlite while a test runs, with its path. */
  let opened: { path: string; db: Connection }[];
  let original: SqliteModule['DatabaseSync'];
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    opened = [];
    const mod = sqlite as SqliteModule;
    original = mod.DatabaseSync;
    const Base = original as unknown as new (path: string, options?: object) => Connection;
    mod.DatabaseSync = class extends Base {
      constructor(...args: [string, object?]) {
        super(...args);
        opened.push({ path: args[0], db: this });
      }
    } as unknown as SqliteModule['DatabaseSync'];
  });
  afterEach(() => {
    (sqlite as SqliteModule).DatabaseSync = original;
    cleanup();
  });
  /** A connection of the test's own, not recorded. */
  const observer = (path: string) => new original(path) as Connection;
  const pragma = (db: SqliteDatabase, name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0];

  it('writes the state with synchronous=FULL, in WAL, with the busy timeout asked for', async () => {
    const statePath = join(dir, 'state.json');
    for (const [busyTimeoutMs, expected] of [[undefined, 5000], [250, 250]] as const) {
      opened = [];
      const store = await openStore({ statePath, now, busyTimeoutMs });
      await store.transact((s) => {
        s.usedPromos.x = ['1'];
      });
      // the state's own connection is the only one until a rate budget is counted
      expect(opened.map((o) => o.path)).toEqual([statePath]);
      const db = opened[0].db;
      // FULL (2): a commit is on disk before its caller is answered; NORMAL (1) could lose it on a power cut
      expect(pragma(db, 'synchronous')).toBe(2);
      expect(pragma(db, 'journal_mode')).toBe('wal');
      expect(pragma(db, 'busy_timeout')).toBe(expected);
      // the rate counts get a connection of their own, without fsync (a crash forgets a minute's counts)
      store.sharedCounts?.spend('catalog\u0000ip', 1, 10);
      expect(opened.map((o) => o.path)).toEqual([statePath, statePath]);
      expect(pragma(opened[1].db, 'synchronous')).toBe(0);
      expect(pragma(opened[1].db, 'busy_timeout')).toBe(expected);
      await store.close();
    }
  });

  it('a create is one transaction: a write failing after its reservation and invoices keeps none of them, and no other connection sees half of it', async () => {
    const statePath = join(dir, 'state.json');
    const sb = await startSandbox({ statePath, now, quiet: true, store: 'sqlite', config: { maxActiveReservations: 100 } });
    const watcher = observer(statePath);
    try {
      const db = opened.find((o) => o.path === statePath)?.db as Connection;
      const count = (coll: string) => Number(watcher.prepare('SELECT count(*) AS n FROM records WHERE collection = ?').get(coll)?.n);
      const counts = () => ({ reservations: count('reservations'), invoices: count('invoices'), idempotency: count('idempotency') });
      // Each record the store inserts on its connection is reported here, in order; at the
      // idempotency record (the change's last write) another connection looks at the file.
      let written: string[] = [];
      let seenMidway: ReturnType<typeof counts> | null = null;
      db.function('probe', (collection) => {
        written.push(String(collection));
        if (collection === 'idempotency') seenMidway = counts();
        return null;
      });
      db.exec(`CREATE TEMP TRIGGER probe_inserts AFTER INSERT ON main.records BEGIN SELECT probe(NEW.collection); END`);

      const create = await createOfFreeCar(sb, FROM, TO);

      // a create that commits: until its commit, another connection sees nothing of it
      const before = counts();
      const ok = await create(newKey());
      expect(ok.status).toBe(200);
      expect(written.indexOf('reservations')).toBeGreaterThanOrEqual(0);
      expect(written.indexOf('invoices')).toBeGreaterThan(written.indexOf('reservations'));
      expect(written.at(-1)).toBe('idempotency');
      expect(seenMidway).toEqual(before);
      const after = counts();
      expect(after.reservations).toBe(before.reservations + 1);
      expect(after.invoices).toBeGreaterThan(before.invoices);
      expect(after.idempotency).toBe(before.idempotency + 1);
      const trips = async () => ((await fetch(`${sb.adminUrl}/reservations?customer=dana`).then((r) => r.json())) as any).uuids as string[];
      const tripsAfter = await trips();

      // the same create, its last write failing (after the reservation and invoices were written)
      db.exec(`CREATE TEMP TRIGGER fail_idempotency AFTER INSERT ON main.records WHEN NEW.collection = 'idempotency' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      written = [];
      seenMidway = null;
      const key = newKey();
      const failed = await create(key);
      expect(failed.status).toBe(500);
      expect(await failed.text()).toContain('injected failure');
      expect(written.slice(0, 2)).toEqual(['reservations', 'invoices']);
      expect(seenMidway).toEqual(after);
      expect(counts(), 'nothing of the failed change is kept').toEqual(after);
      // and the sandbox itself answers from what was committed, not from the rolled-back rows
      expect(await trips()).toEqual(tripsAfter);

      // once writes work again, a retry with the same key creates it once
      db.exec('DROP TRIGGER temp.fail_idempotency');
      const retried = await create(key);
      expect(retried.status).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expect(counts().reservations).toBe(after.reservations + 1);
      expect(pragma(watcher, 'integrity_check')).toBe('ok');
    } finally {
      watcher.close();
      await sb.close();
    }
  });

  it('imports the older JSON document with its idempotency records and payments', async () => {
    const statePath = join(dir, 'state.json');
    // the older JSON document is what the Node 20 store writes
    const old = await startSandbox({ statePath, now, quiet: true, store: 'json' });
    const list = (await fetch(`${old.baseUrl}/cars?limit=200&date_from=${FROM}&date_to=${TO}`).then((r) => r.json())) as any;
    const alias = list.data.cars.find((c: any) => c.is_available).car_alias;
    const key = newKey();
    const body = JSON.stringify(tripBody(alias, FROM, TO));
    const create = (base: string) =>
      fetch(`${base}/my/reservation`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${old.keys.booking_write}`, 'Idempotency-Key': key, 'Content-Type': 'application/json' },
        body,
      });
    const created = await create(old.baseUrl);
    expect(created.status).toBe(200);
    const uuid = ((await created.json()) as any).data as string;
    const admin = (base: string, path: string, payload: unknown) =>
      fetch(base + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload) });
    expect((await admin(old.adminUrl, '/pay', { reservation_uuid: uuid, payment_type: 'rent' })).status).toBe(200);
    expect((await admin(old.adminUrl, '/pay', { reservation_uuid: uuid, payment_type: 'deposit' })).status).toBe(200);
    await old.close();
    const text = readFileSync(statePath, 'utf8');
    expect(text.trimStart().startsWith('{')).toBe(true);
    const doc = JSON.parse(text);
    const idempotencyKeys = Object.keys(doc.idempotency);
    expect(idempotencyKeys.length).toBeGreaterThan(0);

    const store = await openStore({ statePath, now });
    expect(store.kind).toBe('sqlite');
    const s = store.read();
    expect(Object.keys(s.idempotency).sort()).toEqual(idempotencyKeys.sort());
    for (const k of idempotencyKeys) expect(s.idempotency[k]).toEqual(doc.idempotency[k]);
    const invoices = Object.values(s.invoices).filter((i) => i.reservation_uuid === uuid);
    expect(invoices.map((i) => `${i.type} ${i.billing_status}`).sort()).toEqual(['DEPOSIT HOLD', 'RENT PAID']);
    for (const i of invoices) expect(i).toEqual(doc.invoices[i.id]);
    await store.close();

    // the sandbox on the imported database replays the create, and shows the payment
    const sb = await startSandbox({ statePath, now, quiet: true });
    try {
      expect(sb.store).toBe('sqlite');
      const replay = await create(sb.baseUrl);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(((await replay.json()) as any).data).toBe(uuid);
      const paid = (await fetch(`${sb.baseUrl}/my/reservation/${uuid}/invoices`, { headers: { 'X-API-Key': sb.keys.booking_write } }).then((r) => r.json())) as any;
      expect(JSON.stringify(paid)).toContain('PAID');
    } finally {
      await sb.close();
    }
  });
});
