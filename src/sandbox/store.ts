// Persistence of the sandbox state: in memory, or one JSON file shared by every process
// that embeds the sandbox. A transaction locks the file (proper-lockfile; a stale lock of
// a killed holder expires), reloads it if another process changed it, applies the change
// to a copy, writes atomically with fsync (write-file-atomic) and unlocks. Readers reparse
// the file only when its inode, size or mtime changed.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { seedState } from './fixtures.js';
import { type SandboxState, STATE_FORMAT, STATE_VERSION, forgetIndexes } from './state.js';

export interface StoreOptions {
  /** JSON state file; omitted = in memory only. */
  statePath?: string;
  /** Discard existing contents (even a corrupt file) and re-seed. */
  reset?: boolean;
  /** When given, must match the seed recorded in an existing file. */
  seed?: number;
  /** When given, must match the fleet size recorded in an existing file. */
  fleetSize?: number;
  /** Clock used for the anchor when seeding. */
  now: () => Date;
  /** How long a lock of a dead holder blocks others (proper-lockfile's minimum is 2000). */
  lockStaleMs?: number;
}

export interface Store {
  readonly path: string | null;
  /** The current state; in file mode reloaded when another process has written. Never mutate it. */
  read(): SandboxState;
  /** Applies `fn` to a copy of the freshest state and commits it; nothing is written if `fn` throws. */
  transact<T>(fn: (draft: SandboxState) => T): Promise<T>;
  /** Replaces the whole state with a freshly seeded world anchored at the current time. */
  reseed(): Promise<SandboxState>;
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

function parseState(path: string, text: string): SandboxState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new StateFileError(path, `not valid JSON (${(err as Error).message})`);
  }
  const s = raw as Partial<SandboxState> | null;
  if (!s || typeof s !== 'object' || s.format !== STATE_FORMAT) throw new StateFileError(path, 'not a carrental sandbox state');
  if (s.version !== STATE_VERSION) throw new StateFileError(path, `unsupported state version ${String(s.version)}`);
  const records = ['reservations', 'invoices', 'refunds', 'idempotency', 'usedPromos', 'agentFlows'] as const;
  if (
    typeof s.seed !== 'number' ||
    typeof s.fleetSize !== 'number' ||
    typeof s.anchor !== 'string' ||
    Number.isNaN(Date.parse(s.anchor)) ||
    typeof s.clockOffsetMs !== 'number' ||
    !Array.isArray(s.customers) ||
    records.some((k) => typeof s[k] !== 'object' || s[k] === null)
  ) {
    throw new StateFileError(path, 'missing or malformed fields');
  }
  return s as SandboxState;
}

/** Runs tasks one at a time, in order (transactions of one process never interleave). */
function serial() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

export async function openStore(opts: StoreOptions): Promise<Store> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const fleetSize = opts.fleetSize ?? DEFAULT_FLEET_SIZE;
  if (!Number.isInteger(seed)) throw new Error(`sandbox seed must be an integer, got ${seed}`);
  if (!Number.isInteger(fleetSize) || fleetSize < 1) throw new Error(`sandbox fleetSize must be a positive integer, got ${fleetSize}`);
  const fresh = (s = seed, n = fleetSize) => seedState(s, n, opts.now());
  const queue = serial();

  if (!opts.statePath) {
    let state = fresh();
    return {
      path: null,
      read: () => state,
      transact: (fn) =>
        queue(async () => {
          const draft = structuredClone(state);
          const result = fn(draft);
          forgetIndexes(draft);
          state = draft;
          return result;
        }),
      reseed: () => queue(async () => (state = fresh(state.seed, state.fleetSize))),
      close: () => queue(async () => undefined),
    };
  }

  const path = opts.statePath;
  const stale = Math.max(2000, opts.lockStaleMs ?? 5000);
  mkdirSync(dirname(path), { recursive: true });
  let state: SandboxState;
  let signature = '';

  const fileSignature = () => {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : null;
  };
  const load = () => {
    const sig = fileSignature();
    if (sig === null) return false;
    if (sig !== signature) {
      state = parseState(path, readFileSync(path, 'utf8'));
      signature = sig;
    }
    return true;
  };
  const write = async (next: SandboxState) => {
    await writeFileAtomic(path, `${JSON.stringify(next, null, 1)}\n`, { fsync: true });
    state = next;
    signature = fileSignature() ?? '';
  };
  const withFileLock = <T>(task: () => Promise<T>) =>
    queue(async () => {
      const release = await lockfile.lock(path, {
        realpath: false,
        stale,
        retries: { retries: Math.ceil((2 * stale) / 20) + 50, factor: 1, minTimeout: 10, maxTimeout: 30, randomize: true },
        // The default throws from a timer and would crash the server; a compromised lock
        // only means another process may have taken over, which the next reload sees.
        onCompromised: () => undefined,
      });
      try {
        return await task();
      } finally {
        await release().catch(() => undefined);
      }
    });

  await withFileLock(async () => {
    if (opts.reset || !load()) {
      await write(fresh());
      return;
    }
    if (opts.seed !== undefined && state.seed !== opts.seed) {
      throw new StateFileError(path, `it was seeded with seed ${state.seed}, not ${opts.seed}`);
    }
    if (opts.fleetSize !== undefined && state.fleetSize !== opts.fleetSize) {
      throw new StateFileError(path, `it holds a fleet of ${state.fleetSize} cars, not ${opts.fleetSize}`);
    }
  });

  return {
    path,
    read: () => {
      // A file deleted behind our back keeps the last state; the next transaction rewrites it.
      load();
      return state;
    },
    transact: (fn) =>
      withFileLock(async () => {
        load();
        const draft = structuredClone(state);
        const result = fn(draft);
        forgetIndexes(draft);
        await write(draft);
        return result;
      }),
    reseed: () =>
      withFileLock(async () => {
        const next = fresh(state.seed, state.fleetSize);
        await write(next);
        return next;
      }),
    close: () => queue(async () => undefined),
  };
}
