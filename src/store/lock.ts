// A cross-process lock (proper-lockfile) that waits only while another process holds it.
// proper-lockfile's own retries retry every error, so a read-only or full filesystem
// would make a command wait for the whole retry budget before failing; here any error
// other than ELOCKED fails at once.
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves to the release function; rejects with ELOCKED after `waitMs`, or with any other error at once. */
export async function acquireLock(file: string, opts: LockOptions): Promise<() => Promise<void>> {
  const deadline = Date.now() + opts.waitMs;
  const wait = opts.sleep ?? sleep;
  const random = opts.random ?? Math.random;
  // Backoff from 15 ms up to 500 ms, with jitter so that waiting processes spread out.
  for (let delay = 15; ; delay = Math.min(delay * 1.5, 500)) {
    try {
      return await lockfile.lock(file, {
        realpath: false,
        lockfilePath: opts.lockfilePath,
        stale: opts.staleMs,
        retries: 0,
        ...(opts.onCompromised ? { onCompromised: opts.onCompromised } : {}),
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || Date.now() >= deadline) throw err;
      await wait(delay / 2 + random() * (delay / 2));
    }
  }
}
