// The transport in the build (issue 24): a chunk of its own, holding undici's Agent, proxy
// agent and interceptors (and a stub in place of its HTTP/2 client), loaded by the commands
// that send a request and by no other. Checked on the build's metafile and by recording the
// modules a spawned run of the built CLI loads (test/fixtures/record-loads.cjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

const RECORDER = join(ROOT, 'test', 'fixtures', 'record-loads.cjs');
interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}
const metafile = () => JSON.parse(readFileSync(join(ROOT, '.tmp', 'metafile.json'), 'utf8')) as Metafile;
/** The modules an output file holds, as paths under node_modules/ or src/. */
const modulesOf = (output: { inputs: Record<string, unknown> }) => Object.keys(output.inputs).map((m) => m.replace(/^.*?(node_modules\/|src\/)/, '$1'));
/** The output file holding src/api/transport.ts. */
function transportChunk(): [string, string[]] {
  const found = Object.entries(metafile().outputs)
    .map(([file, output]) => [file, modulesOf(output)] as [string, string[]])
    .filter(([, modules]) => modules.includes('src/api/transport.ts'));
  expect(found).toHaveLength(1);
  return found[0];
}

let dir: string;
let home: TestHome;
let stub: StubServer;
beforeAll(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'carrental-transport-loads-'));
  home = new TestHome();
  stub = await StubServer.start(() => ({ json: { data: { cars: [stubCar('car-1')], total: 1, has_more: false } } }));
  // `config get` of a key never set exits 1: give it one
  expect((await runBin(['config', 'set', 'base_url', stub.baseUrl], { env: home.env() })).code).toBe(0);
});
afterAll(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
  home.cleanup();
});

/** Runs the built CLI with the recorder and lists the files under dist/ it loaded. */
async function loads(argv: string[], name: string): Promise<{ code: number | null; dist: string[] }> {
  const log = join(dir, `${name}.log`);
  const child = spawn(process.execPath, ['--require', RECORDER, BIN, ...argv], { env: { ...home.env(), CARRENTAL_LOAD_LOG: log }, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const dist = readFileSync(log, 'utf8')
    .split('\n')
    .map((line) => line.replace(/^(cjs|esm) (file:\/\/)?/, ''))
    .filter((f) => f.startsWith(join(ROOT, 'dist')))
    .map((f) => f.slice(ROOT.length));
  return { code, dist: [...new Set(dist)] };
}

describe('the transport chunk', () => {
  it("holds undici's Agent, EnvHttpProxyAgent, redirect and decompress interceptors, and all of undici the build bundles", () => {
    const [file, modules] = transportChunk();
    expect(modules).toEqual(
      expect.arrayContaining([
        'node_modules/undici/lib/dispatcher/agent.js',
        'node_modules/undici/lib/dispatcher/env-http-proxy-agent.js',
        'node_modules/undici/lib/interceptor/redirect.js',
        'node_modules/undici/lib/handler/redirect-handler.js',
        'node_modules/undici/lib/interceptor/decompress.js',
      ]),
    );
    // no other output holds any of undici: what the transport uses is undici's, in that chunk
    const elsewhere = Object.entries(metafile().outputs).filter(([f, o]) => f !== file && modulesOf(o).some((m) => m.startsWith('node_modules/undici/')));
    expect(elsewhere.map(([f]) => f)).toEqual([]);
  });

  it('bundles the stub, not the HTTP/2 client', () => {
    // (moved from test/unit/undici-pin.test.ts: it reads the build's metafile)
    const inputs = Object.keys(metafile().inputs);
    expect(inputs.some((i) => i.endsWith('scripts/undici-no-h2.cjs'))).toBe(true);
    expect(inputs.some((i) => i.endsWith('undici/lib/dispatcher/client-h2.js'))).toBe(false);
    expect(inputs.some((i) => i.endsWith('undici/lib/dispatcher/client.js'))).toBe(true);
  });

  it.each([
    [['config', 'get', 'base_url'], 0],
    [['completion', 'bash'], 0],
    [['pending'], 0],
    [['help', 'reserve'], 0],
    // a usage error the command itself finds, after its module is loaded, before any request
    [['cars', '--limit', '0'], 2],
    [['cars', '--all', '--parallel', 'x'], 2],
  ])('%j sends no request and does not load it', async (argv, code) => {
    const [file] = transportChunk();
    const before = stub.requests.length;
    const r = await loads(['--base-url', stub.baseUrl, ...argv], argv.join('-'));
    expect(r.code).toBe(code);
    expect(stub.requests.length).toBe(before);
    expect(r.dist).toContain('dist/cli.js');
    expect(r.dist).not.toContain(file);
  });

  it('a command that sends a request loads it', async () => {
    const [file] = transportChunk();
    const r = await loads(['--base-url', stub.baseUrl, 'cars', '--json'], 'cars');
    expect(r.code).toBe(0);
    expect(r.dist).toContain(file);
  });
});
