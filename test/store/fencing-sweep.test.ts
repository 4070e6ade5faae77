// Issue 35, fencing: whoever takes a file's lock removes the file's temp files before it
// reads (test/store/fencing-rename.test.ts shows why: a writer that lost the lock cannot
// rename one over the file after that read). Here the sweep itself: what it removes,
// where, what it never touches, and a holder whose own temp file a loser swept.
import * as fs from 'node:fs';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AtomicFs } from '../../src/store/atomic-file.js';
import { LockedFile, type LockedFileOptions } from '../../src/store/locked-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-sweep-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const locked = (file: string, more: Partial<LockedFileOptions> = {}) =>
  new LockedFile({ path: file, lockPath: `${file}.lock`, what: 'the file', lockWhat: 'the lock', staleMs: 10_000, waitMs: 2_000, fail: (_a, err) => err as Error, ...more });

/** Never removed: set-aside copies, backups, other files' temp files, near misses. */
const KEEP = ['f.json.corrupt-2026-11-01T12-00-00-000Z', 'f.json.corrupt-2026-11-01T12-00-00-000Z-1', 'f.json.bak', 'g.json.1.2.tmp', 'f.json.1.2.tmp.bak', 'f.json.12.tmp', 'f.jsox.1.2.tmp'];
const TEMP = ['f.json.4242.7.tmp', 'f.json.1.1.tmp'];

describe('the temp-file sweep when the lock is taken', () => {
  it('removes the temp files of the file before the caller reads, and nothing else', async () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, 'data');
    for (const name of [...KEEP, ...TEMP, 'f.json.123456']) writeFileSync(join(dir, name), 'x');
    let seen: string[] = [];
    // a change that writes nothing: the sweep belongs to taking the lock, not to writing
    await locked(file).withLock(async (held) => {
      seen = readdirSync(dir).sort();
      expect(held.read()).toBe('data');
    });
    // `<file>.<digits>` is left alone unless the caller says its older versions made it
    expect(seen).toEqual(['f.json', 'f.json.123456', 'f.json.lock', ...KEEP].sort());
    for (const name of KEEP) expect(readFileSync(join(dir, name), 'utf8')).toBe('x');
  });

  it('removes the legacy temp names it is given (the journal: write-file-atomic <file>.<digits>)', async () => {
    const file = join(dir, 'f.json');
    for (const name of [...KEEP, 'f.json.123456', 'f.json.123abc']) writeFileSync(join(dir, name), 'x');
    await locked(file, { legacyTempSuffix: /^\d+$/ }).withLock(async (held) => held.write('new'));
    expect(readdirSync(dir).sort()).toEqual(['f.json', 'f.json.123abc', ...KEEP].sort());
  });

  it('through a symlink, sweeps beside the target, where the writes make their temp files', async () => {
    mkdirSync(join(dir, 'dotfiles'));
    writeFileSync(join(dir, 'dotfiles', 'f.json'), 'data');
    symlinkSync(join(dir, 'dotfiles', 'f.json'), join(dir, 'f.json'));
    writeFileSync(join(dir, 'dotfiles', 'f.json.4242.7.tmp'), 'x');
    // not the link's own name's temp files beside the link: nobody writes there
    writeFileSync(join(dir, 'f.json.4242.8.tmp'), 'x');
    await locked(join(dir, 'f.json')).withLock(async () => undefined);
    expect(readdirSync(join(dir, 'dotfiles'))).toEqual(['f.json']);
    expect(readdirSync(dir).sort()).toEqual(['dotfiles', 'f.json', 'f.json.4242.8.tmp']);
  });

  it('a file the sweep cannot remove (a directory of that name) does not fail the command', async () => {
    const file = join(dir, 'f.json');
    mkdirSync(join(dir, 'f.json.4242.7.tmp'));
    writeFileSync(join(dir, 'f.json.4242.8.tmp'), 'x');
    await locked(file).withLock(async (held) => held.write('new'));
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir).sort()).toEqual(['f.json', 'f.json.4242.7.tmp']);
  });
});

describe('a holder whose temp file is removed before its rename', () => {
  // A process that lost the lock while it was sweeping (stopped between its check and its
  // unlink) removes the new holder's temp file: the holder, still holding the lock, writes again.
  const removedOnce = (times: number): AtomicFs => {
    let left = times;
    return {
      ...fs,
      renameSync: (from, to) => {
        if (left-- > 0) unlinkSync(from);
        fs.renameSync(from, to);
      },
    };
  };

  it('writes again once, and the file is whole', async () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, 'old');
    await locked(file, { fs: removedOnce(1) }).withLock(async (held) => held.write('new'));
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('a second time fails with the error and leaves the old file as it was', async () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, 'old');
    const err = await locked(file, { fs: removedOnce(2) })
      .withLock(async (held) => held.write('new'))
      .catch((e: unknown) => e as NodeJS.ErrnoException);
    expect(err).toMatchObject({ code: 'ENOENT', syscall: 'rename' });
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['f.json']);
  });
});
