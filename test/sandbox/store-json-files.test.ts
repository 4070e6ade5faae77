// The Node 20 store's files (issue 35): one lock per real file whatever path opened it,
// leftovers of killed writers removed by the next run, read-only files and folders refused
// in one line, a full disk worded as one. Runs on any Node (the JSON store is forced).
import { spawn, spawnSync } from 'node:child_process';
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
});
