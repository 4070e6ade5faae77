// A dry run's store on an SQLite state (store.ts openSnapshot): the SQLite store itself on a
// private copy, so that `--dry-run` never creates, changes, renames or locks a file in the
// state's folder, whatever it does.
//
// Any SQLite connection on a WAL database in place may write beside it: a read-only one
// creates the -wal and -shm when they are missing (Node 22.13's node:sqlite takes no `file:`
// URL, so not even `immutable=1` is there to avoid it), and the first connection on a -shm
// that no process holds (what a killed writer leaves) truncates and rebuilds it. So the dry
// run copies the database, with a killed writer's -wal, into a fresh folder of os.tmpdir()
// and removes it when it closes; only while a live process writes the file is it read in
// place, through that process's own -wal and -shm, by SQLite's VACUUM INTO.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SqliteDatabase, loadSqlite } from './sqlite-load.js';
import { SQLITE_BUSY, SQLITE_CORRUPT, SQLITE_LOCKED, SQLITE_NOTADB, openSqliteStore, sqliteCode } from './sqlite-store.js';
import { type ResolvedStoreOptions, StateBusyError, StateFileError, type Store, sqliteHolders } from './store.js';

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
 * A dry run's store on an SQLite state: the SQLite store itself on a private copy of the
 * database in a fresh folder of os.tmpdir(), removed when it closes; whatever the dry run
 * reads or changes stays there. Reading the whole state into memory instead cost 11 s of
 * CPU and 1 GB at 50,000 reservations; the copy costs a file copy (about 0.1 s for 200 MB). A
 * copy of the files is consistent when no process writes them; while one does (a live
 * `sandbox serve`), SQLite writes the copy itself (VACUUM INTO, one read transaction).
 */
export async function openSqliteSnapshot(opts: ResolvedStoreOptions, path: string, real: string): Promise<Store> {
  sweepDryRuns();
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
    const code = sqliteCode(err);
    if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) throw new StateFileError(path, `damaged (${(err as Error).message})`);
    if (code === SQLITE_BUSY || code === SQLITE_LOCKED) throw new StateBusyError(path, 5000);
    throw err;
  } finally {
    db.close();
  }
  return copy;
}
