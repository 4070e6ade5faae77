// acquireLock (src/store/lock.ts) on its own: it waits only while another process holds
// the lock, fails at once on any other error, and hands proper-lockfile's "compromised"
// signal to the caller instead of letting it throw from a timer.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
