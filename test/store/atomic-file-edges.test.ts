// The parts of the atomic writer that only show in the calls it makes: fsync of the file
// and of its directory (and only when asked), the size check before the rename, the temp
// names a sweep may delete, the ENOSPC it makes of a write that stalls. node:fs is wrapped
// so that the directory fsync, which always goes to the real module, can be observed.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fsyncDirSync, isTempFileOf, tempPathFor, writeFileAtomic, writeFileAtomicSync, type AtomicFs } from '../../src/store/atomic-file.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, default: real, fsyncSync: vi.fn(real.fsyncSync), closeSync: vi.fn(real.closeSync), openSync: vi.fn(real.openSync) };
});

const real = await vi.importActual<typeof import('node:fs')>('node:fs');
const posixOnly = process.platform === 'win32' ? it.skip : it;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-atomic-edges-'));
  vi.mocked(fs.fsyncSync).mockClear();
  vi.mocked(fs.closeSync).mockClear();
  vi.mocked(fs.openSync).mockClear();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The real fs, with every call the writer makes through `options.fs` recorded. */
function recordingFs(over: Partial<AtomicFs> = {}): AtomicFs & { calls: string[] } {
  const calls: string[] = [];
  const wrap =
    <K extends keyof AtomicFs>(name: K) =>
    (...args: unknown[]) => {
      calls.push(name);
      return ((over[name] ?? real[name]) as (...a: unknown[]) => unknown)(...args);
    };
  const names: Array<keyof AtomicFs> = ['openSync', 'writeSync', 'fsyncSync', 'fstatSync', 'closeSync', 'fchmodSync', 'renameSync', 'unlinkSync'];
  return Object.assign(Object.fromEntries(names.map((n) => [n, wrap(n)])) as unknown as AtomicFs, { calls });
}

describe('temp names', () => {
  it('tempPathFor gives <file>.<pid>.<n>.tmp, n one more each call, which isTempFileOf recognises', () => {
    const file = join(dir, 'journal.json');
    const pattern = new RegExp(`^${file.replace(/[.]/g, '\\.')}\\.${process.pid}\\.(\\d+)\\.tmp$`);
    const a = tempPathFor(file);
    const b = tempPathFor(file);
    const [na, nb] = [a, b].map((p) => Number(pattern.exec(p)?.[1]));
    expect(na).toBeGreaterThanOrEqual(0);
    expect(nb).toBe((na + 1) % 1_000_000);
    expect(isTempFileOf(file, a)).toBe(true);
    expect(isTempFileOf(file, basename(b))).toBe(true);
  });

  it('isTempFileOf matches only the exact file name followed by .<digits>.<digits>.tmp', () => {
    const file = join(dir, 'journal.json');
    expect(isTempFileOf(file, 'journal.json.12.345.tmp')).toBe(true);
    expect(isTempFileOf(file, '/elsewhere/journal.json.1.2.tmp')).toBe(true);
    for (const name of ['journal.jsox.1.2.tmp', 'xjournal.json.1.2.tmp', 'journal.json.x1.2.tmp', 'journal.json.1.2.tmp.bak', 'journal.json.1.2.tmpx', 'journal.json.1.tmp', 'journal.json.corrupt-2026.1.2.tmp']) {
      expect(isTempFileOf(file, name), name).toBe(false);
    }
  });
});

describe('writeFileAtomicSync', () => {
  it('by default fsyncs the file before the rename and the directory after it, and removes nothing', () => {
    const file = join(dir, 'a.json');
    const rec = recordingFs();
    writeFileAtomicSync(file, 'data', { fs: rec });
    expect(rec.calls).toEqual(['openSync', 'fchmodSync', 'writeSync', 'fsyncSync', 'fstatSync', 'closeSync', 'renameSync']);
    expect(fs.fsyncSync).toHaveBeenCalledTimes(1); // the directory, through node:fs itself
    expect(readFileSync(file, 'utf8')).toBe('data');
  });

  it('with fsync: false, fsyncs neither the file nor the directory', () => {
    const file = join(dir, 'a.json');
    const rec = recordingFs();
    writeFileAtomicSync(file, 'data', { fs: rec, fsync: false });
    expect(rec.calls).not.toContain('fsyncSync');
    expect(fs.fsyncSync).not.toHaveBeenCalled();
    expect(readFileSync(file, 'utf8')).toBe('data');
  });

  it('writes bytes as given', () => {
    const file = join(dir, 'b.bin');
    const bytes = new Uint8Array([0xff, 0x00, 0xc3, 0x28]);
    writeFileAtomicSync(file, bytes);
    expect([...readFileSync(file)]).toEqual([...bytes]);
  });

  it('a temp file of the wrong size is not renamed over the old file: it names the sizes, and the temp file goes', () => {
    const file = join(dir, 'a.json');
    writeFileSync(file, 'old');
    const rec = recordingFs({ fstatSync: ((fd: number) => ({ ...real.fstatSync(fd), size: 3 })) as AtomicFs['fstatSync'] });
    expect(() => writeFileAtomicSync(file, 'new data', { fs: rec })).toThrow(/^short write: .*a\.json\.\d+\.\d+\.tmp has 3 of 8 bytes$/);
    expect(rec.calls).not.toContain('renameSync');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('a write that makes no progress is ENOSPC naming the temp file, like the system error', () => {
    const file = join(dir, 'a.json');
    const err = (() => {
      try {
        writeFileAtomicSync(file, 'data', { fs: recordingFs({ writeSync: () => 0 }) });
      } catch (e) {
        return e as NodeJS.ErrnoException;
      }
      return undefined;
    })();
    expect(err).toMatchObject({ code: 'ENOSPC', errno: -28, syscall: 'write' });
    expect(isTempFileOf(file, err!.path!)).toBe(true);
    expect(err!.message).toBe(`ENOSPC: no space left on device, write '${err!.path}'`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writeFileAtomic (async) writes the same way', async () => {
    const file = join(dir, 'c.json');
    await writeFileAtomic(file, '{"c":3}', { mode: 0o600 });
    expect(readFileSync(file, 'utf8')).toBe('{"c":3}');
    expect(fs.fsyncSync).toHaveBeenCalled();
  });
});

describe('fsyncDirSync', () => {
  posixOnly('fsyncs the directory and closes it', () => {
    fsyncDirSync(dir);
    expect(fs.fsyncSync).toHaveBeenCalledTimes(1);
    const fd = vi.mocked(fs.fsyncSync).mock.calls[0][0];
    expect(fs.closeSync).toHaveBeenCalledWith(fd);
  });

  posixOnly('tolerates a filesystem without directory fsync (EINVAL), and still closes the directory', () => {
    vi.mocked(fs.fsyncSync).mockImplementationOnce(() => {
      throw Object.assign(new Error('EINVAL: invalid argument, fsync'), { code: 'EINVAL' });
    });
    expect(() => fsyncDirSync(dir)).not.toThrow();
    expect(fs.closeSync).toHaveBeenCalledTimes(1);
  });

  posixOnly('throws any other error (EIO), after closing the directory', () => {
    vi.mocked(fs.fsyncSync).mockImplementationOnce(() => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    expect(() => fsyncDirSync(dir)).toThrow('EIO: i/o error, fsync');
    expect(fs.closeSync).toHaveBeenCalledTimes(1);
  });

  posixOnly('a directory that does not exist is an error', () => {
    expect(() => fsyncDirSync(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
