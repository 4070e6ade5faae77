// A dry run's connection to an SQLite state (sqlite-snapshot.ts decides when): the database
// read in place on a read-only connection, and the dry run's own changes kept in memory over
// it, so that what the dry run reads (a record, a tag lookup, the index by car and checkout,
// the meta, the rate budgets) is the state as its changes would leave it, and nothing is
// ever written. Opening costs the same at 50,000 reservations as at 100: nothing is copied.
// An immutable reader (sqlite-snapshot.ts says when) is opened again when the file changed.
//
// The statements are those of sqlite-schema.ts, answered from the overlay first: a record
// set or deleted here hides the file's row and the file's tags of it (a record's tags are
// recomputed from its JSON, as putRecord writes them). The lists keep SQLite's order (by
// key), except a car's new trips, whose callers (availability.ts) sort what they keep.
import { type SqliteDatabase, type SqliteStatement } from './sqlite-load.js';
import { type Statements, prepare } from './sqlite-schema.js';
import type { StateConnection } from './sqlite-state.js';
import type { SharedCounts } from './ratelimit.js';
import { type Collection, tagsOf } from './state.js';

type Row = Record<string, unknown>;

/** A statement answered in JavaScript; a use the store never makes throws. */
function statement(impl: { get?: (...p: unknown[]) => Row | undefined; all?: (...p: unknown[]) => Row[]; run?: (...p: unknown[]) => void }): SqliteStatement {
  const none = (what: string) => () => {
    throw new Error(`a dry run's statement has no ${what}()`);
  };
  return {
    get: impl.get ?? none('get'),
    all: impl.all ?? none('all'),
    run: impl.run
      ? (...p: unknown[]) => {
          impl.run!(...p);
          return { changes: 1, lastInsertRowid: 0 };
        }
      : none('run'),
  };
}

/** SQLite's BINARY order for the keys (ASCII here: uuids, idempotency keys, customer ids). */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A read-only connection on the state file, and whether what it reads is still the file. */
export interface FileReader {
  db: SqliteDatabase;
  /** False once another process wrote the file under a reader that sees no commit (an immutable one). */
  current(): boolean;
}

/**
 * Over `first`; when the file has changed under it, the next look (once per event-loop turn,
 * and before a change) reads it through `reopen()`, as a reader sees another process's
 * commit. A read that fails meanwhile (a page half old, half new) throws `changed()`.
 */
