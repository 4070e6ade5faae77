// Persistence of the sandbox state: in memory, or one JSON file shared by every process
// that embeds the sandbox. Transactions are committed in groups: whatever is queued when
// the previous commit ends runs under one lock (proper-lockfile; a stale lock of a killed
// holder expires), on a copy of the freshest state (reloaded if another process wrote),
// and is written once, atomically and with fsync (write-file-atomic). A transaction that
// throws is dropped and the rest of its group re-run without it, so it leaves no trace.
// Readers reparse the file only when its inode, size or mtime changed.
import * as fs from 'node:fs';
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
  /** Applies `fn` to a copy of the freshest state and commits it; nothing is kept if `fn` throws. */
  transact<T>(fn: (draft: SandboxState) => T): Promise<T>;
  /** Replaces the whole state with a freshly seeded world anchored at the current time. */
  reseed(): Promise<SandboxState>;
  close(): Promise<void>;
}

const DEFAULT_SEED = 1;
const DEFAULT_FLEET_SIZE = 300;

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

type Callback = (err: Error | null, result?: unknown) => void;
const viaSync =
  (fn: (...args: never[]) => unknown) =>
  (...args: unknown[]) => {
    const callback = args.pop() as Callback;
    let result: unknown;
    try {
      result = fn(...(args as never[]));
    } catch (err) {
      callback(err as Error);
      return;
    }
    callback(null, result);
  };

/**
 * The file operations of proper-lockfile, done synchronously (as its own lockSync does):
 * an uncontended lock then costs no event-loop turns, which under load would each wait
 * behind every request in flight. Retries on contention stay asynchronous.
 */
const lockFs = {
  ...fs,
  mkdir: viaSync(fs.mkdirSync),
  stat: viaSync(fs.statSync),
  rmdir: viaSync(fs.rmdirSync),
  utimes: viaSync(fs.utimesSync),
  realpath: viaSync(fs.realpathSync),
};

type Step = { kind: 'apply'; fn: (draft: SandboxState) => unknown } | { kind: 'reseed' };

interface Pending {
  step: Step;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export async function openStore(opts: StoreOptions): Promise<Store> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const fleetSize = opts.fleetSize ?? DEFAULT_FLEET_SIZE;
  if (!Number.isInteger(seed)) throw new Error(`sandbox seed must be an integer, got ${seed}`);
  if (!Number.isInteger(fleetSize) || fleetSize < 1) throw new Error(`sandbox fleetSize must be a positive integer, got ${fleetSize}`);
  const path = opts.statePath ?? null;
  const stale = Math.max(2000, opts.lockStaleMs ?? 5000);

  // The committed state, and its JSON text: parsing the text is the cheapest deep copy.
  let state: SandboxState;
  let text: string;
  let signature = '';

  const fileSignature = (p: string) => {
    const st = statSync(p, { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : null;
  };
  /** Reloads the file when another process changed it; false when there is no file. */
  const load = (p: string) => {
    const sig = fileSignature(p);
    if (sig === null) return false;
    if (sig !== signature) {
      const content = readFileSync(p, 'utf8');
      state = parseState(p, content);
      text = content;
      signature = sig;
    }
    return true;
  };
  const commit = async (next: SandboxState, nextText: string) => {
    if (path) {
      await writeFileAtomic(path, Buffer.from(nextText), { fsync: true });
      signature = fileSignature(path) ?? '';
    }
    state = next;
    text = nextText;
  };
  const seeded = (s: number, n: number) => {
    const fresh = seedState(s, n, opts.now());
    return { fresh, freshText: JSON.stringify(fresh) };
  };
  const withLock = async <T>(task: () => Promise<T>): Promise<T> => {
    if (!path) return task();
    const release = await lockfile.lock(path, {
      realpath: false,
      fs: lockFs,
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
  };

  if (path) mkdirSync(dirname(path), { recursive: true });
  await withLock(async () => {
    if (!path || opts.reset || !load(path)) {
      const { fresh, freshText } = seeded(seed, fleetSize);
      await commit(fresh, freshText);
      return;
    }
    if (opts.seed !== undefined && state.seed !== opts.seed) {
      throw new StateFileError(path, `it was seeded with seed ${state.seed}, not ${opts.seed}`);
    }
    if (opts.fleetSize !== undefined && state.fleetSize !== opts.fleetSize) {
      throw new StateFileError(path, `it holds a fleet of ${state.fleetSize} cars, not ${opts.fleetSize}`);
    }
  });

  let queue: Pending[] = [];
  let draining: Promise<void> | null = null;

  const runGroup = async (group: Pending[]) => {
    let outcome: { live: Pending[]; results: unknown[] };
    try {
      outcome = await withLock(async () => {
        if (path) load(path);
        let live = group;
        for (;;) {
          let draft = JSON.parse(text) as SandboxState;
          const results: unknown[] = [];
          const failed = live.findIndex((p) => {
            try {
              if (p.step.kind === 'reseed') {
                draft = seeded(draft.seed, draft.fleetSize).fresh;
                results.push(draft);
              } else {
                results.push(p.step.fn(draft));
              }
              return false;
            } catch (err) {
              p.reject(err);
              return true;
            }
          });
          if (failed < 0) {
            forgetIndexes(draft);
            await commit(draft, JSON.stringify(draft));
            return { live, results };
          }
          live = live.filter((_, i) => i !== failed);
        }
      });
    } catch (err) {
      // Lock, reload or write failed: nothing was committed for anyone still waiting.
      for (const p of group) p.reject(err);
      return;
    }
    // Answered once the lock is released: a caller that resumes finds the transaction done.
    outcome.live.forEach((p, i) => p.resolve(outcome.results[i]));
  };

  const drain = async () => {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      await runGroup(group);
    }
    draining = null;
  };

  const enqueue = <T>(step: Step) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ step, resolve: resolve as (v: unknown) => void, reject });
      draining ??= drain();
    });

  return {
    path,
    read: () => {
      // A file deleted behind our back keeps the last state; the next commit rewrites it.
      if (path) load(path);
      return state;
    },
    transact: (fn) => enqueue({ kind: 'apply', fn }),
    reseed: () => enqueue({ kind: 'reseed' }),
    close: async () => {
      while (draining) await draining;
    },
  };
}
