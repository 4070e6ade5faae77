// A cross-process lock (proper-lockfile) that waits only while another process holds it.
// proper-lockfile's own retries retry every error, so a read-only or full filesystem
// would make a command wait for the whole retry budget before failing; here any error
// other than ELOCKED fails at once.
//
// Fencing. proper-lockfile treats a lock whose directory was not refreshed for `staleMs`
// as abandoned and lets the next process take it over. A holder that was only stopped
// (Ctrl-Z, SIGSTOP, a laptop lid) is not told until its refresh timer runs, and code that
// resumes synchronously runs before that timer: it would write from what it read before,
// and its release (or its exit handler) would remove the new holder's lock. So every
// acquisition records the mtimes it gave the lock directory, and `isHeld()` checks,
// synchronously, that the directory is still the one it made and kept fresh; removal of
// a directory that is no longer ours is skipped.
import * as nodeFs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

export interface LockOptions {
  /** The lock directory proper-lockfile creates. */
  lockfilePath: string;
  /** After how long an un-refreshed lock counts as abandoned (its holder was killed); at least 2 s. */
  staleMs: number;
  /** How long to wait for a live holder before giving up (ELOCKED). */
  waitMs: number;
  onCompromised?: (err: Error) => void;
  /** Tests observe the backoff through these; default setTimeout and Math.random. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** Releases the lock (a no-op on the directory once another process has taken it over). */
export type Release = (() => Promise<void>) & {
  /** Synchronously: nobody has taken this lock over since it was acquired (the directory is ours). */
  isHeld(): boolean;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Callback = (err: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;

/**
 * The few fs calls proper-lockfile makes, for one acquisition: the mtimes it sets on (and,
 * while acquiring, reads from) our lock directory are recorded as ours, and once the lock
 * is acquired a directory that no longer carries one of them is not removed.
 */
function fencedFs(lockfilePath: string) {
  const dir = path.resolve(lockfilePath);
  const mine = (p: string) => path.resolve(p) === dir;
  const ours = new Set<number>();
  let made = false;
  let acquired = false;
  const isHeld = (): boolean => {
    try {
      return ours.has(nodeFs.statSync(dir).mtime.getTime());
    } catch {
      return false;
    }
  };
  const fs = {
    mkdir: (p: string, cb: Callback) =>
      nodeFs.mkdir(p, (err) => {
        if (!err && mine(p)) made = true;
        cb(err);
      }),
    realpath: (p: string, cb: Callback) => nodeFs.realpath(p, cb),
    stat: (p: string, cb: Callback) =>
      nodeFs.stat(p, (err, st) => {
        // while acquiring, the stat after mkdir is the mtime proper-lockfile keeps as ours
        if (!err && made && !acquired && mine(p)) ours.add(st.mtime.getTime());
        cb(err, st);
      }),
    utimes: (p: string, atime: Date, mtime: Date, cb: Callback) => {
      if (mine(p)) ours.add(mtime.getTime());
      nodeFs.utimes(p, atime, mtime, cb);
    },
    rmdir: (p: string, cb: Callback) => {
      if (acquired && mine(p) && !isHeld()) return void cb(null);
      nodeFs.rmdir(p, cb);
    },
    // proper-lockfile's exit handler
    rmdirSync: (p: string) => {
      if (acquired && mine(p) && !isHeld()) return;
      nodeFs.rmdirSync(p);
    },
  };
  return { fs, isHeld, markAcquired: () => (acquired = true) };
}

/** Resolves to the release function; rejects with ELOCKED after `waitMs`, or with any other error at once. */
export async function acquireLock(file: string, opts: LockOptions): Promise<Release> {
  const deadline = Date.now() + opts.waitMs;
  const wait = opts.sleep ?? sleep;
  const random = opts.random ?? Math.random;
  // Backoff from 15 ms up to 500 ms, with jitter so that waiting processes spread out.
  for (let delay = 15; ; delay = Math.min(delay * 1.5, 500)) {
    const fenced = fencedFs(opts.lockfilePath);
    try {
      const release = await lockfile.lock(file, {
        realpath: false,
        lockfilePath: opts.lockfilePath,
        stale: opts.staleMs,
        retries: 0,
        fs: fenced.fs,
        ...(opts.onCompromised ? { onCompromised: opts.onCompromised } : {}),
      });
      fenced.markAcquired();
      return Object.assign(() => release(), { isHeld: fenced.isHeld });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || Date.now() >= deadline) throw err;
      await wait(delay / 2 + random() * (delay / 2));
    }
  }
}
