// The Node 20 store, and the in-memory one: the whole state as one JSON document (the
// version 1 format, one record per line: json-document.ts), read again when another process
// replaced it, and written whole and atomically (temp file, fsync, rename) under the file
// lock, so every guarantee of the SQLite store holds except scale: a write costs the bytes of
// the whole state, so the store is bounded (MAX_RESERVATIONS). It goes when Node 20 does
// (docs/sandbox.md, "The state file").
import * as fs from 'node:fs';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { apiError } from './errors.js';
import { seedState } from './fixtures.js';
import { type Committed, apply, begin, catchUp, fromBytes, fromState, stage, toBytes } from './json-document.js';
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
import { ImportError, parseLogState } from './state-import.js';
import type { SandboxState } from './state.js';

export const NEEDS_22 = 'run it with Node 22.13 or later, or `carrental sandbox reset -y` to discard it and re-seed';

/**
 * The most reservations this store keeps. A change parses, stringifies and encodes only the
 * records it touches (json-document.ts), but the file is still written whole, so a write
 * costs the bytes of the history (about 2.4 KB a reservation with its invoices and
 * idempotency record), and the server holds it parsed. At this bound a create costs about
 * 10 to 20 ms of CPU and the server stays near 120 MB (Node 20.20.2, figures in docs/sandbox.md,
 * "Node 20's bound"); before the lines, 129 ms at 2,000 and 1 s and 1.4 GB at 10,000. Past it a
 * write that adds a reservation is refused; reads, cancels and every other write keep working.
 * CARRENTAL_SANDBOX_JSON_MAX_RESERVATIONS replaces it, for tests and bench/json-store only
 * (docs/configuration.md says so).
 */
export const MAX_RESERVATIONS = 3000;

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
  /** The version held: the committed state, each record's line and the tag index. */
  let doc: Committed;
  /** What identifies the file's version we hold: a write replaces the file, so its inode changes. */
  let stamp = '';

  const seeded = () => seedState(opts.useSeed, opts.useFleetSize, opts.now());
  const stampOf = (st: fs.Stats) => `${st.ino}:${st.size}:${st.mtimeMs}`;
  const fail = (reason: string, remedy?: string): never => {
    throw new StateFileError(path as string, reason, remedy);
  };
  const write = (bytes: Buffer[]) => {
    // to the real path: through a symbolic link to its target, never over the link
    try {
      writeFileAtomicSync(file, bytes, { mode: 0o600 });
    } catch (err) {
      throw writeFailure(path as string, err);
    }
    stamp = stampOf(fs.statSync(file));
  };
  const writeWhole = (next: Committed) => {
    write(toBytes(next));
    doc = next;
  };
  /**
   * The file's bytes in a buffer this store reuses for every read after the first: a server
   * reads the file after each write of another process, and a new buffer of the file's size
   * each time made the heap's external memory grow until a full collection (50 ms at 3,000
   * reservations). Read through one descriptor, so the stamp is that of the bytes.
   */
  let scratch = Buffer.alloc(0);
  const readAgain = (): [fs.Stats, Buffer] => {
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      if (scratch.length < st.size) scratch = Buffer.allocUnsafe(Math.ceil(st.size * 1.25));
      let n = 0;
      for (let r = -1; n < st.size && r !== 0; n += r) r = fs.readSync(fd, scratch, n, st.size - n, n);
      return [st, scratch.subarray(0, n)];
    } finally {
      fs.closeSync(fd);
    }
  };
  /** Reads the file again if another process replaced it since: only what follows the chunks it still holds (json-document.ts). */
  const refresh = () => {
    let st = fs.statSync(file);
    if (stampOf(st) === stamp) return;
    // a Node 22 process converted it under this one (a server left running): said as such, never a parse error
    if (stamp !== '' && sniff(file) === 'sqlite') {
      fail(`converted to an SQLite database by a Node 22.13+ process; this Node ${process.versions.node} process cannot read it`, 'stop this one and start it again with Node 22.13 or later');
    }
    try {
      if (stamp === '') doc = fromBytes(fs.readFileSync(file));
      else {
        let bytes: Buffer;
        [st, bytes] = readAgain();
        // what catchUp keeps of the bytes it copies; a whole read keeps slices of them: its own copy
        doc = catchUp(doc, bytes) ?? fromBytes(Buffer.from(bytes));
      }
    } catch (err) {
      if (err instanceof ImportError) fail(err.message);
      throw err;
    }
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
    doc = fromState(initial ?? seeded());
  } else {
    // The usual case, a file this store wrote, opens without the lock; anything else is settled under it.
    if (opts.reset || sniff(file) !== 'json') {
      await withFileLock(file, () => {
        const kind = sniff(file);
        if (opts.reset || kind === 'missing' || kind === 'empty') {
          if (opts.reset) dropSqlitePair();
          createEmpty(file);
          writeWhole(fromState(seeded()));
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
          writeWhole(fromState(imported));
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
  checkExpected(path, doc!.state, opts);

  /**
   * A write past the bound: one line naming the way out; the state is left as it was. An
   * API error (409 sandbox_state_full), so a server answers it as a refusal and the CLI
   * exits 5 without leaving the create pending.
   */
  const full = (count: number) =>
    apiError('sandbox_state_full', `sandbox state file ${path}: it holds ${count.toLocaleString('en-US')} reservations, the most the Node 20 store keeps (${bound.toLocaleString('en-US')}); no reservation was added: ${NEEDS_22}`);

  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(task: () => T | Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
  let checkedThisTurn = false;
  const bound = maxReservations();

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
      return doc.state;
    },
    transact: (fn) =>
      serialize(async () => {
        const run = () => {
          if (path !== null) refresh();
          // the draft copies only what fn reads: nothing is kept if it throws
          const { draft, finish } = begin(doc);
          const result = fn(draft);
          const change = finish();
          if (change === null) return result;
          const held = doc.sections.reservations.size;
          if (path !== null && change.reservations > bound && change.reservations > held) throw full(held);
          // the change's lines go into the held sections, and out again if the write fails
          const undo = stage(doc, change);
          if (path !== null) {
            try {
              write(toBytes(doc, change.header ?? doc.header));
            } catch (err) {
              undo();
              throw err;
            }
          }
          doc = apply(doc, change);
          return result;
        };
        return path === null ? run() : withFileLock(file, run);
      }),
    reseed: () =>
      serialize(async () => {
        const fresh = fromState(seedState(doc.state.seed, doc.state.fleetSize, opts.now()));
        if (path !== null) await withFileLock(file, () => writeWhole(fresh));
        else doc = fresh;
        return doc.state;
      }),
    close: async () => {
      await queue;
    },
  };
}
