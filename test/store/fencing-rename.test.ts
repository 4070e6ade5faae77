// Issue 35, fencing, the last window: a writer W stopped between its last check that the
// lock is still its own (beforeRename, atomic-file.ts) and the rename itself, for longer
// than the stale time. Another process H takes the lock over and reads the file; then W is
// continued and its rename runs; then H writes. W's rename must not land after H's read
// (H would write back what it read and erase W's change, W having reported success), nor
// may H's write erase it: at the end both changes are in the file, and W's call resolves
// only once its change is there.
//
// The interleaving is made exact rather than waited for: W runs here with an injected
// renameSync that, on W's first rename, ages W's lock directory (as a stop longer than the
// stale time would), lets H go (a real second process, bundled from src/store with
// esbuild and started ahead) and sleeps synchronously, like a stopped process, until H has
// taken the lock over and read the file; only then does the real rename run, after which
// H is let go to write.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { AtomicFs } from '../../src/store/atomic-file.js';
import { credentialFingerprint, Journal } from '../../src/store/journal.js';
import { LockedFile } from '../../src/store/locked-file.js';

// A round takes about a second: see notBefore.
const ROUNDS = Number(process.env.FENCING_ROUNDS ?? 2);
/** Long enough that no live holder's lock is ever judged stale here: W's is aged by hand. */
const STALE_MS = 10_000;

// H: started ahead (its start-up is most of a round), waits for W to be stopped, takes the
// lock over (W's, aged), reads, says so, waits for W's rename, then writes.
const HOLDER = `
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { LockedFile } from './locked-file.js';
import { Journal, credentialFingerprint } from './journal.js';
const [mode, file, stopMarker, readMarker, goMarker] = process.argv.slice(2);
const cell = new Int32Array(new SharedArrayBuffer(4));
function waitFor(marker) {
  const deadline = Date.now() + 15000;
  while (!existsSync(marker)) {
    if (Date.now() > deadline) throw new Error('H timed out waiting for ' + marker);
    Atomics.wait(cell, 0, 0, 5);
  }
}
waitFor(stopMarker);
// see notBefore in the test
const notBefore = Number(readFileSync(stopMarker, 'utf8'));
while (Date.now() <= notBefore) Atomics.wait(cell, 0, 0, 5);
if (mode === 'journal') {
  const journal = new Journal({ path: file, lockStaleMs: ${STALE_MS}, inLock: (step) => {
    if (step !== 'begin') return;
    writeFileSync(readMarker, '');
    waitFor(goMarker);
  } });
  await journal.begin({ profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint('svc_dana_booking_write_key_0001'),
    operation: 'cancelReservation', target: 'H', request: { uuid: 'H' } });
} else {
  const locked = new LockedFile({ path: file, lockPath: file + '.lock', what: 'the file', lockWhat: 'the lock', staleMs: ${STALE_MS}, waitMs: 20000, fail: (_a, err) => err });
  await locked.withLock(async (held) => {
    const text = held.read() ?? '';
    writeFileSync(readMarker, '');
    waitFor(goMarker);
    held.write(text + 'H\\n');
  });
}
`;

