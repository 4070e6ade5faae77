// Where the sandbox keeps its state (docs/sandbox.md, "The state file"): an SQLite database
// through node:sqlite on Node 22.13+ (sqlite-store.ts), one JSON document on Node 20, which
// has no node:sqlite (json-store.ts), or memory only when there is no path. This module
// chooses, checks what is at the path before anything opens it, and imports the state
// files of earlier builds (state-import.ts). Both stores pass test/sandbox/store-contract.ts.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { openJsonStore } from './json-store.js';
import { loadSqlite } from './sqlite-load.js';
import { openSqliteStore } from './sqlite-store.js';
import type { SharedCounts } from './ratelimit.js';
import type { SandboxState } from './state.js';

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

export class StateFileError extends Error {
  constructor(path: string, reason: string) {
    super(`sandbox state file ${path}: ${reason} (start the sandbox with reset to discard it and re-seed)`);
    this.name = 'StateFileError';
  }
}

/** A write that waited the whole busy timeout for another process. */
export class StateBusyError extends Error {
  constructor(path: string, ms: number) {
    super(`sandbox state file ${path}: busy, another process held it for ${ms} ms; try again`);
    this.name = 'StateBusyError';
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
  if (!opts.statePath) return openJsonStore(resolved, null);
  const kind = opts.kind ?? (loadSqlite() ? 'sqlite' : 'json');
  return kind === 'sqlite' ? openSqliteStore(resolved, opts.statePath) : openJsonStore(resolved, opts.statePath);
}
