// What the journal fsyncs, and a set-aside that fails, with node:fs observed: a state
// directory the journal creates is only durable once each new directory's entry in its
// parent is synced (and nothing above the first one it created needs it).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cancelOfU1 } from './journal-command.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const promises = { ...real.promises, rename: vi.fn(real.promises.rename), lstat: vi.fn(real.promises.lstat) };
  return { ...real, default: { ...real, promises }, promises, openSync: vi.fn(real.openSync) };
});

const { credentialFingerprint, Journal } = await import('../../src/store/journal.js');

let dir: string;
const cmd = cancelOfU1(credentialFingerprint);
/** Directories opened for fsync (atomic-file.ts opens them read-only). */
const dirsSynced = () =>
  vi
    .mocked(fs.openSync)
    .mock.calls.filter(([, flags]) => flags === 'r')
    .map(([p]) => String(p));

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'carrental-journal-durable-'));
  vi.mocked(fs.openSync).mockClear();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('journal durability', () => {
  it('syncs the parent of every directory it creates, up to the first one it created, then the file’s directory', async () => {
    const file = path.join(dir, 'a', 'b', 'journal.json');
    await new Journal({ path: file }).begin(cmd);
    expect(dirsSynced()).toEqual([path.join(dir, 'a'), dir, path.join(dir, 'a', 'b')]);

    vi.mocked(fs.openSync).mockClear();
    await new Journal({ path: file }).begin({ ...cmd, target: 'u-2', request: { uuid: 'u-2' } });
    expect(dirsSynced()).toEqual([path.join(dir, 'a', 'b')]); // the directory existed: only the rename is synced
  });

  it('a corrupt journal that cannot be renamed aside is an error naming it, and it stays as it was', async () => {
    const file = path.join(dir, 'journal.json');
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, 'not json');
    vi.mocked(fs.promises.rename).mockRejectedValueOnce(Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' }));
    const err = await new Journal({ path: file, onWarning: () => undefined })
      .list()
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(`cannot set aside the idempotency journal ${file} (EIO)`);
    expect(readFileSync(file, 'utf8')).toBe('not json');
  });

  it('a set-aside name that cannot be checked (EIO) is an error: nothing is renamed over anything', async () => {
    const file = path.join(dir, 'journal.json');
    writeFileSync(file, 'not json');
    vi.mocked(fs.promises.rename).mockClear();
    vi.mocked(fs.promises.lstat).mockRejectedValueOnce(Object.assign(new Error('EIO: i/o error, lstat'), { code: 'EIO' }));
    const err = await new Journal({ path: file, onWarning: () => undefined })
      .list()
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(`cannot set aside the idempotency journal ${file} (EIO)`);
    expect(fs.promises.rename).not.toHaveBeenCalled();
    expect(readFileSync(file, 'utf8')).toBe('not json');
  });

  it('a set-aside file is synced into its directory', async () => {
    const file = path.join(dir, 'journal.json');
    writeFileSync(file, 'not json');
    await new Journal({ path: file, onWarning: () => undefined }).list();
    expect(dirsSynced()).toEqual([dir]);
  });
});
