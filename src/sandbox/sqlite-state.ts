// The sandbox state over one SQLite connection, as the handlers read and change it: the
// committed records kept parsed one by one (what another process commits is seen at the next
// event-loop turn), and transactions on drafts of the records they touch. The connection is
// the state file's own (sqlite-store.ts, which opens and checks it) or a dry run's, whose
// changes stay in memory over the file read in place (sqlite-overlay.ts).
//
// Transactions run on objects parsed from the rows they touch; each touched record's JSON is
// remembered, written through as it is set (so tag lookups in the same transaction see it),
// and compared at the end: what changed is written, everything in one commit.
import type { SharedCounts } from './ratelimit.js';
import { recordView } from './record-view.js';
import { type Meta, type Statements, metaOf, putMeta, putRecord, writeState } from './sqlite-schema.js';
import { seedState } from './fixtures.js';
import { COLLECTIONS, type Collection, type SandboxState, STATE_FORMAT, STATE_VERSION, attachIndex } from './state.js';
import { type ResolvedStoreOptions, type Store, checkExpected } from './store.js';

/** Read records kept parsed; past this many the cache starts again (a server's memory stays flat). */
const CACHE_LIMIT = 10_000;

/** What the state needs of its database. */
export interface StateConnection {
  readonly st: Statements;
  /** Starts the one write transaction of a state change (BEGIN IMMEDIATE); commit or rollback ends it. */
  begin(): void;
  commit(): void;
  rollback(): void;
  /** Deletes every record and tag, inside a transaction (a reseed). */
  clear(): void;
  /** The rate budgets of every process on the state. */
  readonly counts: SharedCounts;
  close(): void;
}

export interface StateOptions {
  /** The state file as the user gave it (messages name it). */
  path: string;
  opts: ResolvedStoreOptions;
  /** What a failure of the database says to the user (a busy, damaged, full or read-only state). */
  fileError: (err: unknown) => unknown;
}

