// The Node 20 store's files (issue 35): one lock per real file whatever path opened it,
// leftovers of killed writers removed by the next run, read-only files and folders refused
// in one line, a full disk worded as one. Runs on any Node (the JSON store is forced).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StoreOptions, openStore } from '../../src/sandbox/store.js';
import { writerScript } from './store-contract.js';
import { FIXED_NOW, tempDir } from './harness.js';

const now = () => FIXED_NOW;

describe('the Node 20 store and the files beside it', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(() => cleanup());
  const open = (statePath: string, more: Partial<StoreOptions> = {}) => openStore({ statePath, now, kind: 'json', ...more });

  it('a writer through a symbolic link and one through the real path share one lock: no acknowledged write is lost', async () => {
    const real = join(dir, 'data', 'state.json');
    const link = join(dir, 'link.json');
    await (await open(real)).close();
    symlinkSync(real, link);
    const script = await writerScript(join(dir, 'w'));
    const write = (path: string, tag: string) =>
      new Promise<string[]>((done, fail) => {
        const child = spawn(process.execPath, [script, path, tag, 'json', '100'], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.once('exit', (code) => (code === 0 ? done(out.trim().split('\n')) : fail(new Error(`writer ${tag} exited ${code}`))));
      });
    const acked = (await Promise.all([write(link, 'link'), write(real, 'real'), write(link, 'link2')])).flat();
    expect(acked.filter((l) => l.startsWith('error'))).toEqual([]);
    const store = await open(real);
    const lost = acked.filter((id) => store.read().usedPromos[id] === undefined);
    await store.close();
    expect(lost).toEqual([]);
    expect(acked).toHaveLength(300);
  }, 120_000);

  it('the temp files of killed writers and imports are removed by the next open, those of a live process kept', async () => {
    const statePath = join(dir, 'state.json');
    await (await open(statePath)).close();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const gone = [`state.json.${dead}.3.tmp`, `state.json.import.${dead}.tmp`, `state.json.import.${dead}.tmp-journal`];
    const live = [`state.json.${process.pid}.1.tmp`, `state.json.import.${process.pid}.tmp`, 'state.json.notes.tmp'];
    for (const f of [...gone, ...live]) writeFileSync(join(dir, f), 'x');
    await (await open(statePath)).close();
    for (const f of gone) expect(existsSync(join(dir, f)), f).toBe(false);
    for (const f of live) expect(existsSync(join(dir, f)), f).toBe(true);
  });

  // as root every file is writable: the checks run as nobody
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const cli = (statePath: string) => {
    const r = spawnSync(process.execPath, [join(process.cwd(), 'bin/carrental.js'), '--sandbox', 'cars', '--limit', '1'], {
      ...asUser,
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: join(dir, 'home'), CARRENTAL_CONFIG_DIR: join(dir, 'home', 'c'), CARRENTAL_STATE_DIR: join(dir, 'home', 's'), CARRENTAL_DATA_DIR: join(dir, 'home', 'd'), CARRENTAL_SANDBOX_STATE: statePath, CARRENTAL_SANDBOX_PORT: '0' },
    });
    return { code: r.status, stderr: r.stderr };
  };
  const prepare = () => {
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'home'));
    mkdirSync(join(dir, 'ro'));
    if (asUser.uid !== undefined) {
      chownSync(join(dir, 'home'), asUser.uid, asUser.gid);
      chownSync(join(dir, 'ro'), asUser.uid, asUser.gid);
    }
  };

  it('a read-only state file: one line naming it and what to do, exit 1, and the file is not rewritten', async () => {
    prepare();
    const statePath = join(dir, 'ro', 'state.json');
    await (await open(statePath)).close();
    if (asUser.uid !== undefined) chownSync(statePath, asUser.uid, asUser.gid);
    chmodSync(statePath, 0o444);
    const before = readFileSync(statePath, 'utf8');
    const r = cli(statePath);
    expect(r.stderr).toBe(`error: sandbox state file ${statePath} is read-only: make it writable (chmod u+w '${statePath}') or point CARRENTAL_SANDBOX_STATE at another file\n`);
    expect(r.code).toBe(1);
    expect(readFileSync(statePath, 'utf8')).toBe(before);
  }, 30_000);

  it('a state file in a read-only folder: one line naming the folder, exit 1', async () => {
    prepare();
    const statePath = join(dir, 'ro', 'state.json');
    await (await open(statePath)).close();
    if (asUser.uid !== undefined) chownSync(statePath, asUser.uid, asUser.gid);
    chmodSync(join(dir, 'ro'), 0o555);
    const r = cli(statePath);
    expect(r.stderr).toBe(
      `error: sandbox state file ${statePath}: its folder ${join(dir, 'ro')} is read-only (the state's temporary and journal files go beside it): make it writable (chmod u+w '${join(dir, 'ro')}') or point CARRENTAL_SANDBOX_STATE elsewhere\n`,
    );
    expect(r.code).toBe(1);
    chmodSync(join(dir, 'ro'), 0o755);
  }, 30_000);

  it.skipIf(process.getuid?.() !== 0)('a full disk (a small tmpfs) is worded as a full disk, and every earlier write is kept', async () => {
    const mnt = join(dir, 'small');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt]);
    try {
      const statePath = join(mnt, 'state.json');
      const store = await open(statePath);
      const written: string[] = [];
      let failure: Error | null = null;
      for (let i = 0; i < 200 && failure === null; i++) {
        try {
          await store.transact((s) => {
            s.usedPromos[`w${i}`] = ['x'.repeat(20_000)];
          });
          written.push(`w${i}`);
        } catch (err) {
          failure = err as Error;
        }
      }
      expect(failure).toMatchObject({ name: 'StateWriteError' });
      expect(failure?.message).toBe(`sandbox state file ${statePath}: the disk is full; the change was not made (every earlier one is kept): free some space and run it again`);
      await store.close();
      const again = await open(statePath);
      for (const id of written) expect(again.read().usedPromos[id], id).toBeDefined();
      await again.close();
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});
