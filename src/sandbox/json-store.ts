// The Node 20 store, and the in-memory one: the whole state as one JSON document (the
// version 1 format), read again when another process replaced it, and written whole and
// atomically (temp file, fsync, rename) under the file lock, so every guarantee of the
// SQLite store holds except scale: a write costs the size of the whole state, so the
// store is bounded (MAX_RESERVATIONS). It goes when Node 20 does (docs/sandbox.md, "The state file").
import * as fs from 'node:fs';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { apiError } from './errors.js';
import { seedState } from './fixtures.js';
import {
  type ResolvedStoreOptions,
  StateFileError,
  type Store,
  backupPathFor,
  checkExpected,
  createEmpty,
  sniff,
  sqliteHolders,
  withFileLock,
  writeFailure,
} from './store.js';
import { ImportError, parseJsonState, parseLogState } from './state-import.js';
import type { SandboxState } from './state.js';

export const NEEDS_22 = 'run it with Node 22.13 or later, or `carrental sandbox reset -y` to discard it and re-seed';

/**
 * The most reservations this store keeps. Every change parses and stringifies the whole
 * document, so its CPU and the server's memory grow with the history: at this bound a create
 * costs about 50 ms of CPU and the server stays well under 300 MB (Node 20.20.2, figures in
 * docs/sandbox.md, "Node 20's bound"); at 10,000 it was 1 s and 1.4 GB. Past it a write that
 * adds a reservation is refused; reads, cancels and every other write keep working.
 * CARRENTAL_SANDBOX_JSON_MAX_RESERVATIONS lowers it, for tests only (docs/configuration.md says so).
 */
export const MAX_RESERVATIONS = 500;

const maxReservations = () => {
  const env = Number(process.env.CARRENTAL_SANDBOX_JSON_MAX_RESERVATIONS);
  return Number.isInteger(env) && env > 0 ? env : MAX_RESERVATIONS;
};

/**
 * `path` as the user gave it (messages name it); `real` through its links (every file
 * operation and lock uses it). Without a path, in memory: `initial` (a dry run's copy of a
 * state file), else a freshly seeded state.
 */
