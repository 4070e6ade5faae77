// Whole or nothing: a short write, ENOSPC, a missing or read-only directory leave the old
// file exactly as it was and no temp file behind. The injected short write runs
// everywhere; the real small filesystem (a 64 KiB tmpfs) needs root to mount.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTempFileOf, writeFileAtomicSync, type AtomicFs } from '../../src/store/atomic-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-atomic-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function shortWriter(maxPerCall: number, totalBudget: number): AtomicFs {
  let written = 0;
  return {
    ...fs,
    writeSync: (fd, buffer, offset, length, position) => {
      // Like write(2) on a nearly full disk: part of the buffer, then nothing.
      const n = Math.max(0, Math.min(length, maxPerCall, totalBudget - written));
      if (n === 0) return 0;
      written += n;
      return fs.writeSync(fd, buffer, offset, n, position);
    },
  };
}

describe('writeFileAtomicSync', () => {
  it('writes the whole file with mode 0600 and leaves no temp file', () => {
    const file = join(dir, 'a.json');
    writeFileAtomicSync(file, '{"a":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('loops over partial writes until the whole buffer is down', () => {
    const file = join(dir, 'a.json');
    const text = 'x'.repeat(10_000);
    writeFileAtomicSync(file, text, { fs: shortWriter(700, Infinity) });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a short write (the disk fills up) throws ENOSPC and keeps the old file intact', () => {
    const file = join(dir, 'a.json');
    writeFileSync(file, 'old contents');
    expect(() => writeFileAtomicSync(file, 'y'.repeat(10_000), { fs: shortWriter(4096, 4096) })).toThrow(/ENOSPC/);
    expect(readFileSync(file, 'utf8')).toBe('old contents');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('writes a list of byte chunks one after the other, whole or not at all (the Node 20 sandbox store)', () => {
    const file = join(dir, 'a.json');
    const chunks = ['{"a":', '1'.repeat(5000), ',"b":2}\n'].map((t) => Buffer.from(t));
    writeFileAtomicSync(file, chunks, { fs: shortWriter(700, Infinity) });
    expect(readFileSync(file, 'utf8')).toBe(`{"a":${'1'.repeat(5000)},"b":2}\n`);
    // the disk fills up in the second chunk: the old file stays
    expect(() => writeFileAtomicSync(file, chunks, { fs: shortWriter(4096, 4096) })).toThrow(/ENOSPC/);
    expect(readFileSync(file, 'utf8')).toBe(`{"a":${'1'.repeat(5000)},"b":2}\n`);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('a missing directory throws ENOENT and creates nothing', () => {
    expect(() => writeFileAtomicSync(join(dir, 'nope', 'a.json'), 'x')).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('recognises its own temp files, and nothing else', () => {
    const file = join(dir, 'journal.json');
    expect(isTempFileOf(file, `${file}.123.4.tmp`)).toBe(true);
    expect(isTempFileOf(file, `${file}.corrupt-2026-01-01T00-00-00-000Z`)).toBe(false);
    expect(isTempFileOf(file, `${file}.lock`)).toBe(false);
    expect(isTempFileOf(file, join(dir, 'other.json.1.2.tmp'))).toBe(false);
  });
});

// A real filesystem that runs out of space. Mounting needs root (CI runs as root).
const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;

describe.runIf(canMount)('on a real 64 KiB tmpfs (root only)', () => {
  let mnt: string;
  beforeEach(() => {
    mnt = mkdtempSync(join(tmpdir(), 'carrental-tmpfs-'));
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt]);
    if (r.status !== 0) throw new Error(`mount failed: ${r.stderr}`);
  });
  afterEach(() => {
    spawnSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });

  it('ENOSPC leaves the old file whole and no temp file', () => {
    const file = join(mnt, 'journal.json');
    writeFileAtomicSync(file, JSON.stringify({ version: 1, entries: [] }));
    // Fill the disk to within a few KB.
    try {
      writeFileSync(join(mnt, 'filler'), Buffer.alloc(60 * 1024));
    } catch {
      // a full disk is the point
    }
    const before = readFileSync(file, 'utf8');
    expect(() => writeFileAtomicSync(file, 'z'.repeat(32 * 1024))).toThrow(/ENOSPC/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(mnt).sort()).toEqual(['filler', 'journal.json']);
  });

  it('a read-only filesystem throws EROFS and keeps the file', () => {
    const file = join(mnt, 'config.json');
    writeFileAtomicSync(file, '{"profiles":{}}');
    expect(spawnSync('mount', ['-o', 'remount,ro', mnt]).status).toBe(0);
    expect(() => writeFileAtomicSync(file, '{"profiles":{"x":{}}}')).toThrow(/EROFS/);
    expect(readFileSync(file, 'utf8')).toBe('{"profiles":{}}');
  });
});
