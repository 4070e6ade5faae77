// Where the sandbox keeps its state (docs/sandbox.md, "The state file"): an SQLite database
// through node:sqlite on Node 22.13+ (sqlite-store.ts), one JSON document on Node 20, which
// has no node:sqlite (json-store.ts), or memory only when there is no path. This module
// chooses, checks what is at the path before anything opens it, and imports the state
// files of earlier builds (state-import.ts). Both stores pass test/sandbox/store-contract.ts.
import * as fs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeTarget } from '../store/atomic-file.js';
import { NEEDS_22, openJsonStore } from './json-store.js';
import { loadSqlite } from './sqlite-load.js';
import { openSqliteSnapshot } from './sqlite-snapshot.js';
import { openSqliteStore } from './sqlite-store.js';
import type { SharedCounts } from './ratelimit.js';
import type { SandboxState } from './state.js';
import { ImportError, parseJsonState, parseLogState } from './state-import.js';

export interface StoreOptions {
  /** State file; omitted = in memory only. */
  statePath?: string;
  /** Discard existing contents (even a damaged file) and re-seed. */
  reset?: boolean;
  /** When given, must match the seed recorded in an existing file. */
  seed?: number;
  /** When given, must match the fleet size recorded in an existing file. */
  fleetSize?: number;
  /** Clock used for the anchor when seeding. */
  now: () => Date;
  /** Check the whole file when opening (a long-running server does). */
  verify?: boolean;
  /** How long a write waits for another process's (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Force the Node 20 store (tests run the contract suite on both). */
  kind?: StoreKind;
  /**
   * Never write the file or anything beside it (a `--dry-run`): no file yet is a freshly
   * seeded state in memory, a JSON or log state a copy in memory; changes stay in this process.
   */
  snapshot?: boolean;
}

export type StoreKind = 'sqlite' | 'json';
/** The options with the seed and fleet size a new state gets (`seed`/`fleetSize` stay what the caller asked to check). */
export type ResolvedStoreOptions = StoreOptions & { useSeed: number; useFleetSize: number };

export interface Store {
  readonly path: string | null;
  readonly kind: StoreKind | 'memory';
  /** The current state, including what other processes committed. Never mutate it. */
  read(): SandboxState;
  /** Applies `fn` to the freshest state and commits what it changed, in one transaction; nothing is kept if `fn` throws. */
  transact<T>(fn: (draft: SandboxState) => T): Promise<T>;
  /** Replaces the whole state with a freshly seeded world anchored at the current time. */
  reseed(): Promise<SandboxState>;
  /** Rate-budget counts shared by every process on this state (the SQLite store only). */
  readonly sharedCounts?: SharedCounts;
  close(): Promise<void>;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_FLEET_SIZE = 300;

/** What a front end can do about a state file: `carrental sandbox reset`, or `sandbox serve --reset`. */
export const RESET_REMEDY = 'run `carrental sandbox reset -y` to discard it and re-seed';

/**
 * A state file this process cannot use: damaged, foreign, of another Node, or seeded
 * otherwise. The message is one line and says what to do; `reason` is it without the path
 * and the remedy (a front end with another remedy words its own).
 */
export class StateFileError extends Error {
  readonly reason: string;
  readonly remedy: string;
  constructor(path: string, reason: string, remedy: string = RESET_REMEDY) {
    super(`sandbox state file ${path}: ${reason}; ${remedy}`);
    this.name = 'StateFileError';
    this.reason = reason;
    this.remedy = remedy;
  }
}

/** A write that waited the whole busy timeout for another process, or a dry run whose file another process changed: trying again is safe. */
export class StateBusyError extends Error {
  /** `why` replaces "busy, another process held it for `ms` ms" in the message. */
  constructor(path: string, ms: number, why?: string) {
    super(`sandbox state file ${path}: ${why ?? `busy, another process held it for ${ms} ms`}; try again`);
    this.name = 'StateBusyError';
  }
}

/**
 * A state this process may not or cannot write: a read-only file or folder, a full disk.
 * One line naming the path and what to do; discarding the state would not help.
 */
export class StateWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateWriteError';
  }
}

/** The store's own errors: each is one line that names the file and what to do (never an "unexpected failure"). */
export const isStateError = (err: unknown): err is Error =>
  err instanceof Error && (err.name === 'StateFileError' || err.name === 'StateBusyError' || err.name === 'StateWriteError');

