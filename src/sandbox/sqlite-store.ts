// The sandbox state as an SQLite database (node:sqlite, Node 22.13+). The schema:
//
//   meta(key, value)                   format, version, seed, fleet_size, anchor,
//                                      clock_offset_ms, customers (JSON)
//   records(collection, key, json)     one row per reservation, invoice, refund, idempotency
//                                      record, used-promo list and agent flow
//   tags(collection, tag, key)         what the rules look records up by (tagsOf in state.ts:
//                                      a customer's trips, a car's new trips, a trip's invoices)
//   rate_budget(name, window, used)    the rate budgets, shared by every process on the file
//
// WAL, so readers never wait for the writer and every process on the file sees each commit;
// synchronous=FULL, so a commit is on disk (the WAL fsynced) before its caller is answered,
// which is what "acknowledged" means to a client holding an Idempotency-Key: NORMAL would
// survive `kill -9` but could lose the last commits on a power cut. One BEGIN IMMEDIATE
// transaction per state change; another process's write waits at most the busy timeout.
//
// This module opens the file and checks it (a damaged one, a stale -wal, an older state to
// import); the state over the connection, its reads and transactions, is sqlite-state.ts.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDirSync } from '../store/atomic-file.js';
import { seedState } from './fixtures.js';
import type { SharedCounts } from './ratelimit.js';
import { type SqliteDatabase, type SqliteStatement, loadSqlite } from './sqlite-load.js';
import { type Statements, SCHEMA, isCurrentState, openDatabase, prepare, writeState } from './sqlite-schema.js';
import { sqliteState } from './sqlite-state.js';
import { ImportError, parseJsonState, parseLogState } from './state-import.js';
import { STATE_FORMAT, STATE_VERSION } from './state.js';
import {
  type ResolvedStoreOptions,
  StateBusyError,
  StateFileError,
  type Store,
  backupPathFor,
  checkWritable,
  createEmpty,
  diskFull,
  isStateError,
  sniff,
  sqliteHolders,
  withFileLock,
  writeFailure,
} from './store.js';

/** SQLite's primary result code of an error thrown by node:sqlite. */
export const sqliteCode = (err: unknown): number | undefined => {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
};
export const SQLITE_BUSY = 5;
export const SQLITE_LOCKED = 6;
const SQLITE_READONLY = 8;
const SQLITE_IOERR = 10;
export const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_CANTOPEN = 14;
export const SQLITE_NOTADB = 26;

/** No free block left where the file lives (SQLite says "disk I/O error" when the -shm or an fsync meets a full disk). */
function noSpaceAt(file: string): boolean {
  try {
    const st = fs.statfsSync(dirname(file));
    return st.bavail === 0;
  } catch {
    return false;
  }
}

/**
 * `path` as the user gave it (messages name it); `real` through its links: SQLite names the
 * -wal and -shm by it, and every lock, temp file and check here uses it.
 */
