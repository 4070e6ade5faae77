// The sandbox's SQLite schema and the statements over it, apart from the store that opens,
// checks and transacts on the file (sqlite-store.ts, which has the schema's description):
// what a database holds and how a state is written into it, whichever file it is.
import { type SqliteDatabase, type SqliteStatement, loadSqlite } from './sqlite-load.js';
import { COLLECTIONS, type Collection, type SandboxState, STATE_FORMAT, STATE_VERSION, tagsOf } from './state.js';

/**
 * A car's reservations stored `new`, by checkout: what the catalog and availability ask
 * ("what can still block this car from today on") without reading the car's history of
 * completed trips, which stay `new` and would otherwise grow every catalog page.
 */
const CURRENT_INDEX = `CREATE INDEX IF NOT EXISTS reservations_by_car_checkout ON records (json_extract(json, '$.car_id'), json_extract(json, '$.date_checkout'))
  WHERE collection = 'reservations' AND json_extract(json, '$.status') = 'new';`;
/** Every object of the schema: a database that has them all opens without a write. */
const SCHEMA_OBJECTS = ['meta', 'records', 'tags', 'tags_by_record', 'rate_budget', 'reservations_by_car_checkout'];

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (collection TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (collection, key));
CREATE TABLE IF NOT EXISTS tags (collection TEXT NOT NULL, tag TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (collection, tag, key)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tags_by_record ON tags (collection, key);
CREATE TABLE IF NOT EXISTS rate_budget (name TEXT PRIMARY KEY, window INTEGER NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID;
${CURRENT_INDEX}
`;

export type Meta = Omit<SandboxState, Collection | 'format' | 'version'>;
export const metaOf = (s: Meta): Meta => ({ seed: s.seed, fleetSize: s.fleetSize, anchor: s.anchor, clockOffsetMs: s.clockOffsetMs, customers: s.customers });
const META_COLUMNS: [keyof Meta, string][] = [
  ['seed', 'seed'],
  ['fleetSize', 'fleet_size'],
  ['anchor', 'anchor'],
  ['clockOffsetMs', 'clock_offset_ms'],
  ['customers', 'customers'],
];

export interface Statements {
  get: SqliteStatement;
  keys: SqliteStatement;
  tagged: SqliteStatement;
  count: SqliteStatement;
  put: SqliteStatement;
  del: SqliteStatement;
  untag: SqliteStatement;
  tag: SqliteStatement;
  meta: SqliteStatement;
  setMeta: SqliteStatement;
  dataVersion: SqliteStatement;
  newOfCar: SqliteStatement;
}

export function prepare(db: SqliteDatabase): Statements {
  return {
    get: db.prepare('SELECT json FROM records WHERE collection = ? AND key = ?'),
    keys: db.prepare('SELECT key FROM records WHERE collection = ?'),
    tagged: db.prepare('SELECT key FROM tags WHERE collection = ? AND tag = ?'),
    count: db.prepare('SELECT count(*) AS n FROM tags WHERE collection = ? AND tag = ?'),
    put: db.prepare('INSERT INTO records (collection, key, json) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET json = excluded.json'),
    del: db.prepare('DELETE FROM records WHERE collection = ? AND key = ?'),
    untag: db.prepare('DELETE FROM tags WHERE collection = ? AND key = ?'),
    tag: db.prepare('INSERT OR IGNORE INTO tags (collection, tag, key) VALUES (?, ?, ?)'),
    meta: db.prepare('SELECT key, value FROM meta'),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    dataVersion: db.prepare('PRAGMA data_version'),
    // the terms of the partial index, word for word, so that the planner uses it
    newOfCar: db.prepare(
      "SELECT key FROM records WHERE collection = 'reservations' AND json_extract(json, '$.status') = 'new' AND json_extract(json, '$.car_id') = ? AND json_extract(json, '$.date_checkout') >= ?",
    ),
  };
}

export const putRecord = (st: Statements, coll: Collection, key: string, json: string | undefined) => {
  st.untag.run(coll, key);
  if (json === undefined) {
    st.del.run(coll, key);
    return;
  }
  st.put.run(coll, key, json);
  for (const t of tagsOf(coll, JSON.parse(json))) st.tag.run(coll, t, key);
};

export const putMeta = (st: Statements, m: Meta, before: Meta | null) => {
  for (const [field, column] of META_COLUMNS) {
    const value = field === 'customers' ? JSON.stringify(m.customers) : m[field];
    const old = before === null ? undefined : field === 'customers' ? JSON.stringify(before.customers) : before[field];
    if (value !== old) st.setMeta.run(column, value as string | number);
  }
};

/** Writes a whole state into an empty (or just emptied) database, inside the caller's transaction. */
export function writeState(st: Statements, s: SandboxState): void {
  st.setMeta.run('format', STATE_FORMAT);
  st.setMeta.run('version', STATE_VERSION);
  putMeta(st, metaOf(s), null);
  for (const coll of COLLECTIONS) {
    for (const [key, rec] of Object.entries(s[coll])) putRecord(st, coll, key, JSON.stringify(rec));
  }
}

/** Ours and complete, of this build's format and version, as opening usually finds it: then opening writes nothing. */
export function isCurrentState(db: SqliteDatabase): boolean {
  const objects = Number(db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name IN (${SCHEMA_OBJECTS.map((n) => `'${n}'`).join(', ')})`).get()?.n);
  // a database of an earlier build gets what it lacks (the index by checkout) once, when a writer opens it
  if (objects !== SCHEMA_OBJECTS.length) return false;
  const rows = db.prepare("SELECT key, value FROM meta WHERE key IN ('format', 'version')").all();
  const m = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  return m.format === STATE_FORMAT && m.version === STATE_VERSION;
}

export function openDatabase(path: string, busyMs: number): SqliteDatabase {
  const { DatabaseSync } = loadSqlite() as NonNullable<ReturnType<typeof loadSqlite>>;
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyMs))}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
