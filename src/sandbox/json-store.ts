// The Node 20 store, and the in-memory one: the whole state as one JSON document (the
// version 1 format), read again when another process replaced it, and written whole and
// atomically (temp file, fsync, rename) under the file lock, so every guarantee of the
// SQLite store holds except scale: a write costs the size of the whole state. It goes
// when Node 20 does (docs/sandbox.md, "The state file").
import * as fs from 'node:fs';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { seedState } from './fixtures.js';
import { type ResolvedStoreOptions, StateFileError, type Store, backupPathFor, checkExpected, createEmpty, sniff, targetOf, withFileLock } from './store.js';
import { ImportError, parseJsonState, parseLogState } from './state-import.js';
import type { SandboxState } from './state.js';

export async function openJsonStore(opts: ResolvedStoreOptions, path: string | null): Promise<Store> {
  let text = '';
  let state: SandboxState;
  /** What identifies the file's version we hold: a write replaces the file, so its inode changes. */
  let stamp = '';

  const seeded = () => seedState(opts.useSeed, opts.useFleetSize, opts.now());
  const stampOf = (st: fs.Stats) => `${st.ino}:${st.size}:${st.mtimeMs}`;
  const fail = (reason: string): never => {
    throw new StateFileError(path as string, reason);
  };
  const parse = (t: string) => {
    try {
      return parseJsonState(t);
    } catch (err) {
      if (err instanceof ImportError) fail(err.message);
      throw err;
    }
  };
  const write = (next: SandboxState) => {
    const t = JSON.stringify(next);
    // through a symbolic link to its target, never over the link
    writeFileAtomicSync(targetOf(path as string), t, { mode: 0o600 });
    text = t;
    state = next;
    stamp = stampOf(fs.statSync(path as string));
  };
  /** Reads the file again if another process replaced it since. */
  const refresh = () => {
    const st = fs.statSync(path as string);
    if (stampOf(st) === stamp) return;
    const t = fs.readFileSync(path as string, 'utf8');
    state = parse(t);
    text = t;
    stamp = stampOf(st);
  };

  if (path === null) {
    state = seeded();
    text = JSON.stringify(state);
  } else {
    // The usual case, a file this store wrote, opens without the lock; anything else is settled under it.
    if (opts.reset || sniff(path) !== 'json') {
      await withFileLock(path, () => {
        const kind = sniff(path);
        if (opts.reset || kind === 'missing' || kind === 'empty') {
          createEmpty(path);
          write(seeded());
        } else if (kind === 'json') {
          refresh();
        } else if (kind === 'log') {
          let imported: SandboxState;
          try {
            imported = parseLogState(fs.readFileSync(path, 'utf8'));
          } catch (err) {
            if (err instanceof ImportError) fail(err.message);
            throw err;
          }
          const target = targetOf(path);
          fs.copyFileSync(target, backupPathFor(target), fs.constants.COPYFILE_EXCL);
          write(imported);
          // the log store's index beside it: a cache of a file that is gone
          fs.rmSync(`${target}.idx`, { force: true });
        } else if (kind === 'sqlite') {
          fail(`an SQLite database, which needs Node 22.13 or later (this is Node ${process.versions.node})`);
        } else {
          fail('not a carrental sandbox state');
        }
      });
    } else {
      refresh();
    }
  }
  checkExpected(path, state!, opts);

  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(task: () => T | Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
  let checkedThisTurn = false;

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
          const draft = JSON.parse(text) as SandboxState;
          const result = fn(draft);
          const after = JSON.stringify(draft);
          if (after !== text) {
            if (path !== null) write(draft);
            else text = after;
            state = draft;
          }
          return result;
        };
        return path === null ? apply() : withFileLock(path, apply);
      }),
    reseed: () =>
      serialize(async () => {
        const fresh = seedState(state.seed, state.fleetSize, opts.now());
        if (path !== null) await withFileLock(path, () => write(fresh));
        else text = JSON.stringify(fresh);
        state = fresh;
        return fresh;
      }),
    close: async () => {
      await queue;
    },
  };
}