export async function openSqliteStore(opts: ResolvedStoreOptions, path: string, real: string): Promise<Store> {
  const busyMs = opts.busyTimeoutMs ?? 5000;
  const fileError = (err: unknown): unknown => {
    if (isStateError(err)) return err;
    const code = sqliteCode(err);
    if (code === SQLITE_BUSY || code === SQLITE_LOCKED) return new StateBusyError(path, busyMs);
    if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) return new StateFileError(path, `damaged (${(err as Error).message})`);
    if (code === SQLITE_FULL || (code === SQLITE_IOERR && noSpaceAt(real))) return diskFull(path);
    if (code === SQLITE_READONLY || code === SQLITE_CANTOPEN) {
      // what SQLite says ("attempt to write a readonly database", "unable to open database file") named
      checkWritable(path, real);
    }
    if (err instanceof ImportError) return new StateFileError(path, err.message);
    return writeFailure(path, err);
  };
  const seeded = () => seedState(opts.useSeed, opts.useFleetSize, opts.now());
  const wal = `${real}-wal`;
  const shm = `${real}-shm`;

  /**
   * The -wal and -shm of a database that is no longer at the path (a file copied back over
   * it, a reset, an import): replayed into the next database there, they would damage it.
   * Removed, unless a process still has that database open: then its next write would undo
   * what replaced it, so the replacement is refused.
   */
  const dropStalePair = () => {
    if (!fs.existsSync(wal) && !fs.existsSync(shm)) return;
    const holders = sqliteHolders(real);
    if (holders === null || holders.length > 0) {
      const who = holders === null ? 'a process may still have' : `another process (pid ${holders.join(', ')}) still has`;
      throw new StateFileError(path, `${who} the database that was there open (its ${wal} and ${shm})`, 'stop it and run this again');
    }
    fs.rmSync(wal, { force: true });
    fs.rmSync(shm, { force: true });
  };

  /** Replaces a log or JSON state file by a database holding the same state; the old file stays as `.bak`. */
  const importOld = (kind: 'log' | 'json') => {
    const text = fs.readFileSync(real, 'utf8');
    const state = kind === 'log' ? parseLogState(text) : parseJsonState(text);
    const tmp = `${real}.import.${process.pid}.tmp`;
    fs.rmSync(tmp, { force: true });
    createEmpty(tmp);
    try {
      const { DatabaseSync } = loadSqlite() as NonNullable<ReturnType<typeof loadSqlite>>;
      const db = new DatabaseSync(tmp);
      try {
        db.exec(SCHEMA);
        db.exec('BEGIN');
        writeState(prepare(db), state);
        db.exec('COMMIT');
      } finally {
        db.close();
      }
      dropStalePair();
      fs.copyFileSync(real, backupPathFor(real), fs.constants.COPYFILE_EXCL);
      fs.renameSync(tmp, real);
      fsyncDirSync(dirname(real));
      // the log store's index beside it: a cache of a file that is gone
      if (kind === 'log') fs.rmSync(`${real}.idx`, { force: true });
    } finally {
      fs.rmSync(tmp, { force: true });
      fs.rmSync(`${tmp}-journal`, { force: true });
    }
  };

  /** A reset of a file that is no database of ours, or a damaged one: emptied in place (through a symbolic link), with its -wal and -shm. */
  const emptyFile = () => {
    dropStalePair();
    fs.truncateSync(real, 0);
  };

  /**
   * Why the database at the path, with the -wal beside it, is not whole (null: it is): checked on a
   * read-only connection, which neither writes the file nor, when it closes, checkpoints a
   * -wal into it. Asked by a server (verify) and whenever a -wal is there that no process
   * has open: what a killed process left, which the next open replays, or a stale one.
   */
  const damage = (full: boolean): string | null => {
    const { DatabaseSync } = loadSqlite() as NonNullable<ReturnType<typeof loadSqlite>>;
    let ro: SqliteDatabase;
    try {
      ro = new DatabaseSync(real, { readOnly: true });
    } catch (err) {
      throw fileError(err);
    }
    try {
      ro.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyMs))}`);
      // a -wal from another database passes quick_check: its pages are well formed, only the
      // indexes no longer match the tables, which integrity_check alone compares
      const check = full ? 'integrity_check' : 'quick_check';
      const rows = ro.prepare(`PRAGMA ${check}`).all().map((r) => String(r[check]));
      return rows.length === 1 && rows[0] === 'ok' ? null : rows.slice(0, 3).join('; ');
    } catch (err) {
      const code = sqliteCode(err);
      if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) return (err as Error).message;
      throw fileError(err);
    } finally {
      ro.close();
    }
  };
  const walToReplay = () => {
    try {
      if (fs.statSync(wal).size === 0) return false;
    } catch {
      return false;
    }
    const holders = sqliteHolders(real);
    return holders !== null && holders.length === 0;
  };
  const damaged = (why: string) =>
    new StateFileError(
      path,
      `damaged, it fails SQLite's integrity check (${why}); nothing was written to it`,
      `run \`carrental sandbox reset -y\` to discard it and re-seed, or put back a copy of it without the ${wal} and ${shm} beside it`,
    );

  let db: SqliteDatabase;
  try {
    const kind = sniff(real);
    if (kind === 'log' || kind === 'json' || kind === 'foreign' || kind === 'missing') {
      await withFileLock(real, () => {
        const now = sniff(real);
        if (opts.reset && (now === 'log' || now === 'json' || now === 'foreign')) emptyFile();
        else if (now === 'log' || now === 'json') importOld(now);
        else if (now === 'foreign') throw new StateFileError(path, 'not a carrental sandbox state');
        else if (now === 'missing') {
          dropStalePair();
          createEmpty(real);
        }
      });
    } else if (kind === 'sqlite') {
      const replay = walToReplay();
      const why = replay || opts.verify ? damage(replay) : null;
      if (why !== null) {
        if (!opts.reset) throw damaged(why);
        await withFileLock(real, emptyFile);
      }
    }
    db = openDatabase(real, busyMs);
  } catch (err) {
    throw fileError(err);
  }

  let st: Statements;
  /** Sets up a new database, or checks that this one is ours; re-seeds it for a reset. */
  const settle = () => {
    if (!opts.reset && isCurrentState(db)) {
      st = prepare(db);
      return;
    }
    db.exec('BEGIN IMMEDIATE');
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name as string);
      if (tables.length > 0 && !tables.includes('meta')) throw new StateFileError(path, 'an SQLite database that is not a carrental sandbox state');
      db.exec(SCHEMA);
      st = prepare(db);
      const format = db.prepare("SELECT value FROM meta WHERE key = 'format'").get()?.value;
      if (format !== undefined && format !== STATE_FORMAT) throw new StateFileError(path, 'an SQLite database that is not a carrental sandbox state');
      if (format !== undefined) {
        const version = db.prepare("SELECT value FROM meta WHERE key = 'version'").get()?.value;
        if (version !== STATE_VERSION) throw new StateFileError(path, `unsupported state version ${String(version)}`);
      }
      if (format === undefined || opts.reset) {
        db.exec('DELETE FROM records; DELETE FROM tags; DELETE FROM meta');
        writeState(st, seeded());
      }
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  };
  try {
    settle();
  } catch (err) {
    db.close();
    const mapped = fileError(err);
    // a reset discards even a damaged database
    if (!(opts.reset && mapped instanceof StateFileError)) throw mapped;
    try {
      await withFileLock(real, emptyFile);
      db = openDatabase(real, busyMs);
      settle();
    } catch (again) {
      throw fileError(again);
    }
  }
  st = st!;

  // ------------------------------------------------ rate budgets

  /**
   * Counted on a connection of their own with synchronous=OFF: a count is worth no fsync
   * (a crash forgets at most the current minute's), and each spend is one statement.
   */
  let counts: SqliteDatabase | null = null;
  let spendStmt: SqliteStatement | null = null;
  const sharedCounts: SharedCounts = {
    spend(name, window, limit) {
      if (spendStmt === null) {
        counts = openDatabase(real, busyMs);
        counts.exec('PRAGMA synchronous = OFF');
        // plain `?` only: Node 22.13's node:sqlite binds no positional value to a numbered
        // `?2` (it counts as named) and fails "column index out of range"
        spendStmt = counts.prepare(
          `INSERT INTO rate_budget (name, window, used) VALUES (?, ?, 1)
           ON CONFLICT (name) DO UPDATE SET used = CASE WHEN window = excluded.window THEN used + 1 ELSE 1 END, window = excluded.window
           WHERE window <> excluded.window OR used < ?
           RETURNING used`,
        );
      }
      if (limit <= 0) return false;
      try {
        return spendStmt.get(name, window, limit) !== undefined;
      } catch (err) {
        throw fileError(err);
      }
    },
    reset() {
      try {
        db.exec('DELETE FROM rate_budget');
      } catch (err) {
        throw fileError(err);
      }
    },
  };

  return sqliteState(
    {
      st,
      begin: () => db.exec('BEGIN IMMEDIATE'),
      commit: () => db.exec('COMMIT'),
      rollback: () => db.exec('ROLLBACK'),
      clear: () => db.exec('DELETE FROM records; DELETE FROM tags'),
      counts: sharedCounts,
      close: () => {
        counts?.close();
        db.close();
      },
    },
    { path, opts, fileError },
  );
}
