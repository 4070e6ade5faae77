// acquireLock (src/store/lock.ts) on its own: it waits only while another process holds
// the lock, fails at once on any other error, and hands proper-lockfile's "compromised"
// signal to the caller instead of letting it throw from a timer.
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/store/lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const error = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as NodeJS.ErrnoException);

describe('acquireLock', () => {
  it('fails at once on an error other than ELOCKED (a missing directory)', async () => {
    const started = Date.now();
    const err = await error(acquireLock(join(dir, 'missing', 'f'), { lockfilePath: join(dir, 'missing', 'f.lock'), staleMs: 2_000, waitMs: 5_000 }));
    expect(err?.code).toBe('ENOENT');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits for a live holder up to waitMs, then fails with ELOCKED', async () => {
    const file = join(dir, 'f');
    const release = await lockfile.lock(file, { realpath: false, lockfilePath: `${file}.lock`, stale: 5_000 });
    try {
      const started = Date.now();
      const err = await error(acquireLock(file, { lockfilePath: `${file}.lock`, staleMs: 5_000, waitMs: 400 }));
      expect(err?.code).toBe('ELOCKED');
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await release();
    }
  });

  it('takes the lock as soon as the holder lets go, and its release removes it', async () => {
    const file = join(dir, 'f');
    const held = await lockfile.lock(file, { realpath: false, lockfilePath: `${file}.lock`, stale: 5_000 });
    setTimeout(() => void held(), 150);
    const release = await acquireLock(file, { lockfilePath: `${file}.lock`, staleMs: 5_000, waitMs: 3_000 });
    expect(existsSync(`${file}.lock`)).toBe(true);
    await release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('tells the caller when the lock was taken from it, instead of throwing', async () => {
    const file = join(dir, 'f');
    let compromised: Error | undefined;
    const release = await acquireLock(file, { lockfilePath: `${file}.lock`, staleMs: 2_000, waitMs: 1_000, onCompromised: (e) => (compromised = e) });
    rmSync(`${file}.lock`, { recursive: true, force: true }); // someone else removed it
    const deadline = Date.now() + 4_000;
    while (!compromised && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(compromised).toBeInstanceOf(Error);
    await release().catch(() => undefined);
  });
});

describe('acquireLock backoff', () => {
  it('waits 15 ms at first, half of it fixed and half jittered, growing by half each time up to 500 ms', async () => {
    const file = join(dir, 'f');
    const held = await lockfile.lock(file, { realpath: false, lockfilePath: `${file}.lock`, stale: 5_000 });
    const waits: number[] = [];
    try {
      const err = await error(
        acquireLock(file, {
          lockfilePath: `${file}.lock`,
          staleMs: 5_000,
          waitMs: 300,
          random: () => 0.5,
          sleep: async (ms) => {
            waits.push(ms);
            await new Promise((r) => setTimeout(r, 5));
          },
        }),
      );
      expect(err?.code).toBe('ELOCKED');
    } finally {
      await held();
    }
    const expected: number[] = [];
    for (let delay = 15; expected.length < waits.length; delay = Math.min(delay * 1.5, 500)) expected.push(delay * 0.75);
    expect(waits.length).toBeGreaterThan(10);
    expect(waits).toEqual(expected);
    expect(waits.slice(0, 3)).toEqual([11.25, 16.875, 25.3125]);
    expect(Math.max(...waits)).toBeLessThanOrEqual(375);
  });

  it('with no jitter drawn, waits exactly half the step', async () => {
    const file = join(dir, 'f');
    const held = await lockfile.lock(file, { realpath: false, lockfilePath: `${file}.lock`, stale: 5_000 });
    const waits: number[] = [];
    try {
      await error(
        acquireLock(file, {
          lockfilePath: `${file}.lock`,
          staleMs: 5_000,
          waitMs: 60,
          random: () => 0,
          sleep: async (ms) => {
            waits.push(ms);
            await new Promise((r) => setTimeout(r, 10));
          },
        }),
      );
    } finally {
      await held();
    }
    expect(waits[0]).toBe(7.5);
    expect(waits[1]).toBe(11.25);
  });

  it('fencing: isHeld() stays true while the lock is refreshed, turns false once another process took it over, and release() then leaves the new lock alone', async () => {
    const file = join(dir, 'f');
    const lockDir = `${file}.lock`;
    const release = await acquireLock(file, { lockfilePath: lockDir, staleMs: 2_000, waitMs: 1_000, onCompromised: () => undefined });
    expect(release.isHeld()).toBe(true);
    // proper-lockfile refreshes the mtime every second: still ours
    await new Promise((r) => setTimeout(r, 1_300));
    expect(release.isHeld()).toBe(true);
    // what a stale takeover does: the directory removed and made again by someone else
    rmSync(lockDir, { recursive: true });
    mkdirSync(lockDir);
    utimesSync(lockDir, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));
    expect(release.isHeld()).toBe(false);
    await release();
    expect(existsSync(lockDir)).toBe(true);
  });
});
