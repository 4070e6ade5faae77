// One small file that several carrental processes change (the config, the journal): read
// it, change it and write it back under a cross-process lock, so that two processes never
// lose each other's change. Within one process, calls queue instead of spinning on the
// lock. Reads refuse a FIFO, socket or device (regular-file.ts); writes are whole or
// nothing and go through a symlink to its target (atomic-file.ts).
//
// Fencing. A holder stopped (SIGSTOP, a suspended laptop) longer than the stale time loses
// the lock to another process without knowing it. Its writes check the lock before the
// rename (beforeRename), but a stop between that check and the rename itself is beyond any
// check. What closes it: only a holder of the lock ever makes a temp file, so whoever
// acquires the lock removes every temp file of the file before it reads. The loser's rename
// and that unlink are two atomic operations on one directory: either the rename came first
// and the new holder reads the loser's file, or the rename fails (ENOENT), the loser finds
// the lock gone and starts over under a new lock, re-reading what the new holder wrote.
import { mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { CliError } from '../errors.js';
import { fsyncDirSync, isTempFileOf, writeFileAtomicSync, writeTarget, type AtomicFs } from './atomic-file.js';
import type { Release } from './lock.js';
import { checkLockPath, readRegularFileSync } from './regular-file.js';

export interface LockedFileOptions {
  path: string;
  /** The lock directory proper-lockfile creates. */
  lockPath: string;
  /** The file in messages: "the config file", "the idempotency journal". */
  what: string;
  /** The lock in messages: "the config lock". */
  lockWhat: string;
  /** After how long an un-refreshed lock counts as abandoned (its holder was killed). */
  staleMs: number;
  /** How long to wait for a live holder. */
  waitMs: number;
  /** The caller's error for a failure to create the directory or to take the lock. */
  fail: (action: 'create the directory of' | 'lock', err: unknown) => Error;
  /** Tests inject a short write here (atomic-file.ts). */
  fs?: AtomicFs;
  /**
   * Temp files of older carrental versions, also swept at acquisition: what follows
   * `<file>.` in their names (the journal's write-file-atomic `<digits>`).
   */
  legacyTempSuffix?: RegExp;
}

/** What a caller may do while it holds the lock. */
export interface HeldFile {
  /** The file's text, undefined when there is none. */
  read(): string | undefined;
  /** Replaces the file whole (0600); refused once another process may have taken the lock over. */
  write(text: string, hint?: string): void;
}

/** A write refused because the lock was taken over; withLock runs the change again under a new lock. */
class LockLost extends CliError {}

/** The rename of a write failed because its temp file was removed meanwhile. */
function isMissingTempOnRename(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  return e?.code === 'ENOENT' && e.syscall === 'rename';
}

/** Rounds of a change whose lock was taken over, before the refusal reaches the caller. */
const MAX_ROUNDS = 3;

// Lock attempts within one process queue here instead of spinning on the lock directory.
const inProcessQueues = new Map<string, Promise<unknown>>();

function serialize<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = inProcessQueues.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  inProcessQueues.set(key, tail);
  void tail.then(() => {
    if (inProcessQueues.get(key) === tail) inProcessQueues.delete(key);
  });
  return run;
}

export class LockedFile {
  readonly path: string;
  readonly dir: string;

  constructor(private readonly opts: LockedFileOptions) {
    this.path = opts.path;
    this.dir = path.dirname(opts.path);
  }

  /** The file's text without the lock (a reader that changes nothing); undefined when there is none. */
  read(): string | undefined {
    return readRegularFileSync(this.path, this.opts.what);
  }

  /**
   * Runs `fn` holding the lock; the directory (0700) is created first, durably. A write
   * made after the lock was taken over (this process was stopped longer than the stale
   * time, and another took the lock as abandoned) is refused before its rename, and `fn`
   * runs again from the start under a new acquisition: it re-reads the file and re-applies
   * its change to what the other process wrote, so `fn` must be a pure read-change-write.
   */
  async withLock<T>(fn: (file: HeldFile) => Promise<T>): Promise<T> {
    for (let round = 1; ; round++) {
      try {
        return await this.once(fn);
      } catch (err) {
        if (!(err instanceof LockLost) || round >= MAX_ROUNDS) throw err;
      }
    }
  }