let buildDir: string;
let holderScript: string;
beforeAll(() => {
  buildDir = mkdtempSync(join(tmpdir(), 'carrental-fencing-build-'));
  holderScript = join(buildDir, 'holder.mjs');
  buildSync({
    stdin: { contents: HOLDER, resolveDir: fileURLToPath(new URL('../../src/store/', import.meta.url)), loader: 'ts', sourcefile: 'holder.ts' },
    outfile: holderScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    logLevel: 'warning',
    // proper-lockfile is CommonJS and require()s builtins
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
});
afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-fencing-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const cell = new Int32Array(new SharedArrayBuffer(4));
/** Sleeps the whole thread, as a stopped process does: no timer, no lock refresh runs. */
function waitSync(what: string, ok: () => boolean, explain: () => string): void {
  const deadline = Date.now() + 15_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${explain()}`);
    Atomics.wait(cell, 0, 0, 5);
  }
}

interface Interleaving {
  /** W's fs: its first rename is the stopped one. */
  fs: AtomicFs;
  /** How many renames W attempted, and how many landed. */
  renames: { tried: number; landed: number };
  /** H's exit (H is killed if W never renamed). */
  holder: () => Promise<{ code: number | null; stderr: string }>;
}

/** W's fs for one round, with H started as `mode` on `file` (what H opens: the link, for a symlinked file). */
function stoppedBeforeRename(mode: 'locked' | 'journal', file: string, lockPath: string): Interleaving {
  const stopMarker = join(dir, 'w-stopped');
  const readMarker = join(dir, 'h-read');
  const goMarker = join(dir, 'h-go');
  const errFile = join(dir, 'h-stderr');
  const renames = { tried: 0, landed: 0 };
  const stderr = () => (existsSync(errFile) ? readFileSync(errFile, 'utf8') : '');
  const err = openSync(errFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [holderScript, mode, file, stopMarker, readMarker, goMarker], { stdio: ['ignore', 'ignore', err] });
  } finally {
    closeSync(err);
  }
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const renameSync: typeof fs.renameSync = (from, to) => {
    if (renames.tried++ === 0) {
      // W passed its last check and is stopped now, longer than the stale time. The lock
      // is identified by its directory's mtime (lock.ts), which proper-lockfile sets at
      // acquisition to the next whole second + 5 ms: H must take it over in a later second
      // than W took it, as a real takeover (at least the stale time later) always does.
      const notBefore = statSync(lockPath).mtimeMs;
      const past = new Date(Date.now() - 60_000);
      utimesSync(lockPath, past, past);
      writeFileSync(`${stopMarker}.new`, String(notBefore));
      fs.renameSync(`${stopMarker}.new`, stopMarker);
      waitSync('H to take the lock over and read', () => existsSync(readMarker), stderr);
      // W is continued: its rename runs now, then H writes what it read
      try {
        fs.renameSync(from, to);
      } finally {
        writeFileSync(goMarker, '');
      }
    } else {
      fs.renameSync(from, to);
    }
    renames.landed++;
  };
  return {
    fs: { ...fs, renameSync },
    renames,
    holder: async () => {
      if (renames.tried === 0) child.kill();
      return { code: await exit, stderr: stderr() };
    },
  };
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).sort();

describe('a writer stopped between its last lock check and its rename, whose lock is taken over', () => {
  for (const through of ['a file', 'a symlink'] as const) {
    it(`the new holder's read sees its change or its rename fails and it starts over (LockedFile, ${through}), ${ROUNDS} times`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        // through a symlink the temp files are beside the target, in another directory
        const target = through === 'a file' ? join(dir, 'f.txt') : join(dir, 'dotfiles', 'f.txt');
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, 'first\n');
        const file = join(dir, 'f.txt');
        if (through === 'a symlink') symlinkSync(target, file);
        const lockPath = `${file}.lock`;
        const w = stoppedBeforeRename('locked', file, lockPath);
        const locked = new LockedFile({ path: file, lockPath, what: 'the file', lockWhat: 'the lock', staleMs: STALE_MS, waitMs: 20_000, fail: (_a, err) => err as Error, fs: w.fs });
        let runs = 0;
        await locked.withLock(async (held) => {
          runs++;
          held.write(`${held.read() ?? ''}W\n`);
        });
        // W reports success only once its change is in the file
        expect(lines(target)).toContain('W');
        const h = await w.holder();
        expect(h.code, h.stderr).toBe(0);
        // neither erased the other
        expect(lines(target)).toEqual(['H', 'W', 'first']);
        // W's stopped rename did not land: it started over under a new lock, after H
        expect(w.renames).toEqual({ tried: 2, landed: 1 });
        expect(runs).toBe(2);
        expect(readdirSync(dirname(target)).filter((n) => /\.tmp$/.test(n))).toEqual([]);
        expect(existsSync(lockPath)).toBe(false);
      }
    });
  }

  it(`no entry of either command is erased (the journal), ${ROUNDS} times`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      const file = join(dir, 'journal.json');
      const w = stoppedBeforeRename('journal', file, `${file}.lock`);
      const journal = new Journal({ path: file, lockStaleMs: STALE_MS, fs: w.fs });
      const cmd = (target: string) => ({
        profile: 'default',
        baseUrl: 'https://api.example.test/v1',
        credential: credentialFingerprint('svc_dana_booking_write_key_0001'),
        operation: 'cancelReservation' as const,
        target,
        request: { uuid: target },
      });
      // the first write creates the journal; W's stopped one is its second
      await new Journal({ path: file }).begin(cmd('first'));
      const { entry } = await journal.begin(cmd('W'));
      const targets = () => (JSON.parse(readFileSync(file, 'utf8')) as { entries: Array<{ target: string; key: string }> }).entries;
      expect(targets().find((e) => e.target === 'W')?.key).toBe(entry.key);
      const h = await w.holder();
      expect(h.code, h.stderr).toBe(0);
      expect(targets().map((e) => e.target).sort()).toEqual(['H', 'W', 'first']);
      expect(w.renames).toEqual({ tried: 2, landed: 1 });
    }
  });
});
