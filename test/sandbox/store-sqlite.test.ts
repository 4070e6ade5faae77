// The SQLite store against the store contract, and what only a database promises. It needs
// node:sqlite (Node 22.13+): on Node 20 it is skipped, and .ci/extra runs it on Node 22.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { STATE_FORMAT } from '../../src/sandbox/state.js';
import { openStore } from '../../src/sandbox/store.js';
import { seedState } from '../../src/sandbox/fixtures.js';
import { storeContract, writerScript } from './store-contract.js';
import { FIXED_NOW, tempDir } from './harness.js';

const sqlite = loadSqlite();
const now = () => FIXED_NOW;
const sqlite3 = (file: string, sql: string) => execFileSync('sqlite3', [file, sql], { encoding: 'utf8' }).trim();

describe.skipIf(!sqlite)('node:sqlite', () => {
  storeContract('sqlite');

  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(() => cleanup());

  it('is a database the sqlite3 shell opens: integrity ok, WAL, a table per part of the state', async () => {
    const statePath = join(dir, 'state.json');
    const store = await openStore({ statePath, now });
    await store.transact((s) => {
      s.usedPromos.someone = ['WELCOME10'];
    });
    await store.close();
    expect(sqlite3(statePath, 'PRAGMA integrity_check')).toBe('ok');
    expect(sqlite3(statePath, 'PRAGMA journal_mode')).toBe('wal');
    expect(sqlite3(statePath, '.tables').split(/\s+/).sort()).toEqual(['meta', 'rate_budget', 'records', 'tags']);
    expect(sqlite3(statePath, "SELECT value FROM meta WHERE key = 'format'")).toBe(STATE_FORMAT);
    expect(sqlite3(statePath, "SELECT json FROM records WHERE collection = 'usedPromos' AND key = 'someone'")).toBe('["WELCOME10"]');
    expect(Number(sqlite3(statePath, "SELECT count(*) FROM tags WHERE collection = 'reservations' AND tag LIKE 'c:%'"))).toBeGreaterThan(0);
  });

  it('imports the older JSON document, keeping it as .bak', async () => {
    const statePath = join(dir, 'state.json');
    const doc = seedState(1, 300, FIXED_NOW);
    doc.clockOffsetMs = 42_000;
    doc.usedPromos.imported = ['SAVE50'];
    const text = JSON.stringify(doc);
    writeFileSync(statePath, text);
    const store = await openStore({ statePath, now });
    const s = store.read();
    expect(s.clockOffsetMs).toBe(42_000);
    expect(s.usedPromos.imported).toEqual(['SAVE50']);
    expect(Object.keys(s.reservations).sort()).toEqual(Object.keys(doc.reservations).sort());
    expect(Object.keys(s.invoices).length).toBe(Object.keys(doc.invoices).length);
    await store.close();
    expect(readFileSync(`${statePath}.bak`, 'utf8')).toBe(text);
    expect(sqlite3(statePath, 'PRAGMA integrity_check')).toBe('ok');
  });

  it('two processes writing at once both succeed, and the file stays whole', async () => {
    const statePath = join(dir, 'state.json');
    await (await openStore({ statePath, now })).close();
    const script = await writerScript(join(dir, 'w'));
    const run = (tag: string) =>
      new Promise<string[]>((resolve, reject) => {
        const child = spawn(process.execPath, [script, statePath, tag, 'sqlite', '40'], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
        });
        child.once('exit', (code) => (code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`writer ${tag} exited ${code}`))));
      });
    const [a, b] = await Promise.all([run('a'), run('b')]);
    expect([...a, ...b].filter((l) => l.startsWith('error'))).toEqual([]);
    const store = await openStore({ statePath, now });
    for (const id of [...a, ...b]) expect(store.read().usedPromos[id], id).toBeDefined();
    await store.close();
    expect(sqlite3(statePath, 'PRAGMA integrity_check')).toBe('ok');
  }, 60_000);

  it('a write that waits past the busy timeout fails with a clear busy error, and the next one succeeds', async () => {
    const statePath = join(dir, 'state.json');
    const store = await openStore({ statePath, now, busyTimeoutMs: 200 });
    const holder = new sqlite!.DatabaseSync(statePath);
    holder.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const err = await store.transact((s) => {
      s.usedPromos.x = ['1'];
    }).catch((e: unknown) => e as Error);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(err).toMatchObject({ name: 'StateBusyError' });
    expect((err as Error).message).toContain(`${statePath}: busy`);
    holder.exec('ROLLBACK');
    holder.close();
    await store.transact((s) => {
      s.usedPromos.x = ['2'];
    });
    expect(store.read().usedPromos.x).toEqual(['2']);
    await store.close();
  });

  it.skipIf(process.getuid?.() !== 0)('a full disk (a small tmpfs) fails the write clearly and keeps every earlier write', async () => {
    const mnt = join(dir, 'small');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
    try {
      const statePath = join(mnt, 'state.json');
      const store = await openStore({ statePath, now });
      const written: string[] = [];
      let failure: Error | null = null;
      for (let i = 0; i < 200 && failure === null; i++) {
        const id = `w${i}`;
        try {
          await store.transact((s) => {
            s.usedPromos[id] = [id.padEnd(20_000, '.')];
          });
          written.push(id);
        } catch (err) {
          failure = err as Error;
        }
      }
      expect(failure).toMatchObject({ name: 'StateWriteError' });
      expect(failure?.message).toContain(`${statePath}: the disk is full`);
      expect(written.length).toBeGreaterThan(3);
      for (const id of written) expect(store.read().usedPromos[id], id).toBeDefined();
      await store.close();
      const again = await openStore({ statePath, now, verify: true });
      for (const id of written) expect(again.read().usedPromos[id], id).toBeDefined();
      await again.close();
    } finally {
      execFileSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });
});
