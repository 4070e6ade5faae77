// A dry run's copy of an SQLite state (store.ts openSnapshot): read whole into memory, so
// that `--dry-run` never creates, changes, renames or locks a file in the state's folder.
//
// Any SQLite connection on a WAL database in place may write beside it: a read-only one
// creates the -wal and -shm when they are missing, and the first connection on a -shm that
// no process holds (what a killed writer leaves) truncates and rebuilds it. So the file is
// opened in place only in two ways that touch nothing: `immutable=1` (a `file:` URL, which an
// older node:sqlite, 22.13's for one, refuses with a TypeError) when nothing is beside it,
// or read through a live writer's -wal and -shm, which that process owns and changes
// anyway. Otherwise (a killed writer's -wal, or a Node that takes no URL) SQLite reads a
// private copy of the database and its -wal in a fresh folder of os.tmpdir(), removed
// afterwards.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type SqliteDatabase, loadSqlite } from './sqlite-load.js';
import { SQLITE_BUSY, SQLITE_CORRUPT, SQLITE_LOCKED, SQLITE_NOTADB, sqliteCode } from './sqlite-store.js';
import { ImportError, parseJsonState } from './state-import.js';
import { COLLECTIONS, type SandboxState } from './state.js';
import { StateBusyError, StateFileError, sqliteHolders } from './store.js';

/** How the database at a path is read without a write beside it. */
type SnapshotRoute = 'immutable' | 'live' | 'copy';

/** Whether this Node's node:sqlite opens a `file:` URL (unknown until tried once). */
let takesUrl: boolean | undefined;

/**
 * How a dry run reads the database at `real`: through a live writer's files when a process
 * has it open (Linux tells by /proc/locks; elsewhere a -shm counts as live only if the copy
 * keeps changing under the reader), immutable in place when nothing is beside it and this
 * Node takes a URL, else through a private copy.
 */
function snapshotRoute(real: string): SnapshotRoute {
  const holders = sqliteHolders(real);
  if (holders !== null && holders.length > 0) return 'live';
  if (!fs.existsSync(`${real}-wal`) && !fs.existsSync(`${real}-shm`) && takesUrl !== false) return 'immutable';
  return 'copy';
}

/** What says a file changed while it was copied (size and time of change, to the nanosecond; null: missing). */
const stamp = (file: string): string | null => {
  const st = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  return st === undefined ? null : `${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
};

/**
 * The database and its -wal copied into `dir`; false when a writer changed them during the
 * copy three times running (a live process this system cannot see in /proc/locks).
 */
function copyInto(real: string, dir: string): string | false {
  const copy = join(dir, 'state.db');
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = [stamp(real), stamp(`${real}-wal`)];
    fs.copyFileSync(real, copy);
    fs.rmSync(`${copy}-wal`, { force: true });
    if (before[1] !== null) fs.copyFileSync(`${real}-wal`, `${copy}-wal`);
    const after = [stamp(real), stamp(`${real}-wal`)];
    if (before[0] === after[0] && before[1] === after[1]) return copy;
  }
  return false;
}

/** A connection that reads the database at `real` (see the top of this file); `done` closes it and removes any copy. */
function openForReading(path: string, real: string): { db: SqliteDatabase; done: () => void } {
  const { DatabaseSync } = loadSqlite() as NonNullable<ReturnType<typeof loadSqlite>>;
  let route = snapshotRoute(real);
  if (route === 'immutable') {
    const url = pathToFileURL(real);
    url.searchParams.set('immutable', '1');
    try {
      const db = new DatabaseSync(url, { readOnly: true });
      takesUrl = true;
      return { db, done: () => db.close() };
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      takesUrl = false;
      route = 'copy';
    }
  }
  if (route === 'copy') {
    const dir = fs.mkdtempSync(join(tmpdir(), 'carrental-dry-run-'));
    const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
    try {
      const copy = copyInto(real, dir);
      if (copy !== false) {
        // read-write: SQLite replays the copied -wal into its own -shm, in that folder
        const db = new DatabaseSync(copy);
        return {
          db,
          done: () => {
            try {
              db.close();
            } finally {
              removeDir();
            }
          },
        };
      }
      removeDir();
    } catch (err) {
      removeDir();
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') {
        throw new StateFileError(path, `a dry run reads a copy of it in ${tmpdir()}, which has no room left for it`, 'free some space there or point TMPDIR at a folder with room');
      }
      throw err;
    }
  }
  // a live writer's -wal and -shm: read through them as its other readers do
  const db = new DatabaseSync(real, { readOnly: true });
  return { db, done: () => db.close() };
}

/**
 * The whole state of the database at `real`, read into memory (a dry run's copy, store.ts
 * openSnapshot), writing nothing beside it. `path` names it in errors.
 */
export function readSqliteState(path: string, real: string): SandboxState {
  let db: SqliteDatabase;
  let done: () => void;
  try {
    ({ db, done } = openForReading(path, real));
  } catch (err) {
    if (err instanceof StateFileError) throw err;
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
    done();
  }
}
