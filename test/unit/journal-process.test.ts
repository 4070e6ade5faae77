// The journal across real processes: several CLI runs at once, and a run SIGKILLed in
// the middle of writing. The child (test/fixtures/journal-child.ts) is bundled with
// esbuild because nothing can run TypeScript directly at runtime here.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Journal, type JournalEntry } from '../../src/store/journal.js';

const fixture = fileURLToPath(new URL('../fixtures/journal-child.ts', import.meta.url));

let buildDir: string;
let childScript: string;

beforeAll(async () => {
  buildDir = await mkdtemp(path.join(os.tmpdir(), 'carrental-journal-build-'));
  childScript = path.join(buildDir, 'journal-child.mjs');
  buildSync({
    entryPoints: [fixture],
    outfile: childScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    logLevel: 'warning',
    // CJS dependencies in an ESM bundle: proper-lockfile require()s builtins, and
    // write-file-atomic hashes __filename into its temp file names.
    banner: {
      js: [
        "import { createRequire as __cr } from 'node:module';",
        "import { fileURLToPath as __f2p } from 'node:url';",
        'const require = __cr(import.meta.url);',
        'const __filename = __f2p(import.meta.url);',
      ].join(' '),
    },
  });
});

afterAll(async () => {
  await rm(buildDir, { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  lines: AsyncIterator<string>;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: Child[] = [];

function startChild(args: string[]): Child {
  const proc = spawn(process.execPath, [childScript, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const child: Child = {
    proc,
    lines: createInterface({ input: proc.stdout! })[Symbol.asyncIterator](),
    stderr: () => err,
    exited,
  };
  children.push(child);
  return child;
}

async function nextLine(child: Child): Promise<string> {
  const { value, done } = await child.lines.next();
  if (done) throw new Error(`child ended early; stderr:\n${child.stderr()}`);
  return value;
}

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'carrental-journal-proc-'));
  file = path.join(dir, 'journal.json');
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    await child.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('journal across processes', () => {
  it('keeps every command and one key per command when six processes begin at once', async () => {
    const n = 6;
    const kids = Array.from({ length: n }, (_, i) => startChild(['begin', file, String(i)]));
    // Release them together, once all have loaded, so their writes really overlap.
    for (const kid of kids) expect(await nextLine(kid)).toBe('ready');
    for (const kid of kids) kid.proc.stdin!.end('go\n');

    const results = [];
    for (const kid of kids) {
      const result = JSON.parse(await nextLine(kid)) as {
        unique: { id: string; key: string; reused: boolean };
        shared: { id: string; key: string; reused: boolean };
      };
      expect(await kid.exited, kid.stderr()).toEqual({ code: 0, signal: null });
      expect(kid.stderr()).toBe('');
      results.push(result);
    }

    const disk = JSON.parse(readFileSync(file, 'utf8')) as { version: number; entries: JournalEntry[] };
    expect(disk.entries).toHaveLength(n + 1);
    const byId = new Map(disk.entries.map((e) => [e.id, e]));
    for (const r of results) {
      expect(r.unique.reused).toBe(false);
      expect(byId.get(r.unique.id)?.key).toBe(r.unique.key);
    }
    expect(new Set(results.map((r) => r.unique.key)).size).toBe(n);
    expect(new Set(results.map((r) => r.shared.key))).toEqual(new Set([byId.get(results[0].shared.id)?.key]));
    expect(results.filter((r) => !r.shared.reused)).toHaveLength(1);
    expect(readdirSync(dir).filter((name) => name !== 'journal.json')).toEqual([]);
  });

  it('survives a SIGKILL in the middle of a stream of writes', async () => {
    const staleMs = 2_000;
    const kid = startChild(['kill-loop', file, String(staleMs)]);
    const began = JSON.parse(await nextLine(kid)) as { event: string; id: string; key: string };
    expect(began.event).toBe('began');

    let ticks = 0;
    while (ticks < 10) {
      expect(await nextLine(kid)).toBe(`tick ${ticks}`);
      ticks++;
    }
    // Kill it in the worst place: between write and rename, while it holds the lock and its
    // temp file exists. The child announces that moment and blocks in it (see the fixture).
    expect(await nextLine(kid)).toBe('renaming');
    const tempFile = /^journal\.json\.\d+\.\d+\.tmp$/;
    kid.proc.kill('SIGKILL');
    expect(await kid.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const leftBehind = readdirSync(dir);
    expect(leftBehind).toContain('journal.json.lock');
    expect(leftBehind.some((name) => tempFile.test(name))).toBe(true);

    // The file is always a complete version: the rename is atomic.
    const disk = JSON.parse(readFileSync(file, 'utf8')) as { version: number; entries: JournalEntry[] };
    const marker = disk.entries.find((e) => e.id === began.id);
    expect(marker?.key).toBe(began.key);

    // A later run gets past whatever lock the killed one held and sees the entry,
    // with every touch that completed before the kill (at most one more, unreported).
    const warnings: string[] = [];
    const entries = await new Journal({ path: file, lockStaleMs: staleMs, onWarning: (m) => warnings.push(m) }).list();
    const listed = entries.find((e) => e.id === began.id);
    expect(listed).toMatchObject({ key: began.key, expired: false });
    // begin counted the first attempt, each tick one more
    expect(listed!.attempts).toBeGreaterThanOrEqual(ticks + 1);
    expect(listed!.attempts).toBeLessThanOrEqual(ticks + 2);
    expect(warnings).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);

    const again = await new Journal({ path: file, lockStaleMs: staleMs }).begin({
      profile: 'default',
      baseUrl: 'https://api.example.test/v1',
      credential: 'c'.repeat(32),
      operation: 'createReservation',
      target: 'marker',
      request: { alias: 'marker', from: '2026-12-01T10:00', to: '2026-12-02T10:00' },
    });
    expect(again).toMatchObject({ reused: true, entry: { key: began.key } });
    // The killed writer's temp file is cleaned up by the next write, and the lock released.
    expect(readdirSync(dir).sort()).toEqual(['journal.json']);
  });
});
