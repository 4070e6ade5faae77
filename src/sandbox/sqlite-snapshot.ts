// A dry run's copy of an SQLite state (store.ts openSnapshot): read whole into memory on a
// read-only connection, so that `--dry-run` never creates, changes or locks a file.
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type SqliteDatabase, loadSqlite } from './sqlite-load.js';
import { SQLITE_BUSY, SQLITE_CORRUPT, SQLITE_LOCKED, SQLITE_NOTADB, sqliteCode } from './sqlite-store.js';
import { ImportError, parseJsonState } from './state-import.js';
import { COLLECTIONS, type SandboxState } from './state.js';
import { StateBusyError, StateFileError } from './store.js';

/**
 * The whole state of the database at `real`, read on a read-only connection into memory (a
 * dry run's copy, store.ts openSnapshot). Without a -wal beside it, opened immutable: a
 * read-only connection alone would still create a -wal and -shm. With one (a process has it
 * open, or a killed one left it), read through it as SQLite's readers do, creating nothing.
 * `path` names it in errors.
 */
export function readSqliteState(path: string, real: string): SandboxState {
  const { DatabaseSync } = loadSqlite() as NonNullable<ReturnType<typeof loadSqlite>>;
  let db: SqliteDatabase;
  try {
    const url = pathToFileURL(real);
    if (!fs.existsSync(`${real}-wal`)) url.searchParams.set('immutable', '1');
    try {
      db = new DatabaseSync(url, { readOnly: true });
    } catch (err) {
      // a Node 22 whose node:sqlite takes no URL: read-only still, though SQLite may leave a -wal and -shm
      if (!(err instanceof TypeError)) throw err;
      db = new DatabaseSync(real, { readOnly: true });
    }
  } catch (err) {
    throw new StateFileError(path, `cannot be read (${(err as Error).message})`);
  }
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('BEGIN');
    const m = Object.fromEntries(db.prepare('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]));
    const doc: Record<string, unknown> = {
      format: m.format,
      version: m.version,
      seed: Number(m.seed),
      fleetSize: Number(m.fleet_size),
      anchor: m.anchor,
      clockOffsetMs: Number(m.clock_offset_ms),
      customers: typeof m.customers === 'string' ? JSON.parse(m.customers) : undefined,
    };
    for (const coll of COLLECTIONS) doc[coll] = {};
    for (const row of db.prepare('SELECT collection, key, json FROM records').all()) {
      const coll = doc[row.collection as string] as Record<string, unknown> | undefined;
      if (coll) coll[row.key as string] = JSON.parse(row.json as string);
    }
    db.exec('COMMIT');
    return parseJsonState(JSON.stringify(doc));
  } catch (err) {
    if (err instanceof ImportError) throw new StateFileError(path, err.message, 'run one command on it without --dry-run first (it converts it), or `carrental sandbox reset -y`');
    const code = sqliteCode(err);
    if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) throw new StateFileError(path, `damaged (${(err as Error).message})`);
    if (code === SQLITE_BUSY || code === SQLITE_LOCKED) throw new StateBusyError(path, 5000);
    throw new StateFileError(path, `cannot be read (${(err as Error).message})`);
  } finally {
    db.close();
  }
}
