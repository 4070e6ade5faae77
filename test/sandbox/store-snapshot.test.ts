// openStore({ snapshot: true }), what a `--dry-run` on the embedded sandbox opens (issue 35):
// it reads what is at the path into memory and writes nothing there or beside it, whatever
// it finds (nothing, a state, a damaged or foreign file, a database this Node cannot read).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { openStore } from '../../src/sandbox/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-snapshot-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const now = () => new Date('2026-11-28T09:00:00Z');
const listing = () => readdirSync(dir, { recursive: true }).map(String).sort();

describe('openStore({ snapshot: true })', () => {
  it('no file yet: a freshly seeded state in memory; neither the file nor its folder is created', async () => {
    const store = await openStore({ statePath: join(dir, 'sub', 'state.json'), now, snapshot: true });
    expect(store.kind).toBe('memory');
    expect(store.read().fleetSize).toBe(300);
    await store.transact((s) => void (s.clockOffsetMs = 1234));
    await store.close();
    expect(listing()).toEqual([]);
  });

  it('a JSON state: read as it is (its clock offset too), changes stay in memory, the file keeps its bytes and mtime, no lock', async () => {
    const path = join(dir, 'state.json');
    const real = await openStore({ statePath: path, now, kind: 'json' });
    await real.transact((s) => void (s.clockOffsetMs = 86_400_000));
    await real.close();
    const bytes = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    const store = await openStore({ statePath: path, now, snapshot: true });
    expect(store.read().clockOffsetMs).toBe(86_400_000);
    await store.transact((s) => void (s.clockOffsetMs = 0));
    expect(store.read().clockOffsetMs).toBe(0);
    await store.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(listing()).toEqual(['state.json']);
  });

  it('a damaged or foreign file, or one seeded otherwise: the error a real open gives, nothing moved or created', async () => {
    const path = join(dir, 'state.json');
    writeFileSync(path, '{"format":');
    await expect(openStore({ statePath: path, now, snapshot: true })).rejects.toMatchObject({ name: 'StateFileError' });
    writeFileSync(path, 'hello');
    await expect(openStore({ statePath: path, now, snapshot: true })).rejects.toThrow(/not a carrental sandbox state/);
    expect(listing()).toEqual(['state.json']);
    rmSync(path);
    const real = await openStore({ statePath: path, now, kind: 'json', seed: 7 });
    await real.close();
    await expect(openStore({ statePath: path, now, snapshot: true, seed: 1 })).rejects.toThrow(/seeded with seed 7/);
  });

  it.skipIf(loadSqlite() !== null)('an SQLite database on a Node without node:sqlite: said so, no lock folder created', async () => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'state.json');
    writeFileSync(path, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(84)]));
    await expect(openStore({ statePath: path, now, snapshot: true })).rejects.toThrow(/needs Node 22\.13 or later/);
    expect(listing()).toEqual(['state.json']);
  });

  it.skipIf(loadSqlite() === null)('an SQLite database: changes stay in the dry run; no -wal or -shm created, bytes and mtime kept; a live writer\'s last commit is seen', async () => {
    const path = join(dir, 'state.db');
    const real = await openStore({ statePath: path, now, kind: 'sqlite' });
    await real.transact((s) => void (s.clockOffsetMs = 3_600_000));
    await real.close();
    const bytes = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    expect(listing()).toEqual(['state.db']);
    const store = await openStore({ statePath: path, now, snapshot: true });
    expect(store.kind).toBe('memory');
    expect(store.read().clockOffsetMs).toBe(3_600_000);
    await store.transact((s) => void (s.clockOffsetMs = 0));
    expect(store.read().clockOffsetMs).toBe(0);
    await store.close();
    expect(listing()).toEqual(['state.db']);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(mtime);
    // a server left running: its last commit may sit in the -wal only
    const live = await openStore({ statePath: path, now, kind: 'sqlite' });
    await live.transact((s) => void (s.clockOffsetMs = 7_200_000));
    const seen = await openStore({ statePath: path, now, snapshot: true });
    expect(seen.read().clockOffsetMs).toBe(7_200_000);
    await seen.close();
    await live.close();
  });

  /**
   * What a writer killed after a commit leaves: the database, and its -wal holding that
   * commit (and the -shm, unless `withShm` is false), with no process on them. Made by
   * copying the three files of a live store aside before it closes (closing checkpoints).
   */
  async function killedWriter(into: string, withShm: boolean): Promise<string> {
    const live = join(dir, 'live.db');
    const store = await openStore({ statePath: live, now, kind: 'sqlite' });
    await store.transact((s) => void (s.clockOffsetMs = 5_400_000));
    expect(statSync(`${live}-wal`).size).toBeGreaterThan(0);
    mkdirSync(into, { recursive: true });
    const path = join(into, 'state.db');
    for (const ext of withShm ? ['', '-wal', '-shm'] : ['', '-wal']) copyFileSync(`${live}${ext}`, `${path}${ext}`);
    await store.close();
    return path;
  }
  const contents = (folder: string) => Object.fromEntries(readdirSync(folder).map((n) => [n, readFileSync(join(folder, n)).toString('base64')]));

  for (const withShm of [true, false]) {
    it.skipIf(loadSqlite() === null)(`a killed writer's -wal${withShm ? ' and -shm' : ' alone'}: its last commit is read; the folder keeps its files byte for byte; the private copy (and a killed dry run's) is removed`, async () => {
      const folder = join(dir, 'killed');
      const path = await killedWriter(folder, withShm);
      const before = contents(folder);
      const tmp = mkdtempSync(join(tmpdir(), 'carrental-snapshot-tmp-'));
      // what a dry run killed before it removed its copy left (its process is gone)
      const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
      mkdirSync(join(tmp, `carrental-dry-run-${gone}-abcdef`));
      writeFileSync(join(tmp, `carrental-dry-run-${gone}-abcdef`, 'state.db'), 'x');
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = tmp;
      try {
        const store = await openStore({ statePath: path, now, snapshot: true });
        expect(store.read().clockOffsetMs).toBe(5_400_000);
        await store.close();
        expect(readdirSync(tmp)).toEqual([]);
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
        rmSync(tmp, { recursive: true, force: true });
      }
      expect(contents(folder)).toEqual(before);
      // and a real open afterwards still finds that commit (nothing was checkpointed away or lost)
      const store = await openStore({ statePath: path, now, kind: 'sqlite' });
      expect(store.read().clockOffsetMs).toBe(5_400_000);
      await store.close();
      expect(existsSync(`${path}-wal`)).toBe(false);
    });
  }

  it.skipIf(loadSqlite() === null)('an SQLite database with a long history: the dry run parses none of it to open (it used to read the whole state into memory)', async () => {
    const path = join(dir, 'state.db');
    const MARK = 'history-row-of-the-dry-run-test';
    const real = await openStore({ statePath: path, now, kind: 'sqlite' });
    await real.transact((s) => {
      for (let i = 0; i < 300; i++) s.idempotency[`c:${i}`] = { operation: 'createReservation', fingerprint: MARK, status: 200, body: '{}', created_at: '2026-01-01T00:00:00Z' };
    });
    await real.close();
    const parse = JSON.parse;
    let parsed = 0;
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (typeof text === 'string' && text.includes(MARK)) parsed++;
      return parse(text, reviver);
    });
    try {
      const store = await openStore({ statePath: path, now, snapshot: true });
      expect(store.read().idempotency['c:7']?.fingerprint).toBe(MARK);
      await store.close();
    } finally {
      vi.restoreAllMocks();
    }
    // the one record asked for, not the 300
    expect(parsed).toBe(1);
  });
});
