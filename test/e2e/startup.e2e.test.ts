// What the built CLI loads: --help and a usage error need commander and the command tree
// only (dist/cli/start.cjs, run from its code cache by dist/cli/load.cjs); a catalog
// command adds its own chunks, never the sandbox, the prompts or the config writer.
// Checked by recording every module a spawned run loads.
import { spawn } from 'node:child_process';
import Module from 'node:module';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../helpers/bin.js';
import { TestHome } from '../helpers/cli.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

const RECORDER = join(ROOT, 'test', 'fixtures', 'record-loads.cjs');
const DIST = join(ROOT, 'dist');
/** node 22.1+ has module.enableCompileCache, which the launcher turns on instead. */
const COMPILE_CACHE = typeof (Module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';
/** What the build recorded about dist/cli/start.cjs (it is minified, so it says which modules it holds). */
const built = () => JSON.parse(readFileSync(join(ROOT, 'node_modules', '.cache', 'carrental', 'start-inputs.json'), 'utf8')) as { node: string; inputs: string[] };
const HEAVY = ['zod', 'undici', 'conf', 'ajv', '@inquirer', 'chalk', 'cli-table3', 'proper-lockfile', 'write-file-atomic', 'open'];

let dir: string;
let home: TestHome;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'carrental-loads-'));
  home = new TestHome();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  home.cleanup();
});

/** Runs the built CLI (not blocking: a test's loopback server must answer) and lists the files of the project it loaded. */
async function loads(argv: string[], name: string): Promise<{ code: number | null; files: string[] }> {
  const log = join(dir, `${name}.log`);
  const child = spawn(process.execPath, ['--require', RECORDER, BIN, ...argv], { env: { ...home.env(), CARRENTAL_LOAD_LOG: log }, stdio: 'ignore' });
  const r = { status: await new Promise<number | null>((resolve) => child.on('close', resolve)) };
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .map((line) => line.replace(/^(cjs|esm) (file:\/\/)?/, ''))
    .filter((f) => f.startsWith(ROOT))
    .map((f) => f.slice(ROOT.length));
  return { code: r.status, files: [...new Set(files)] };
}

/** The dependencies and sources a bundle file holds (esbuild keeps a `// path` line per module). */
function bundled(file: string): string[] {
  return [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^\/\/ ((?:node_modules|src)\/\S+)/gm)].map((m) => m[1]);
}

describe('start-up loads', () => {
  it.each([
    [['--help'], 0],
    [['cars', '--help'], 0],
    [['help', 'quote'], 0],
    [['help'], 0],
    [[], 0],
    [['carz'], 2],
    [['cars', '--city', 'paris'], 2],
  ])('%j loads commander and the command tree only', async (argv, code) => {
    const r = await loads(argv, `help-${argv.join('-') || 'none'}`);
    expect(r.code).toBe(code);
    // on node 20 load.cjs compiles start.cjs with its code cache; node 22+ requires it (and caches itself)
    expect(r.files.sort()).toEqual(COMPILE_CACHE ? ['bin/carrental.js', 'dist/cli/load.cjs', 'dist/cli/start.cjs'] : ['bin/carrental.js', 'dist/cli/load.cjs']);
    const inside = built().inputs;
    expect(inside.some((m) => m.startsWith('node_modules/commander/'))).toBe(true);
    for (const dep of HEAVY) expect(inside.filter((m) => m.startsWith(`node_modules/${dep}/`))).toEqual([]);
    expect(inside.filter((m) => m.startsWith('src/sandbox/') || m.startsWith('src/commands/'))).toEqual([]);
  });

  it('--version reads the package version and nothing else', async () => {
    expect((await loads(['--version'], 'version')).files.sort()).toEqual(['bin/carrental.js', 'package.json']);
  });

  it('cars --json loads its own chunks and undici: no sandbox, prompts or config writer', async () => {
    const stub = await StubServer.start(() => ({ json: { data: { cars: [stubCar('car-1')], total: 1, has_more: false } } }));
    try {
      const r = await loads(['--base-url', stub.baseUrl, 'cars', '--json'], 'cars');
      expect(r.code).toBe(0);
      expect(r.files).toContain('dist/commands/cars.js');
      const modules = r.files.filter((f) => f.startsWith('dist/')).flatMap(bundled);
      expect(modules.some((m) => m.startsWith('node_modules/zod/v4/mini/'))).toBe(true);
      expect(modules.some((m) => m.startsWith('node_modules/undici/'))).toBe(true);
      for (const dep of ['conf', 'ajv', '@inquirer', 'proper-lockfile', 'open']) {
        expect(modules.filter((m) => m.startsWith(`node_modules/${dep}/`))).toEqual([]);
      }
      expect(modules.filter((m) => m.startsWith('src/sandbox/') || m.startsWith('node_modules/zod/v4/classic/'))).toEqual([]);
    } finally {
      await stub.close();
    }
  });

  it('the code cache the build wrote is accepted by the node that built it, and only used without a compile cache', async () => {
    const { compile, CACHE } = (await import(join(DIST, 'cli', 'load.cjs'))) as { compile: (c?: Buffer) => { script: { cachedDataRejected?: boolean } }; CACHE: string };
    // V8 refuses a cache made by another version: the tree then compiles as usual
    expect(compile(readFileSync(CACHE)).script.cachedDataRejected).toBe(built().node !== process.version);
  });

  it('the command modules are where dist/cli/start.cjs imports them from', () => {
    const imported = [...readFileSync(join(DIST, 'cli', 'start.cjs'), 'utf8').matchAll(/__carrentalImportCommand\("\.\.\/commands\/([\w-]+)\.js"\)/g)].map((m) => `${m[1]}.js`);
    expect(imported.length).toBeGreaterThan(20);
    expect(readdirSync(join(DIST, 'commands'))).toEqual(expect.arrayContaining(imported));
  });
});
