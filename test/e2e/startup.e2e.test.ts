// What the built CLI loads: --help needs the command tree only (dist/cli.js and the chunks
// it imports; not even commander), a usage error adds commander; a catalog command adds its
// own chunks, never the sandbox, the prompts or the config writer. Checked by recording every module
// a spawned run loads, and reading what each loaded file holds from the build's metafile.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { serveHttp } from '../helpers/network.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';
// @ts-expect-error: a plain ES module of the build, without types
import { eagerWrappers } from '../../scripts/eager-wrappers.mjs';

const RECORDER = join(ROOT, 'test', 'fixtures', 'record-loads.cjs');
const BUILTINS = join(ROOT, 'test', 'fixtures', 'record-builtins.cjs');
const ZOD_RECORDER = join(ROOT, 'test', 'fixtures', 'record-zod.cjs');
const DIST = join(ROOT, 'dist');
interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown>; imports: Array<{ path: string; kind: string }> }>;
}
/** esbuild's metafile of the last build (the output is minified: it says which modules each file holds); read once, the build precedes the suite. */
let parsed: Metafile | undefined;
const metafile = () => (parsed ??= JSON.parse(readFileSync(join(ROOT, '.tmp', 'metafile.json'), 'utf8')) as Metafile);
/** The modules a dist file holds, as paths under node_modules/ or src/. */
const holds = (file: string) => Object.keys(metafile().outputs[file]?.inputs ?? {}).map((m) => m.replace(/^.*?(node_modules\/|src\/)/, '$1'));
const HEAVY = ['zod', 'undici', 'conf', 'ajv', '@inquirer', 'chalk', 'cli-table3', 'proper-lockfile', 'write-file-atomic', 'open', 'jq-wasm'];

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