/** The words for a failed write, from its errno: a full disk and a read-only place are said as such. */
export function writeFailure(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return diskFull(path);
  if (code === 'EROFS') return new StateWriteError(`sandbox state file ${path}: on a read-only file system; point CARRENTAL_SANDBOX_STATE at a file on a writable one`);
  if (code === 'EACCES' || code === 'EPERM') {
    const failed = (err as NodeJS.ErrnoException).path;
    return failed !== undefined && failed !== path && dirname(path) === failed ? readOnlyFolder(path) : readOnlyFile(path);
  }
  return err;
}

export const diskFull = (path: string) =>
  new StateWriteError(`sandbox state file ${path}: the disk is full; the change was not made (every earlier one is kept): free some space and run it again`);
const readOnlyFile = (path: string) =>
  new StateWriteError(`sandbox state file ${path} is read-only: make it writable (chmod u+w '${path}') or point CARRENTAL_SANDBOX_STATE at another file`);
const readOnlyFolder = (path: string) =>
  new StateWriteError(
    `sandbox state file ${path}: its folder ${dirname(path)} is read-only (the state's temporary and journal files go beside it): make it writable (chmod u+w '${dirname(path)}') or point CARRENTAL_SANDBOX_STATE elsewhere`,
  );

/**
 * Refuses at once a state this process could read but never write (a 0444 file, a 0555
 * folder): every command writes (the rate counts at least), and failing at the first write
 * would be a 500 in the middle of a request. Root passes, as its writes do.
 */
export function checkWritable(path: string, real: string): void {
  const denied = (p: string) => {
    try {
      fs.accessSync(p, fs.constants.W_OK);
      return false;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return false;
      if (code === 'EROFS') throw writeFailure(path, err);
      return code === 'EACCES' || code === 'EPERM';
    }
  };
  if (denied(dirname(real))) throw readOnlyFolder(path);
  if (denied(real)) throw readOnlyFile(path);
}

/**
 * The state's real path: through a symbolic link to the file (even a dangling one) and
 * through links among its folders. Locks, temporary files and SQLite's -wal/-shm are named
 * by it, so a server opened through a link and a command given the real path share them.
 */
export function realStatePath(path: string): string {
  let target = resolve(path);
  try {
    target = writeTarget(target);
  } catch {
    // a loop of links: the path as given, and opening it reports the loop
  }
  try {
    return join(fs.realpathSync(dirname(target)), basename(target));
  } catch {
    return target;
  }
}

/**
 * The processes that have the SQLite database at `real` open: SQLite holds a read lock on
 * its -shm for as long as a connection is open in WAL mode, which Linux lists in
 * /proc/locks (a Node 20 process can see it there; it has no fcntl of its own). [] when
 * there is no -shm; null when this system cannot tell.
 */
export function sqliteHolders(real: string): number[] | null {
  let ino: number;
  try {
    ino = fs.statSync(`${real}-shm`).ino;
  } catch {
    return [];
  }
  let text: string;
  try {
    text = fs.readFileSync('/proc/locks', 'latin1');
  } catch {
    return null;
  }
  const pids = new Set<number>();
  // "1: POSIX  ADVISORY  READ 10115 fe:00:2147470 128 128" ("1: -> POSIX ..." for a waiter).
  // By inode alone: an overlay file system reports another device in stat than in the lock.
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    const at = f[1] === '->' ? 2 : 1;
    const dev = f[at + 4]?.split(':');
    if (dev?.length === 3 && Number(dev[2]) === ino) pids.add(Number(f[at + 3]));
  }
  return [...pids];
}

const alive = (pid: number) => {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes what killed writers left beside the state: the temp files of the JSON store
 * (`<file>.<pid>.<n>.tmp`) and of an import (`<file>.import.<pid>.tmp` and its -journal,
 * -wal, -shm), only those whose process is gone.
 */
export function sweepLeftovers(real: string): void {
  const base = basename(real);
  let names: string[];
  try {
    names = fs.readdirSync(dirname(real));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`${base}.`) || !name.includes('.tmp')) continue;
    const m = /^(?:(\d+)\.\d+\.tmp|import\.(\d+)\.tmp(?:-journal|-wal|-shm)?)$/.exec(name.slice(base.length + 1));
    if (m === null || alive(Number(m[1] ?? m[2]))) continue;
    try {
      fs.rmSync(join(dirname(real), name), { force: true });
    } catch {
      // a folder we may not write to: reported when the state is written
    }
  }
}

export type FileKind = 'missing' | 'empty' | 'sqlite' | 'log' | 'json' | 'foreign';

/**
 * What is at the path, from its first bytes. Anything but a regular file (a FIFO, a socket,
 * a device) is an error at once: opening a FIFO to read it would wait for a writer forever.
 */