export async function openJsonStore(opts: ResolvedStoreOptions, path: string | null, real: string | null, initial?: SandboxState): Promise<Store> {
  const file = real ?? (path as string);
  let text = '';
  let state: SandboxState;
  /** What identifies the file's version we hold: a write replaces the file, so its inode changes. */
  let stamp = '';

  const seeded = () => seedState(opts.useSeed, opts.useFleetSize, opts.now());
  const stampOf = (st: fs.Stats) => `${st.ino}:${st.size}:${st.mtimeMs}`;
  const fail = (reason: string, remedy?: string): never => {
    throw new StateFileError(path as string, reason, remedy);
  };
  const parse = (t: string) => {
    try {
      return parseJsonState(t);
    } catch (err) {
      if (err instanceof ImportError) fail(err.message);
      throw err;
    }
  };
  /** `t` is `next` stringified (compact): the caller has it already, and a stringify is most of a write's cost. */
  const write = (next: SandboxState, t = JSON.stringify(next)) => {
    // to the real path: through a symbolic link to its target, never over the link
    try {
      writeFileAtomicSync(file, t, { mode: 0o600 });
    } catch (err) {
      throw writeFailure(path as string, err);
    }
    text = t;
    state = next;
    stamp = stampOf(fs.statSync(file));
  };
  /** Reads the file again if another process replaced it since. */
  const refresh = () => {
    const st = fs.statSync(file);
    if (stampOf(st) === stamp) return;
    // a Node 22 process converted it under this one (a server left running): said as such, never a parse error
    if (stamp !== '' && sniff(file) === 'sqlite') {
      fail(`converted to an SQLite database by a Node 22.13+ process; this Node ${process.versions.node} process cannot read it`, 'stop this one and start it again with Node 22.13 or later');
    }
    const t = fs.readFileSync(file, 'utf8');
    state = parse(t);
    text = t;
    stamp = stampOf(st);
  };
  /**
   * A reset replaces the file whatever it holds; an SQLite database's -wal and -shm go with
   * it (left, the next Node 22 open would replay them into the new state). Not while a
   * process has that database open: the reset would be undone by its next write.
   */
  const dropSqlitePair = () => {
    const wal = `${file}-wal`;
    const shm = `${file}-shm`;
    if (!fs.existsSync(wal) && !fs.existsSync(shm)) return;
    const holders = sqliteHolders(file);
    if (holders === null) {
      return fail(
        'an SQLite database with its -wal and -shm beside it: a Node 22.13+ process may have it open',
        `stop it and reset with Node 22.13 or later (or, if no process has it open, remove ${wal} and ${shm} and reset again)`,
      );
    }
    if (holders.length > 0) {
      fail(`an SQLite database that another process (pid ${holders.join(', ')}) has open, a Node 22.13+ sandbox`, 'stop it and reset again, or reset with Node 22.13 or later while it runs');
    }
    fs.rmSync(wal, { force: true });
    fs.rmSync(shm, { force: true });
  };

  if (path === null) {
    state = initial ?? seeded();
    text = JSON.stringify(state);
  } else {
    // The usual case, a file this store wrote, opens without the lock; anything else is settled under it.
    if (opts.reset || sniff(file) !== 'json') {
      await withFileLock(file, () => {
        const kind = sniff(file);
        if (opts.reset || kind === 'missing' || kind === 'empty') {
          if (opts.reset) dropSqlitePair();
          createEmpty(file);
          write(seeded());
        } else if (kind === 'json') {
          refresh();
        } else if (kind === 'log') {
          let imported: SandboxState;
          try {
            imported = parseLogState(fs.readFileSync(file, 'utf8'));
          } catch (err) {
            if (err instanceof ImportError) fail(err.message);
            throw err;
          }
          fs.copyFileSync(file, backupPathFor(file), fs.constants.COPYFILE_EXCL);
          write(imported);
          // the log store's index beside it: a cache of a file that is gone
          fs.rmSync(`${file}.idx`, { force: true });
        } else if (kind === 'sqlite') {
          fail(`an SQLite database, which needs Node 22.13 or later (this is Node ${process.versions.node})`, NEEDS_22);
        } else {
          fail('not a carrental sandbox state');
        }
      });
    } else {
      refresh();
    }
  }
  checkExpected(path, state!, opts);

  /**
   * A write past the bound: one line naming the way out; the state is left as it was. An
   * API error (409 sandbox_state_full), so a server answers it as a refusal and the CLI
   * exits 5 without leaving the create pending.
   */
  const full = (count: number) =>
    apiError('sandbox_state_full', `sandbox state file ${path}: it holds ${count} reservations, the most the Node 20 store keeps (${bound}); no reservation was added: ${NEEDS_22}`);

  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(task: () => T | Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
  let checkedThisTurn = false;
  const bound = maxReservations();
  const countOf = (s: SandboxState) => Object.keys(s.reservations).length;

  return {
    path,
    kind: path === null ? 'memory' : 'json',
    read() {
      // One look at the file per event-loop turn covers every request that turn.
      if (path !== null && !checkedThisTurn) {
        checkedThisTurn = true;
        setImmediate(() => {
          checkedThisTurn = false;
        }).unref();
        refresh();
      }
      return state;
    },
    transact: (fn) =>
      serialize(async () => {
        const apply = () => {
          if (path !== null) refresh();
          // The draft is a copy (nothing is kept if fn throws); `text` is the committed state,
          // so this parse is the only one, and the one stringify below serves both the
          // "changed?" check and the write.
          const draft = JSON.parse(text) as SandboxState;
          const result = fn(draft);
          const after = JSON.stringify(draft);
          if (after !== text) {
            const count = countOf(draft);
            if (path !== null && count > bound && count > countOf(state)) throw full(countOf(state));
            if (path !== null) write(draft, after);
            else text = after;
            state = draft;
          }
          return result;
        };
        return path === null ? apply() : withFileLock(file, apply);
      }),
    reseed: () =>
      serialize(async () => {
        const fresh = seedState(state.seed, state.fleetSize, opts.now());
        if (path !== null) await withFileLock(file, () => write(fresh));
        else text = JSON.stringify(fresh);
        state = fresh;
        return fresh;
      }),
    close: async () => {
      await queue;
    },
  };
}
