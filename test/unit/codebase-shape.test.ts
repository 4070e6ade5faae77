// The shape issue 26 left the codebase in, checked so that it stays: no source file over
// 600 lines; a test that needs the build (dist/, the metafile in .tmp/, the built CLI) is
// named `.e2e.`, so that `vitest run` of the unit tests never depends on a build; and git
// ignores the dumps a profiling session leaves behind.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/bin.js';

const MAX_LINES = 600;

/** Files under `dir` (relative to ROOT, with forward slashes) whose name passes `keep`. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && keep(d.name))
    .map((d) => relative(ROOT, join(d.parentPath, d.name)).split('\\').join('/'))
    .sort();
}

function linesOf(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('no source file over 600 lines', () => {
  it('holds for every file under src/', () => {
    const files = filesUnder('src', () => true);
    expect(files.length).toBeGreaterThan(50);
    const long = files.map((f) => `${f}: ${linesOf(readFileSync(join(ROOT, f), 'utf8'))} lines`).filter((f) => Number(/(\d+) lines$/.exec(f)![1]) > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('counts lines as an editor shows them', () => {
    expect(linesOf('')).toBe(0);
    expect(linesOf('a\n'.repeat(MAX_LINES))).toBe(MAX_LINES);
    expect(linesOf(`${'a\n'.repeat(MAX_LINES)}b`)).toBe(MAX_LINES + 1);
  });
});

// What marks a module as needing the build: a path into dist/ or .tmp/ (a string such as
// 'dist', '.tmp', 'dist/cli.js', or a template's `/dist/...` after an interpolated root), or
// the helpers that run the built CLI (test/helpers/bin.ts: everything it exports but ROOT;
// the file itself names dist/ to say when the build is missing). Import specifiers are not
// paths of ours ('ajv/dist/2020.js'), nor is a bare 'dist/' (the package's `files`).
const BUILD_PATH = /^(?:\.?\/)?(?:dist|\.tmp)(?:\/.|$)/;
const BIN_HELPERS = 'test/helpers/bin.ts';
const RUNS_THE_BUILD = new Set(['BIN', 'runBin', 'assertBuilt', 'ShimDir']);

interface Module {
  /** Why this module needs the build, if it does by itself. */
  needs: string[];
  /** The test files and helpers it imports (relative to ROOT). */
  imports: string[];
}