export function sniff(path: string): FileKind {
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw new StateFileError(path, (err as Error).message);
  }
  if (!st.isFile()) throw new StateFileError(path, `not a regular file (${fileType(st)})`);
  if (st.size === 0) return 'empty';
  const head = Buffer.alloc(32);
  const fd = fs.openSync(path, 'r');
  let n: number;
  try {
    n = fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  const text = head.toString('latin1', 0, n);
  if (text.startsWith('SQLite format 3\0')) return 'sqlite';
  if (text.startsWith('carrental-sandbox-state-log ')) return 'log';
  if (/^\s*\{/.test(text)) return 'json';
  return 'foreign';
}

function fileType(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a directory';
  return 'not a file';
}

/** The file's target when it is a symbolic link: state is written through a link, never over it. */
export function targetOf(path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return path;
  }
}

/** Creates the state file empty and 0600 (the umask cannot widen it); false when it exists. */
export function createEmpty(path: string): boolean {
  fs.mkdirSync(dirname(path), { recursive: true });
  let fd: number;
  try {
    fd = fs.openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** `<file>.bak`, or `<file>.<n>.bak` when an earlier import left one. */
export function backupPathFor(file: string): string {
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? `${file}.bak` : `${file}.${n}.bak`;
    if (!fs.existsSync(candidate)) return candidate;
  }
}

/** Runs `task` holding the cross-process lock of imports and resets (a directory beside the file). */
export async function withFileLock<T>(path: string, task: () => T | Promise<T>): Promise<T> {
  fs.mkdirSync(dirname(path), { recursive: true });
  // loaded only here: a command that opens an existing state takes no lock and loads no lock library
  const { acquireLock } = await import('../store/lock.js');
  const release = await acquireLock(path, { lockfilePath: `${path}.lock`, staleMs: 5000, waitMs: 15_000 });
  try {
    return await task();
  } finally {
    await release();
  }
}

/** An existing file must hold the seed and fleet size the caller asked for, when it asked. */
export function checkExpected(path: string | null, state: SandboxState, opts: StoreOptions): void {
  if (path === null) return;
  if (opts.seed !== undefined && state.seed !== opts.seed) throw new StateFileError(path, `it was seeded with seed ${state.seed}, not ${opts.seed}`);
  if (opts.fleetSize !== undefined && state.fleetSize !== opts.fleetSize) throw new StateFileError(path, `it holds a fleet of ${state.fleetSize} cars, not ${opts.fleetSize}`);
}

export async function openStore(opts: StoreOptions): Promise<Store> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const fleetSize = opts.fleetSize ?? DEFAULT_FLEET_SIZE;
  if (!Number.isInteger(seed)) throw new Error(`sandbox seed must be an integer, got ${seed}`);
  if (!Number.isInteger(fleetSize) || fleetSize < 1) throw new Error(`sandbox fleetSize must be a positive integer, got ${fleetSize}`);
  const resolved = { ...opts, useSeed: seed, useFleetSize: fleetSize };
  if (!opts.statePath) return openJsonStore(resolved, null, null);
  if (opts.snapshot) return openSnapshot(resolved, opts.statePath);
  const real = realStatePath(opts.statePath);
  sweepLeftovers(real);
  checkWritable(opts.statePath, real);
  const kind = opts.kind ?? (loadSqlite() ? 'sqlite' : 'json');
  return kind === 'sqlite' ? openSqliteStore(resolved, opts.statePath, real) : openJsonStore(resolved, opts.statePath, real);
}

/**
 * The state a dry run reads: what is at the path, read once into memory, with no lock, no
 * sweep, no folder or file created; an SQLite database (Node 22) is worked on in a private
 * copy (sqlite-snapshot.ts).
 */
async function openSnapshot(opts: ResolvedStoreOptions, path: string): Promise<Store> {
  const real = realStatePath(path);
  const kind = sniff(real);
  if (kind === 'missing' || kind === 'empty') return openJsonStore(opts, null, null);
  if (kind === 'foreign') throw new StateFileError(path, 'not a carrental sandbox state');
  if (kind === 'sqlite') {
    if (!loadSqlite()) throw new StateFileError(path, `an SQLite database, which needs Node 22.13 or later (this is Node ${process.versions.node})`, NEEDS_22);
    return openSqliteSnapshot(opts, path, real);
  }
  let state: SandboxState;
  try {
    const text = fs.readFileSync(real, 'utf8');
    state = kind === 'log' ? parseLogState(text) : parseJsonState(text);
  } catch (err) {
    if (err instanceof ImportError) throw new StateFileError(path, err.message);
    throw err;
  }
  checkExpected(path, state, opts);
  return openJsonStore(opts, null, null, state);
}
