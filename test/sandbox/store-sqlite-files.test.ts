// The SQLite state is one unit with its -wal and -shm (issue 35): a reset, a `.bak` copied
// back and an import remove the -wal/-shm of a database that is no longer at the path, or
// refuse while a process still has it open; a -wal that would damage the file when replayed
// is reported, and nothing is written. Needs node:sqlite (Node 22.13+); the Node 20 side is
// the JSON store, forced with `kind: 'json'`. .ci/extra runs it on Node 22.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedState } from '../../src/sandbox/fixtures.js';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { type StoreOptions, openStore, sniff } from '../../src/sandbox/store.js';
import { writerScript } from './store-contract.js';
import { FIXED_NOW, tempDir } from './harness.js';

const sqlite = loadSqlite();
const now = () => FIXED_NOW;
const sqlite3 = (file: string, sql: string) => execFileSync('sqlite3', [file, sql], { encoding: 'utf8' }).trim();
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(!sqlite)('the SQLite state with its -wal and -shm', () => {
  let dir: string;
  let cleanup: () => void;
  let children: ChildProcess[] = [];
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(() => {
    for (const c of children) c.kill('SIGKILL');
    children = [];
    cleanup();
  });

  const open = (statePath: string, more: Partial<StoreOptions> = {}) => openStore({ statePath, now, ...more });

  /** A Node 22 writer on the file: resolves once it has acknowledged `n` writes; it keeps the database open. */
  const writer = async (statePath: string, tag: string, n: number) => {
    const script = await writerScript(join(dir, `w-${tag}`));
    const child = spawn(process.execPath, [script, statePath, tag, 'sqlite'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const acked: string[] = [];
    await new Promise<void>((done, fail) => {
      child.once('exit', (code) => fail(new Error(`the writer exited early (${code})`)));
      let buffered = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        acked.push(...lines);
        if (acked.length >= n) done();
      });
    });
    child.removeAllListeners('exit');
    return { child, acked, killed: () => new Promise<void>((r) => (child.once('exit', () => r()), child.kill('SIGKILL'))) };
  };

  it('a .bak copied back over a database whose server was killed: the old -wal is not replayed into it', async () => {
    const statePath = join(dir, 'state.json');
    const doc = seedState(1, 300, FIXED_NOW);
    doc.usedPromos.before = ['KEPT'];
    writeFileSync(statePath, JSON.stringify(doc));
    await (await open(statePath)).close(); // imported: the JSON document is now state.json.bak
    const w = await writer(statePath, 'lost', 30);
    await w.killed();
    expect(statSync(`${statePath}-wal`).size).toBeGreaterThan(0);

    copyFileSync(`${statePath}.bak`, statePath);
    const store = await open(statePath);
    expect(store.read().usedPromos.before).toEqual(['KEPT']);
    expect(store.read().usedPromos['lost-0']).toBeUndefined();
    await store.close();
    expect(sqlite3(statePath, 'PRAGMA integrity_check')).toBe('ok');
  }, 60_000);

  it('a Node 20 reset while a Node 22 process has the database open is refused, and nothing comes back undone', async () => {
    const statePath = join(dir, 'state.json');
    await (await open(statePath)).close();
    const w = await writer(statePath, 'live', 5);
    const err = await open(statePath, { kind: 'json', reset: true }).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ name: 'StateFileError' });
    expect((err as Error).message).toContain(`another process (pid ${w.child.pid}) has open`);
    expect((err as Error).message).not.toContain('\n');
    expect(sniff(statePath)).toBe('sqlite');
    await w.killed();

    // once it is gone the reset goes ahead, the -wal and -shm with it, and stays done
    const json = await open(statePath, { kind: 'json', reset: true });
    await json.close();
    expect(existsSync(`${statePath}-wal`)).toBe(false);
    expect(existsSync(`${statePath}-shm`)).toBe(false);
    const store = await open(statePath);
    expect(store.read().usedPromos['live-0']).toBeUndefined();
    expect(Object.keys(store.read().usedPromos).filter((k) => k.startsWith('live-'))).toEqual([]);
    await store.close();
    expect(sqlite3(statePath, 'PRAGMA integrity_check')).toBe('ok');
  }, 60_000);

  it('a -wal that damages the database it would be replayed into: reported in one line, and the file is never written', async () => {
    const statePath = join(dir, 'state.json');
    const other = join(dir, 'other.json');
    await (await open(statePath)).close();
    await (await open(other, { seed: 7 })).close();
    const w = await writer(statePath, 'x', 40);
    await w.killed();
    // another database put at the path, the killed writer's -wal and -shm left beside it
    copyFileSync(other, statePath);
    if (process.env.KEEP_STALE) for (const f of ['', '-wal', '-shm']) copyFileSync(statePath + f, process.env.KEEP_STALE + f);
    const before = { db: digest(statePath), wal: digest(`${statePath}-wal`) };
    for (const verify of [false, true]) {
      const err = await open(statePath, { verify }).catch((e: unknown) => e as Error);
      expect(err, `verify ${verify}`).toMatchObject({ name: 'StateFileError' });
      const message = (err as Error).message;
      expect(message).toMatch(new RegExp(`^sandbox state file ${statePath}: damaged, it fails SQLite's integrity check \\(.*\\); nothing was written to it; run \`carrental sandbox reset -y\``));
      expect(message).not.toContain('\n');
      expect(digest(statePath)).toBe(before.db);
      expect(digest(`${statePath}-wal`)).toBe(before.wal);
    }
    // a reset discards it: a whole, fresh state
    const reset = await open(statePath, { reset: true });
    expect(reset.read().seed).toBe(1);
    await reset.close();
    expect(sqlite3(statePath, 'PRAGMA integrity_check')).toBe('ok');
  }, 60_000);

  it('a Node 20 server whose file a Node 22 command converted says so in one line, a 503, never a 500', async () => {
    const statePath = join(dir, 'state.json');
    const node20 = await startSandbox({ statePath, store: 'json', quiet: true, now });
    try {
      expect((await fetch(`${node20.baseUrl}/cars?limit=1`)).status).toBe(200);
      await (await open(statePath)).close(); // a Node 22 command: the JSON document becomes a database
      expect(sniff(statePath)).toBe('sqlite');
      const res = await fetch(`${node20.baseUrl}/cars?limit=1`);
      const body = (await res.json()) as { error_code: string; description: string };
      expect(res.status).toBe(503);
      expect(body.error_code).toBe('sandbox_state_unavailable');
      expect(body.description).toBe(
        `sandbox state file ${statePath}: converted to an SQLite database by a Node 22.13+ process; this Node ${process.versions.node} process cannot read it; stop this one and start it again with Node 22.13 or later`,
      );
    } finally {
      await node20.close();
    }
  });
});
