// What an embedded `--sandbox` command pays for: a read loads the API part of the sandbox
// only (not its admin endpoints, customer pages, OpenAPI document, lock library or the full
// zod). Checked on the built
// CLI by recording every module a spawned run loads, and reading from the build's metafile
// what each loaded file holds (as test/e2e/startup.e2e.test.ts does for the other commands).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, assertBuilt, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';

const RECORDER = join(ROOT, 'test', 'fixtures', 'record-loads.cjs');
interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}
const holds = (file: string) =>
  Object.keys((JSON.parse(readFileSync(join(ROOT, '.tmp', 'metafile.json'), 'utf8')) as Metafile).outputs[file]?.inputs ?? {}).map((m) =>
    m.replace(/^.*?(node_modules\/|src\/)/, '$1'),
  );

let home: TestHome;
beforeAll(() => {
  assertBuilt();
  home = new TestHome();
});
afterAll(() => home.cleanup());

/** The project's modules a spawned run of the built CLI loaded. */
async function loads(argv: string[]): Promise<{ code: number | null; modules: string[] }> {
  const log = join(home.dir, `loads-${Date.now()}.log`);
  const child = spawn(process.execPath, ['--require', RECORDER, BIN, ...argv], { env: { ...home.env(), CARRENTAL_LOAD_LOG: log }, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .map((line) => line.replace(/^(cjs|esm) (file:\/\/)?/, ''))
    .filter((f) => f.startsWith(ROOT))
    .map((f) => f.slice(ROOT.length));
  rmSync(log);
  return { code, modules: [...new Set(files)].filter((f) => f.startsWith('dist/')).flatMap(holds) };
}

describe('an embedded --sandbox read', () => {
  it('loads the API part of the sandbox only', async () => {
    const list = await runBin(['--sandbox', 'trips', '--json'], { env: home.env() });
    expect(list.code, list.stderr).toBe(0);
    // node:sqlite's ExperimentalWarning (Node 22) is filtered
    expect(list.stderr).toBe('');
    const uuid = JSON.parse(list.stdout).active[0].uuid as string;
    // SQLite where node:sqlite exists (Node 22.13+), the JSON document on Node 20
    const head = readFileSync(home.env().CARRENTAL_SANDBOX_STATE as string).subarray(0, 16).toString('latin1');
    expect(head).toBe(loadSqlite() ? 'SQLite format 3\0' : head.startsWith('{') ? head : 'a JSON document');

    // the first read of an unpaid trip writes its debt invoice; the second one only reads
    expect((await runBin(['--sandbox', 'trips', uuid, '--json'], { env: home.env() })).code).toBe(0);
    const r = await loads(['--sandbox', 'trips', uuid, '--json']);
    expect(r.code).toBe(0);
    expect(r.modules).toEqual(expect.arrayContaining(['src/sandbox/store.ts', 'src/sandbox/sqlite-store.ts', 'src/sandbox/handlers.ts']));
    const heavy = r.modules.filter(
      (m) =>
        /^src\/sandbox\/(admin|pages|openapi)(\/|\.ts)/.test(m) ||
        m.startsWith('node_modules/proper-lockfile/') ||
        m.startsWith('node_modules/graceful-fs/') ||
        m.startsWith('node_modules/zod/v4/classic/'),
    );
    expect(heavy).toEqual([]);
  });
});
