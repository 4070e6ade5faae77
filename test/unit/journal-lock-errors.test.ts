// The journal's error branches around its lock, with the lock replaced: a lock that fails
// for another reason than "held elsewhere", one held until the wait runs out, and one lost
// (compromised) before the write. Each must end the command with a clear error before
// anything is sent, and leave the journal as it was.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../src/errors.js';
import type { LockOptions } from '../../src/store/lock.js';
import { cancelOfU1 } from './journal-command.js';

const lock = vi.hoisted(() => ({
  impl: undefined as undefined | ((file: string, opts: LockOptions) => Promise<() => Promise<void>>),
  released: 0,
  lastOpts: undefined as LockOptions | undefined,
}));

vi.mock('../../src/store/lock.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/store/lock.js')>();
  return {
    acquireLock: (file: string, opts: LockOptions) => {
      lock.lastOpts = opts;
      return (lock.impl ?? real.acquireLock)(file, opts);
    },
  };
});

const { credentialFingerprint, Journal } = await import('../../src/store/journal.js');

let dir: string;
let file: string;
const cmd = cancelOfU1(credentialFingerprint);
const open = () => new Journal({ path: file, onWarning: () => undefined });

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'carrental-journal-lock-'));
  file = path.join(dir, 'state', 'journal.json');
  lock.impl = undefined;
  lock.released = 0;
  lock.lastOpts = undefined;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rejectWith = (err: unknown) => {
  lock.impl = async () => {
    throw err;
  };
};

describe('the journal lock', () => {
  it('waits about twice the stale time, 10 s by default, for a live holder', async () => {
    await open().begin(cmd);
    expect(lock.lastOpts).toMatchObject({ lockfilePath: `${file}.lock`, staleMs: 10_000, waitMs: 20_000 });
    expect(lock.lastOpts?.onCompromised).toBeTypeOf('function');
    await new Journal({ path: file, lockStaleMs: 3_000 }).list();
    expect(lock.lastOpts).toMatchObject({ staleMs: 3_000, waitMs: 6_000 });
  });

  it('held until the wait runs out (ELOCKED): says another carrental holds it and how to clear a stale lock', async () => {
    rejectWith(Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED' }));
    const err = (await open()
      .begin(cmd)
      .catch((e: unknown) => e)) as CliError;
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toBe(`the idempotency journal ${file} is locked by another carrental process`);
    expect(err.hint).toBe(`wait for it to finish; if no carrental is running, remove ${file}.lock`);
    expect(err.kind).toBe('api');
    expect(err.exitCode).toBe(1);
    expect(existsSync(file)).toBe(false);
  });

  it('any other lock error fails at once, naming the journal and the error code', async () => {
    rejectWith(Object.assign(new Error('EIO: i/o error, mkdir'), { code: 'EIO' }));
    const err = (await open()
      .begin(cmd)
      .catch((e: unknown) => e)) as CliError;
    expect(err.message).toBe(`cannot lock the idempotency journal ${file} (EIO)`);
    expect(err.exitCode).toBe(1);
  });

  it('a lock error without an error code is named by its text', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ version: 2, entries: [] }));
    rejectWith(new Error('something odd'));
    const err = (await open()
      .list()
      .catch((e: unknown) => e)) as CliError;
    expect(err.message).toBe(`cannot lock the idempotency journal ${file} (Error: something odd)`);
    rejectWith('not even an Error');
    const plain = (await open()
      .list()
      .catch((e: unknown) => e)) as CliError;
    expect(plain.message).toBe(`cannot lock the idempotency journal ${file} (not even an Error)`);
  });

  it('a lock lost before the write, every time: nothing is written, the error says so, and each lock is still released', async () => {
    await open().begin({ ...cmd, target: 'u-0', request: { uuid: 'u-0' } });
    const before = readFileSync(file, 'utf8');
    lock.impl = async (_file, opts) => {
      opts.onCompromised?.(new Error('lock compromised: mtime changed'));
      return async () => {
        lock.released++;
        throw new Error('already released by someone else');
      };
    };
    const err = (await open()
      .begin(cmd)
      .catch((e: unknown) => e)) as CliError;
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toBe(`lost the lock on the idempotency journal ${file}; nothing was written`);
    expect(err.hint).toBe('nothing was sent');
    expect(err.kind).toBe('api');
    expect((err.cause as Error).message).toBe('lock compromised: mtime changed');
    // the change is tried again under a new lock (fencing, locked-file.ts), three rounds in all
    expect(lock.released).toBe(3);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