describe('start-up loads', () => {
  it.each([
    [['--help'], 0, false],
    [['cars', '--help'], 0, false],
    [['help', 'quote'], 0, false],
    [['help'], 0, false],
    [['auth', 'login', '-h'], 0, false],
    [[], 0, true],
    [['carz'], 2, true],
    [['cars', '--city', 'paris'], 2, true],
  ])('%j loads the command tree only (commander: %s)', async (argv, code, commander) => {
    const r = await loads(argv, `help-${argv.join('-') || 'none'}`);
    expect(r.code).toBe(code);
    const dist = r.files.filter((f) => f.startsWith('dist/'));
    expect(r.files.filter((f) => !f.startsWith('dist/'))).toEqual(['bin/carrental.js']);
    expect(dist).toContain('dist/cli.js');
    expect(dist.filter((f) => !/^dist\/(cli\.js|chunks\/(chunk|program)-\w+\.js)$/.test(f))).toEqual([]);
    // help: dist/cli.js and the chunk of what the tree shares with the commands
    // (scripts/tree-core.ts), nothing else
    if (!commander) expect(dist).toEqual(['dist/cli.js', expect.stringMatching(/^dist\/chunks\/chunk-\w+\.js$/)]);
    const inside = dist.flatMap(holds);
    expect(inside.some((m) => m.startsWith('node_modules/commander/'))).toBe(commander);
    for (const dep of HEAVY) expect(inside.filter((m) => m.startsWith(`node_modules/${dep}/`))).toEqual([]);
    expect(inside.filter((m) => m.startsWith('src/sandbox/') || m.startsWith('src/commands/') || m.startsWith('src/api/client'))).toEqual([]);
  });

  it('--version reads the package version and nothing else', async () => {
    expect((await loads(['--version'], 'version')).files.sort()).toEqual(['bin/carrental.js', 'package.json']);
  });

  it('cars --json loads its own chunks and undici (the transport, a chunk of its own): no sandbox, prompts or config writer', async () => {
    const stub = await StubServer.start(() => ({ json: { data: { cars: [stubCar('car-1')], total: 1, has_more: false } } }));
    try {
      const r = await loads(['--base-url', stub.baseUrl, 'cars', '--json'], 'cars');
      expect(r.code).toBe(0);
      expect(r.files).toContain('dist/commands/cars.js');
      const modules = r.files.filter((f) => f.startsWith('dist/')).flatMap(holds);
      expect(modules.some((m) => m.startsWith('node_modules/zod/v4/mini/'))).toBe(true);
      // undici's Agent, proxy agent, request API and interceptors, never its package entry
      // (fetch, WebSocket, EventSource, caches, mocks)
      expect(modules).toEqual(expect.arrayContaining(['src/api/transport.ts', 'node_modules/undici/lib/dispatcher/agent.js', 'node_modules/undici/lib/interceptor/decompress.js']));
      expect(modules.filter((m) => /^node_modules\/undici\/(index\.js|lib\/(web\/(websocket|eventsource|cache|fetch\/index)|mock|cache)\b)/.test(m))).toEqual([]);
      // chalk neither: the styles are ours (src/render/style.ts), its colour detection ran at load
      for (const dep of ['conf', 'ajv', '@inquirer', 'proper-lockfile', 'open', 'jq-wasm', 'chalk']) {
        expect(modules.filter((m) => m.startsWith(`node_modules/${dep}/`))).toEqual([]);
      }
      expect(modules.filter((m) => m.startsWith('src/sandbox/') || m.startsWith('node_modules/zod/v4/classic/'))).toEqual([]);
      // what the API commands share is one chunk (scripts/command-core.ts), not one per
      // subset of commands (fifteen files before): the entry and the tree's chunk,
      // commander, the command's module and its own chunk, the command core, one chunk the
      // core shares with the prompts (string widths), and the transport, loaded when the
      // first request is sent
      expect(r.files.filter((f) => f.startsWith('dist/')).length).toBeLessThanOrEqual(8);
      expect(modules).toEqual(expect.arrayContaining(['src/api/client.ts', 'src/session/services.ts', 'src/api/schemas.ts', 'src/input/dates.ts', 'src/store/atomic-file.ts']));
      // no ES import of node:process (env-paths gets the process object from the build's
      // stand-in): node would build its module namespace, reading every getter of process
      const loaded = r.files.filter((f) => f.startsWith('dist/'));
      expect(loaded.flatMap((f) => metafile().outputs[f].imports.filter((i) => i.path === 'node:process' && i.kind === 'import-statement').map(() => f))).toEqual([]);
    } finally {
      await stub.close();
    }
  });

  it("cars --json loads none of node:assert, node:zlib, node:child_process (the build's stand-ins for undici's and commander's), nor node:crypto (src/store/lazy-crypto.ts); a gzip answer loads zlib and is decoded", async () => {
    let compress = false;
    const body = JSON.stringify({ data: { cars: [stubCar('car-1')], total: 1, has_more: false } });
    const server = await serveHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(compress ? { 'content-encoding': 'gzip' } : {}) });
      res.end(compress ? gzipSync(body) : body);
    });
    const run = async (name: string) => {
      const log = join(dir, `builtins-${name}.log`);
      const env = home.env({ CARRENTAL_BUILTINS_LOG: log, NODE_OPTIONS: `--require ${BUILTINS}` });
      const r = await runBin(['--base-url', `http://127.0.0.1:${server.port}/v1`, 'cars', '--json'], { env });
      return { ...r, builtins: readFileSync(log, 'utf8').trim().split('\n') };
    };
    try {
      const plain = await run('plain');
      expect(plain.code).toBe(0);
      expect(JSON.parse(plain.stdout).cars[0].car_alias).toBe('car-1');
      expect(plain.builtins).toEqual(expect.arrayContaining(['net', 'http']));
      expect(plain.builtins.filter((b) => ['assert', 'zlib', 'child_process', 'crypto'].includes(b))).toEqual([]);
      compress = true;
      const gzipped = await run('gzip');
      expect(gzipped.stderr).toBe('');
      expect(gzipped.code).toBe(0);
      expect(JSON.parse(gzipped.stdout)).toEqual(JSON.parse(plain.stdout));
      expect(gzipped.builtins).toContain('zlib');
    } finally {
      await server.close();
    }
  });

  it('cars --json loads no zod (scripts/zod-on-first-use.ts); selecting fields, a car the plain check doubts, and car do, and work', async () => {
    let cars = [stubCar('car-1')];
    const server = await serveHttp((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const data = req.url!.startsWith('/v1/cars/') ? cars[0] : { cars, total: cars.length, has_more: false };
      res.end(JSON.stringify({ data }));
    });
    const run = async (name: string, argv: string[]) => {
      const log = join(dir, `zod-${name}.log`);
      const r = await runBin(['--base-url', `http://127.0.0.1:${server.port}/v1`, ...argv], { env: home.env({ CARRENTAL_ZOD_LOG: log, NODE_OPTIONS: `--require ${ZOD_RECORDER}` }) });
      return { ...r, zod: readFileSync(log, 'utf8') };
    };
    try {
      const plain = await run('plain', ['cars', '--json']);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.zod).toBe('none');
      const fields = await run('fields', ['cars', '--json', 'car_alias,seats']);
      expect(fields.code, fields.stderr).toBe(0);
      expect(JSON.parse(fields.stdout)).toEqual({ cars: [{ car_alias: 'car-1', seats: stubCar('car-1').seats }], total: 1, has_more: false });
      expect(fields.zod).toBe('zod');
      const one = await run('car', ['car', 'car-1', '--json']);
      expect(one.code, one.stderr).toBe(0);
      expect(one.zod).toBe('zod');
      // a seat count the plain check refuses goes to the schema, whose message names the field
      cars = [stubCar('car-1', { seats: 'four' })];
      const doubted = await run('doubted', ['cars', '--json']);
      expect(doubted.code).toBe(1);
      expect(doubted.stderr).toContain('unexpected response from GET /cars: data.cars.0.seats: Invalid input: expected number, received string');
      expect(doubted.zod).toBe('zod');
    } finally {
      await server.close();
    }
  });

  it('every module is built once: the tree and the commands share one CliError', () => {
    // one esbuild build with code splitting: a module the tree and a command both import
    // lives in one chunk, so `instanceof CliError` holds without any global brand
    const outputsHolding = (input: string) => Object.entries(metafile().outputs).filter(([, o]) => Object.keys(o.inputs).some((i) => i.endsWith(input)));
    expect(outputsHolding('src/errors.ts')).toHaveLength(1);
    expect(outputsHolding('src/cli/commands.ts')).toHaveLength(1);
  });

  it('ships plain JavaScript only: nothing tied to the Node that built it', () => {
    const files = readdirSync(DIST, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.filter((d) => !d.name.endsWith('.js')).map((d) => d.name)).toEqual([]);
  });

  it("esbuild's module wrappers are written as functions V8 compiles at load (scripts/eager-wrappers.mjs)", () => {
    const transport = Object.keys(metafile().outputs).find((f) => holds(f).includes('src/api/transport.ts'))!;
    const text = readFileSync(join(ROOT, transport), 'utf8');
    // undici's modules, each in its wrapper: the pass found them all (a second pass finds nothing)
    expect(text.match(/\(\(function\(/g)?.length).toBeGreaterThan(50);
    for (const d of readdirSync(DIST, { recursive: true, withFileTypes: true }).filter((f) => f.isFile())) {
      const code = readFileSync(join(d.parentPath, d.name), 'utf8');
      expect(eagerWrappers(code), d.name).toBe(code);
    }
  });

  it('the command modules are where the command tree imports them from', () => {
    const tree = Object.values(metafile().outputs).find((o) => Object.keys(o.inputs).some((i) => i.endsWith('src/cli/commands.ts')))!;
    const imported = tree.imports.filter((i) => i.kind === 'dynamic-import' && i.path.startsWith('dist/commands/')).map((i) => i.path.slice('dist/commands/'.length));
    expect(imported.length).toBeGreaterThan(20);
    expect(readdirSync(join(DIST, 'commands'))).toEqual(expect.arrayContaining(imported));
  });
});