function readModule(file: string, text: string): Module {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const needs: string[] = [];
  const imports: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const spec = node.moduleSpecifier;
      if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) {
        const target = relative(ROOT, resolve(dirname(join(ROOT, file)), spec.text.replace(/\.js$/, '.ts'))).split('\\').join('/');
        if (target.startsWith('test/')) imports.push(target);
        const named = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
        if (target === BIN_HELPERS && named && (ts.isNamedImports(named) || ts.isNamedExports(named))) {
          for (const el of named.elements) {
            const name = (el.propertyName ?? el.name).text;
            if (RUNS_THE_BUILD.has(name)) needs.push(`imports ${name} from ${BIN_HELPERS}`);
          }
        }
      }
      return; // the specifier is a module name, not a path the test reads
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) {
      if (BUILD_PATH.test(node.text)) needs.push(`names ${JSON.stringify(node.text)}`);
    }
    // after an interpolation, a path goes on with a slash (`${ROOT}/dist/...`); a bare `.tmp`
    // there ends a file's name (`state.json.${pid}.tmp`), not a path into .tmp/
    if ((ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) && node.text.startsWith('/') && BUILD_PATH.test(node.text)) {
      needs.push(`names ${JSON.stringify(node.text)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { needs, imports };
}

/** Test files not named `.e2e.` that need the build, directly or through a helper they import, with why. */
function unitTestsNeedingTheBuild(files: Record<string, string>): string[] {
  const modules = new Map(Object.entries(files).map(([f, text]) => [f, readModule(f, text)]));
  const why = (file: string, seen = new Set<string>()): string | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const m = modules.get(file);
    if (!m || file === BIN_HELPERS) return undefined;
    if (m.needs.length) return `${file} ${m.needs[0]}`;
    for (const imported of m.imports) {
      const reason = why(imported, seen);
      if (reason) return file === imported ? reason : `${reason} (imported by ${file})`;
    }
    return undefined;
  };
  return [...modules.keys()]
    .filter((f) => f.endsWith('.test.ts') && !f.includes('.e2e.'))
    .map((f) => why(f))
    .filter((r): r is string => r !== undefined);
}

describe('tests that need the build are `.e2e.`', () => {
  it('holds for every test file', () => {
    const files = filesUnder('test', (name) => name.endsWith('.ts'));
    expect(files.filter((f) => f.endsWith('.test.ts')).length).toBeGreaterThan(100);
    expect(unitTestsNeedingTheBuild(Object.fromEntries(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')])))).toEqual([]);
  });

  it('finds a read of the metafile, a spawned built CLI, and either through a helper; not an import specifier or a look at package.json', () => {
    const helpers = {
      'test/helpers/bin.ts': "export const ROOT = '/'; export const BIN = join(ROOT, 'bin', 'carrental.js'); existsSync(join(ROOT, 'dist', 'cli.js'));",
      'test/mcp/harness.ts': "import { assertBuilt, BIN, ROOT } from '../helpers/bin.js';\nexport const start = () => spawn(process.execPath, [BIN]);",
    };
    expect(
      unitTestsNeedingTheBuild({
        ...helpers,
        'test/unit/meta.test.ts': "import { ROOT } from '../helpers/bin.js';\nreadFileSync(join(ROOT, '.tmp', 'metafile.json'));",
        'test/unit/dist.test.ts': 'readdirSync(`${ROOT}/dist/chunks`);',
        'test/unit/chunks.test.ts': "readdirSync(join(ROOT, 'dist/chunks'));",
        'test/unit/spawn.test.ts': "import { runBin } from '../helpers/bin.js';\nawait runBin(['--help']);",
        'test/mcp/server.test.ts': "import { start } from './harness.js';\nstart();",
        'test/mcp/server.e2e.test.ts': "import { start } from './harness.js';\nstart();",
        'test/unit/fine.test.ts': [
          "import { Ajv2020 } from 'ajv/dist/2020.js';",
          "import { ROOT } from '../helpers/bin.js';",
          "expect(pkg.files).toEqual(['bin/', 'dist/']);",
          "expect(pkg.bin).toEqual({ carrental: 'bin/carrental.js' });",
          "readFileSync(join(ROOT, 'package.json'));",
          "writeFileSync(join(dir, 'journal.json.4242.7.tmp'), '');",
          'writeFileSync(join(dir, `journal.json.${pid}.7.tmp`), `${x}.tmp`);',
          "packageDir('node_modules/@inquirer/core/dist/index.js');",
        ].join('\n'),
      }),
    ).toEqual([
      'test/unit/meta.test.ts names ".tmp"',
      'test/unit/dist.test.ts names "/dist/chunks"',
      'test/unit/chunks.test.ts names "dist/chunks"',
      'test/unit/spawn.test.ts imports runBin from test/helpers/bin.ts',
      'test/mcp/harness.ts imports assertBuilt from test/helpers/bin.ts (imported by test/mcp/server.test.ts)',
    ]);
  });
});

describe('.gitignore covers dumps', () => {
  const ignored = (names: string[]): string[] => {
    // check-ignore exits 1 when it ignores none of them
    try {
      return execFileSync('git', ['check-ignore', '--no-index', ...names], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch (err) {
      if ((err as { status?: number }).status === 1) return [];
      throw err;
    }
  };

  it('ignores heap snapshots, CPU and heap profiles, V8 logs, core dumps and diagnostic reports, anywhere', () => {
    const dumps = [
      'x.heapsnapshot',
      'Heap.20261126.101010.1234.0.001.heapsnapshot',
      'CPU.20261126.101010.1234.0.001.cpuprofile',
      'x.heapprofile',
      'bench/startup/x.cpuprofile',
      'x.prof',
      'isolate-0x1-1-v8.log',
      'isolate-0x5581a0c8e000-4242-v8.log',
      'core',
      'core.4242',
      'test/core.12',
      'report.1.json',
      'report.20261126.101010.4242.0.001.json',
    ];
    expect(ignored(dumps)).toEqual(dumps);
  });

  it('ignores no source, test or doc that merely looks like one', () => {
    expect(ignored(['src/core/index.ts', 'test/fixtures/core/a.json', 'src/core.ts', 'docs/report.md', 'test/fixtures/report.json', 'src/isolate.ts', 'profile.md', 'corefile'])).toEqual([]);
  });
});
