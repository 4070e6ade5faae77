// A dry run's store on an SQLite state (store.ts openSnapshot): `--dry-run` never creates,
// changes, renames or locks a file in the state's folder, whatever it does, and costs no more
// on a long history than on a short one.
//
// In place, as a rule: a read-only connection on the database, the dry run's changes kept in
// memory over it (sqlite-overlay.ts). With nothing beside the file, the connection is
// `immutable=1`: any other connection would create the -wal and -shm (a read-only one too).
// Such a reader takes no lock and sees no other process's commit, so the file is watched
// (size and times of change): when another process has written it (a checkpoint), the next
// look reads it again, as a reader sees another process's commit; a read that fails on a
// page changed under it says "try again" rather than "damaged". While a live process writes
// the file, the dry run reads through that process's own -wal and -shm, as any reader does.
//
// On a copy, where reading in place would write: Node 22.13's node:sqlite takes no `file:`
// URL (so no `immutable=1`); a -wal that no process holds (what a killed writer leaves: the
// first connection on it would rebuild its -shm); a database of an earlier build (a writer
// adds what it lacks). The database, with such a -wal, is copied into a fresh folder of
// os.tmpdir() and removed when the dry run closes.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type SqliteDatabase, loadSqlite, sqliteOpensUrls } from './sqlite-load.js';
import { type FileReader, overlayConnection } from './sqlite-overlay.js';
import { isCurrentState } from './sqlite-schema.js';
import { sqliteState } from './sqlite-state.js';
import { SQLITE_BUSY, SQLITE_CORRUPT, SQLITE_LOCKED, SQLITE_NOTADB, openSqliteStore, sqliteCode } from './sqlite-store.js';
import { type ResolvedStoreOptions, StateBusyError, StateFileError, type Store, isStateError, sqliteHolders } from './store.js';

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

const PREFIX = 'carrental-dry-run-';

/** Removes the folders of dry runs whose process is gone (killed before it removed its copy). */
function sweepDryRuns(): void {
  let names: string[];
  try {
    names = fs.readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^carrental-dry-run-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPERM') continue;
    }
    fs.rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/**
 * A dry run's store on an SQLite state: read in place (openInPlace) or, where that would
 * write beside the file, the SQLite store itself on a private copy in a fresh folder of
 * os.tmpdir(), removed when it closes. A copy of the files is consistent when no process
 * writes them; while one does, SQLite writes the copy itself (VACUUM INTO, one read
 * transaction). Reading the whole state into memory instead cost 11 s of CPU and 1 GB at
 * 50,000 reservations; a copy costs about 0.1 s for 200 MB.
 */
export async function openSqliteSnapshot(opts: ResolvedStoreOptions, path: string, real: string): Promise<Store> {
  sweepDryRuns();
  const inPlace = openInPlace(opts, path, real);
  if (inPlace !== null) return inPlace;
  const dir = fs.mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  let store: Store;
  try {
    const holders = sqliteHolders(real);
    const live = holders !== null && holders.length > 0;
    const copy = (!live && copyInto(real, dir)) || vacuumInto(path, real, dir);
    store = await openSqliteStore({ ...opts, reset: false, verify: false, snapshot: false }, path, copy);
  } catch (err) {
    removeDir();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      throw new StateFileError(path, `a dry run works on a copy of it in ${tmpdir()}, which has no room left for it`, 'free some space there or point TMPDIR at a folder with room');
    }
    throw err;
  }
  return {
    ...store,
    path: null,
    kind: 'memory',
    close: async () => {
      try {
        await store.close();
      } finally {
        removeDir();
      }
    },
  };
}

/** The dry run's store over the database read in place; null where only a copy writes nothing beside it. */
function openInPlace(opts: ResolvedStoreOptions, path: string, real: string): Store | null {
  const first = readInPlace(opts, path, real);
  if (first === null) return null;
  const changed = () => new StateBusyError(path, 0, 'changed while this dry run read it (another process wrote it)');
  const reopen = () => {
    const next = readInPlace(opts, path, real);
    if (next === null) throw changed();
    return next;
  };
  const fileError = (err: unknown) => mapped(path, err);
  try {
    if (!isCurrentState(first.db)) {
      first.db.close();
      return null;
    }
    const store = sqliteState(overlayConnection(first, reopen, changed), { path, opts, fileError });
    return { ...store, path: null, kind: 'memory' };
  } catch (err) {
    first.db.close();
    throw fileError(err);
  }
}

/** A read-only connection on the file that writes nothing beside it; null where none can. */
function readInPlace(opts: ResolvedStoreOptions, path: string, real: string): FileReader | null {
  const { DatabaseSync } = loadSqlite() as NonNullable<ReturnType<typeof loadSqlite>>;
  try {
    if (!fs.existsSync(`${real}-wal`) && !fs.existsSync(`${real}-shm`)) {
      if (!sqliteOpensUrls()) return null;
      const url = pathToFileURL(real);
      url.searchParams.set('immutable', '1');
      const before = stamp(real);
      const db = new DatabaseSync(url, { readOnly: true });
      return { db, current: () => stamp(real) === before };
    }
    const holders = sqliteHolders(real);
    if (holders === null || holders.length === 0) return null;
    // through the live writer's -wal and -shm, with SQLite's locks: always current
    const db = new DatabaseSync(real, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    return { db, current: () => true };
  } catch (err) {
    throw mapped(path, err);
  }
}

/** A damaged or busy database in the user's words; undefined for any other error. */
function knownFailure(path: string, err: unknown): Error | undefined {
  const code = sqliteCode(err);
  if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) return new StateFileError(path, `damaged (${(err as Error).message})`);
  if (code === SQLITE_BUSY || code === SQLITE_LOCKED) return new StateBusyError(path, 5000);
  return undefined;
}

/** What a dry run's reading of the file says to the user. */
function mapped(path: string, err: unknown): unknown {
  if (isStateError(err) || sqliteCode(err) === undefined) return err;
  return knownFailure(path, err) ?? new StateFileError(path, `cannot be read (${(err as Error).message})`);
}

/** The database as one read transaction sees it, written by SQLite into `dir` (read through a live writer's -wal). */
function vacuumInto(path: string, real: string, dir: string): string {
  const { DatabaseSync } = loadSqlite() as NonNullable<ReturnType<typeof loadSqlite>>;
  const copy = join(dir, 'state.db');
  fs.rmSync(copy, { force: true });
  fs.rmSync(`${copy}-wal`, { force: true });
  let db: SqliteDatabase;
  try {
    db = new DatabaseSync(real, { readOnly: true });
  } catch (err) {
    throw new StateFileError(path, `cannot be read (${(err as Error).message})`);
  }
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec(`VACUUM INTO '${copy.replace(/'/g, "''")}'`);
  } catch (err) {
    throw knownFailure(path, err) ?? err;
  } finally {
    db.close();
  }
  return copy;
}