  private once<T>(fn: (file: HeldFile) => Promise<T>): Promise<T> {
    const { opts } = this;
    return serialize(this.path, async () => {
      this.ensureDir();
      checkLockPath(opts.lockPath, opts.lockWhat);
      // the lock library loads only when something is written
      const { acquireLock } = await import('./lock.js');
      let compromised: Error | undefined;
      let release: Release;
      try {
        release = await acquireLock(this.path, {
          lockfilePath: opts.lockPath,
          staleMs: opts.staleMs,
          waitMs: opts.waitMs,
          // The default throws from a timer and crashes the process; instead refuse to
          // write once another process may have taken the lock over.
          onCompromised: (err) => {
            compromised = err;
          },
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
          throw new CliError('api', `${opts.what} ${this.path} is locked by another carrental process`, {
            hint: `wait for it to finish; if no carrental is running, remove ${opts.lockPath}`,
            cause: err,
          });
        }
        throw opts.fail('lock', err);
      }
      // proper-lockfile learns of a takeover only from a timer, which a process resuming
      // from SIGSTOP has not run yet: the lock directory itself is checked, synchronously
      const fence = (hint?: string) => {
        if (compromised || !release.isHeld()) {
          throw new LockLost('api', `lost the lock on ${opts.what} ${this.path}; nothing was written`, { cause: compromised, hint });
        }
      };
      const held: HeldFile = {
        read: () => this.read(),
        write: (text, hint) => {
          for (let attempt = 1; ; attempt++) {
            fence(hint);
            try {
              writeFileAtomicSync(this.path, text, { mode: 0o600, fsync: true, fs: opts.fs, beforeRename: () => fence(hint) });
              return;
            } catch (err) {
              if (err instanceof LockLost) throw err;
              // the new holder swept this stopped writer's temp file: the rename failed
              fence(hint);
              // The lock is ours, yet the temp file is gone: a process that lost the lock
              // while it was sweeping (stopped between its check and its unlink) removed it.
              // It cannot sweep twice without a new lock, which waits for ours.
              if (attempt === 1 && isMissingTempOnRename(err)) continue;
              throw err;
            }
          }
        },
      };
      try {
        // Only while the lock is certainly ours: a sweep by a process that lost it could
        // remove the new holder's temp file. One that lost it already learns so at its write.
        if (!compromised && release.isHeld()) this.sweepTempFiles();
        return await fn(held);
      } finally {
        // A lock taken over belongs to someone else: release() leaves its directory alone.
        await release().catch(() => undefined);
      }
    });
  }

  /**
   * Removes the temp files of the file (beside its target when it is a symlink: they are
   * made there) before the caller reads it: each belongs to a writer that was killed or
   * lost the lock, whose rename must not land after this read. Nothing else is touched: a
   * set-aside `journal.json.corrupt-*` is the user's only copy of their keys. Best effort:
   * litter left behind never fails the command.
   */
  private sweepTempFiles(): void {
    const legacy = this.opts.legacyTempSuffix;
    let target: string;
    let names: string[];
    try {
      target = writeTarget(this.path);
      names = readdirSync(path.dirname(target));
    } catch {
      return;
    }
    const base = path.basename(target);
    for (const name of names) {
      const old = legacy !== undefined && name.startsWith(`${base}.`) && legacy.test(name.slice(base.length + 1));
      if (!old && !isTempFileOf(target, name)) continue;
      try {
        unlinkSync(path.join(path.dirname(target), name));
      } catch {
        // gone already, or not ours to remove: the next acquisition tries again
      }
    }
  }

  private ensureDir(): void {
    let created: string | undefined;
    try {
      created = mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw this.opts.fail('create the directory of', err);
    }
    if (created === undefined) return;
    // A new directory is only durable once its own entry in the parent is synced.
    for (let dir = this.dir; dir !== path.dirname(dir); dir = path.dirname(dir)) {
      fsyncDirSync(path.dirname(dir));
      if (dir === path.resolve(created)) break;
    }
  }
}