export function sqliteState(conn: StateConnection, { path, opts, fileError }: StateOptions): Store {
  const { st } = conn;

  // ------------------------------------------------ reading

  let meta = {} as Meta;
  const loadMeta = () => {
    const m = {} as Record<string, unknown>;
    for (const row of st.meta.all()) m[row.key as string] = row.value;
    meta = {
      seed: Number(m.seed),
      fleetSize: Number(m.fleet_size),
      anchor: String(m.anchor),
      clockOffsetMs: Number(m.clock_offset_ms),
      customers: JSON.parse(String(m.customers)) as Meta['customers'],
    };
  };
  /** Parsed committed records, by `collection\tkey`; undefined = no such record. */
  const cache = new Map<string, unknown>();
  let inTx = false;
  const readRow = (coll: Collection, key: string): unknown => {
    const row = st.get.get(coll, key);
    return row === undefined ? undefined : JSON.parse(row.json as string);
  };
  const committed = (coll: Collection, key: string): unknown => {
    // inside a transaction the connection sees uncommitted rows: not for the cache
    if (inTx) return readRow(coll, key);
    const id = `${coll}\t${key}`;
    if (cache.has(id)) return cache.get(id);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    const value = readRow(coll, key);
    cache.set(id, value);
    return value;
  };
  const keysOf = (coll: Collection) => st.keys.all(coll).map((r) => r.key as string);
  /** Tag lookups of committed state, kept like the records (a trip list asks one per trip). */
  const tagCache = new Map<string, readonly string[]>();
  /** Keys of committed state, kept like the records; inside a transaction, asked each time. */
  const cachedKeys = (id: string, query: () => string[]): readonly string[] => {
    if (inTx) return query();
    let keys = tagCache.get(id);
    if (keys === undefined) {
      if (tagCache.size >= CACHE_LIMIT) tagCache.clear();
      keys = query();
      tagCache.set(id, keys);
    }
    return keys;
  };
  const tagged = (coll: Collection, tag: string) => cachedKeys(`${coll}\t${tag}`, () => st.tagged.all(coll, tag).map((r) => r.key as string));
  const countAtMost = (coll: Collection, tag: string) => (inTx ? Number(st.count.get(coll, tag)?.n ?? 0) : tagged(coll, tag).length);
  const newOfCarSince = (carId: number, fromDay: string) =>
    cachedKeys(`reservations\tnew-of-car\t${carId}\t${fromDay}`, () => st.newOfCar.all(carId, fromDay).map((r) => r.key as string));
  const readOnly = () => {
    throw new Error('the sandbox state is read-only outside store.transact');
  };
  const committedProxies = Object.fromEntries(
    COLLECTIONS.map((c) => [
      c,
      new Proxy({} as Record<string, unknown>, {
        get: (_, k) => (typeof k === 'string' ? committed(c, k) : undefined),
        has: (_, k) => typeof k === 'string' && committed(c, k) !== undefined,
        ownKeys: () => keysOf(c),
        getOwnPropertyDescriptor: (_, k) => {
          const v = typeof k === 'string' ? committed(c, k) : undefined;
          return v === undefined ? undefined : { value: v, writable: false, enumerable: true, configurable: true };
        },
        set: readOnly,
        deleteProperty: readOnly,
      }),
    ]),
  );
  let facade!: SandboxState;
  const refreshFacade = () => {
    facade = { format: STATE_FORMAT, version: STATE_VERSION, ...meta, ...committedProxies } as unknown as SandboxState;
    attachIndex(facade, { tagged, countAtMost, raw: facade, newOfCarSince });
  };
  let dataVersion = -1;
  /** Another process committed since we last looked: what we hold parsed may be stale. */
  const catchUp = () => {
    const v = Number(st.dataVersion.get()?.data_version);
    if (v === dataVersion) return;
    dataVersion = v;
    cache.clear();
    tagCache.clear();
    loadMeta();
    refreshFacade();
  };
  catchUp();
  try {
    checkExpected(path, facade, opts);
  } catch (err) {
    conn.close();
    throw err;
  }

  // ------------------------------------------------ writing

  /** Runs `body` in one BEGIN IMMEDIATE transaction; rolls back and maps the error if anything fails. */
  const inTransaction = <T>(body: () => T): T => {
    try {
      conn.begin();
    } catch (err) {
      throw fileError(err);
    }
    inTx = true;
    try {
      const result = body();
      conn.commit();
      return result;
    } catch (err) {
      try {
        conn.rollback();
      } catch {
        // SQLite rolled back already (a failed COMMIT on a full disk can)
      }
      throw fileError(err);
    } finally {
      inTx = false;
    }
  };

  const runTransaction = <T>(fn: (draft: SandboxState) => T): T => {
    const touched = new Map<string, { coll: Collection; key: string; written: string | undefined }>();
    const objs = new Map<string, unknown>();
    const load = (coll: Collection, key: string) => {
      const id = `${coll}\t${key}`;
      if (objs.has(id)) return objs.get(id);
      const row = st.get.get(coll, key);
      const json = row === undefined ? undefined : (row.json as string);
      touched.set(id, { coll, key, written: json });
      const value = json === undefined ? undefined : JSON.parse(json);
      objs.set(id, value);
      return value;
    };
    const set = (coll: Collection, key: string, value: unknown) => {
      load(coll, key);
      const id = `${coll}\t${key}`;
      objs.set(id, value);
      const json = value === undefined ? undefined : JSON.stringify(value);
      putRecord(st, coll, key, json);
      (touched.get(id) as { written: string | undefined }).written = json;
    };
    const drafts = Object.fromEntries(
      COLLECTIONS.map((c) => [
        c,
        recordView((k) => load(c, k), (k, v) => set(c, k, v), () => keysOf(c)),
      ]),
    );
    // Reads that record nothing (readTagged): the draft's own objects where it has them.
    const raw = Object.fromEntries(
      COLLECTIONS.map((c) => [
        c,
        new Proxy({} as Record<string, unknown>, {
          get: (_, k) => {
            if (typeof k !== 'string') return undefined;
            const id = `${c}\t${k}`;
            return objs.has(id) ? objs.get(id) : readRow(c, k);
          },
        }),
      ]),
    );
    // the meta as committed now (another process may have changed it)
    loadMeta();
    const before = metaOf(meta);
    const draftMeta = JSON.parse(JSON.stringify(before)) as Meta;
    const draft = { format: STATE_FORMAT, version: STATE_VERSION, ...draftMeta, ...drafts } as unknown as SandboxState;
    attachIndex(draft, { tagged, countAtMost, raw: { ...draft, ...raw } as unknown as SandboxState, newOfCarSince });
    const result = fn(draft);
    // records changed in place since they were read or set
    for (const [id, t] of touched) {
      const value = objs.get(id);
      const json = value === undefined ? undefined : JSON.stringify(value);
      if (json !== t.written) putRecord(st, t.coll, t.key, json);
    }
    putMeta(st, metaOf(draft), before);
    return result;
  };

  /** After a commit of ours: the records it touched are read again; the meta is what it wrote. */
  const afterCommit = () => {
    cache.clear();
    tagCache.clear();
    // should what follows fail, the next look reads everything again
    dataVersion = -1;
    loadMeta();
    refreshFacade();
    dataVersion = Number(st.dataVersion.get()?.data_version);
  };
  /** After a failed change: as afterCommit, but the change's own error is the one to report. */
  const settleAfterFailure = () => {
    try {
      afterCommit();
    } catch {
      // dataVersion is -1: the next read looks again
    }
  };

  let closed = false;
  let checkedThisTurn = false;
  return {
    path,
    kind: 'sqlite',
    sharedCounts: conn.counts,
    read() {
      // One look per event-loop turn covers every request that turn.
      if (!checkedThisTurn && !closed && !inTx) {
        checkedThisTurn = true;
        setImmediate(() => {
          checkedThisTurn = false;
        }).unref();
        catchUp();
      }
      return facade;
    },
    transact<T>(fn: (draft: SandboxState) => T): Promise<T> {
      try {
        const result = inTransaction(() => runTransaction(fn));
        afterCommit();
        return Promise.resolve(result);
      } catch (err) {
        // what was read during the transaction may have been its own uncommitted rows
        settleAfterFailure();
        return Promise.reject(err);
      }
    },
    reseed(): Promise<SandboxState> {
      try {
        inTransaction(() => {
          loadMeta();
          conn.clear();
          writeState(st, seedState(meta.seed, meta.fleetSize, opts.now()));
        });
        afterCommit();
        return Promise.resolve(facade);
      } catch (err) {
        settleAfterFailure();
        return Promise.reject(err);
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      conn.close();
    },
  };
}