export function overlayConnection(first: FileReader, reopen: () => FileReader, changed: () => Error): StateConnection {
  let reader = first;
  let file = prepare(reader.db);
  // the rate budgets as the file has them (counted on in memory, below)
  let budget = reader.db.prepare('SELECT window, used FROM rate_budget WHERE name = ?');
  /** How many times the file was opened again: part of the data version the state compares. */
  let generation = 0;
  let lost = false;
  const fresh = () => {
    if (lost) throw changed();
    if (reader.current()) return;
    reader.db.close();
    try {
      reader = reopen();
    } catch (err) {
      lost = true;
      throw err;
    }
    file = prepare(reader.db);
    budget = reader.db.prepare('SELECT window, used FROM rate_budget WHERE name = ?');
    generation++;
  };
  const read = <T>(fn: () => T): T => {
    if (lost) throw changed();
    try {
      return fn();
    } catch (err) {
      if (!reader.current()) throw changed();
      throw err;
    }
  };
  const id = (coll: unknown, key: unknown) => `${String(coll)}\t${String(key)}`;
  /** Records this dry run set (json) or deleted (undefined), by `collection\tkey`. */
  let records = new Map<string, { coll: Collection; key: string; json: string | undefined }>();
  let meta = new Map<string, unknown>();
  /** After a reseed: the file's records and tags no longer count. */
  let cleared = false;
  let saved: { records: typeof records; meta: typeof meta; cleared: boolean } | null = null;

  const mine = (coll: unknown) => [...records.values()].filter((r) => r.coll === coll && r.json !== undefined) as { coll: Collection; key: string; json: string }[];
  /** The file's keys this overlay has not replaced, then its own that `keep` accepts, in key order. */
  const merge = (fromFile: () => Row[], coll: unknown, keep: (rec: unknown) => boolean): string[] => {
    const keys = cleared ? [] : read(fromFile).map((r) => r.key as string).filter((k) => !records.has(id(coll, k)));
    const own = mine(coll).filter((r) => keep(JSON.parse(r.json)));
    if (own.length === 0) return keys;
    return [...keys, ...own.map((r) => r.key)].sort(byKey);
  };
  const taggedKeys = (coll: unknown, tag: unknown) => merge(() => file.tagged.all(coll, tag), coll, (rec) => tagsOf(coll as Collection, rec).includes(String(tag)));

  const st: Statements = {
    get: statement({
      get: (coll, key) => {
        const own = records.get(id(coll, key));
        if (own !== undefined) return own.json === undefined ? undefined : { json: own.json };
        return cleared ? undefined : read(() => file.get.get(coll, key));
      },
    }),
    keys: statement({ all: (coll) => merge(() => file.keys.all(coll), coll, () => true).map((key) => ({ key })) }),
    tagged: statement({ all: (coll, tag) => taggedKeys(coll, tag).map((key) => ({ key })) }),
    count: statement({ get: (coll, tag) => ({ n: taggedKeys(coll, tag).length }) }),
    put: statement({ run: (coll, key, json) => void records.set(id(coll, key), { coll: coll as Collection, key: String(key), json: String(json) }) }),
    del: statement({ run: (coll, key) => void records.set(id(coll, key), { coll: coll as Collection, key: String(key), json: undefined }) }),
    // a record's tags follow from its JSON (taggedKeys)
    untag: statement({ run: () => {} }),
    tag: statement({ run: () => {} }),
    meta: statement({
      all: () => {
        const rows = new Map(read(() => file.meta.all()).map((r) => [r.key as string, r.value]));
        for (const [key, value] of meta) rows.set(key, value);
        return [...rows].map(([key, value]) => ({ key, value }));
      },
    }),
    setMeta: statement({ run: (key, value) => void meta.set(String(key), value) }),
    dataVersion: statement({
      get: () => {
        fresh();
        return { data_version: generation * 2 ** 32 + Number(read(() => file.dataVersion.get())?.data_version) };
      },
    }),
    newOfCar: statement({
      all: (carId, fromDay) => {
        const fromFile = cleared ? [] : read(() => file.newOfCar.all(carId, fromDay)).map((r) => r.key as string).filter((k) => !records.has(id('reservations', k)));
        const own = mine('reservations')
          .map((r) => JSON.parse(r.json) as { uuid: string; status: string; car_id: number; date_checkout: string })
          .filter((r) => r.status === 'new' && r.car_id === carId && r.date_checkout >= String(fromDay))
          .map((r) => r.uuid);
        return [...fromFile, ...own].map((key) => ({ key }));
      },
    }),
  };

  const spent = new Map<string, { window: number; used: number }>();
  let budgetsReset = false;
  const counts: SharedCounts = {
    spend(name, window, limit) {
      if (limit <= 0) return false;
      const row = spent.get(name) ?? (budgetsReset ? undefined : (read(() => budget.get(name)) as { window: number; used: number } | undefined));
      if (row === undefined || Number(row.window) !== window) {
        spent.set(name, { window, used: 1 });
        return true;
      }
      if (Number(row.used) >= limit) return false;
      spent.set(name, { window, used: Number(row.used) + 1 });
      return true;
    },
    reset() {
      spent.clear();
      budgetsReset = true;
    },
  };

  return {
    st,
    begin() {
      fresh();
      saved = { records: new Map(records), meta: new Map(meta), cleared };
    },
    commit() {
      saved = null;
    },
    rollback() {
      if (saved === null) return;
      ({ records, meta, cleared } = saved);
      saved = null;
    },
    clear() {
      records = new Map();
      cleared = true;
    },
    counts,
    close: () => {
      if (!lost) reader.db.close();
    },
  };
}
