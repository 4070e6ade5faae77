import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The import layers of issue 26, checked statically over src/: every import, export-from and
// dynamic import() (type-only imports included: a type that reaches up a layer is a dependency
// all the same), resolved to the src file it names.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

// A rule: files under `from` must not import anything under one of `notTo`.
interface Rule {
  name: string;
  from: string;
  notTo: string[];
}

const FRONT_ENDS = ['src/commands', 'src/cli', 'src/mcp'];

const RULES: Rule[] = [
  { name: 'the transport imports no renderer and no front end', from: 'src/api', notTo: ['src/render', ...FRONT_ENDS] },
  { name: 'renderers import no front end', from: 'src/render', notTo: FRONT_ENDS },
  { name: 'mcp does not import commands', from: 'src/mcp', notTo: ['src/commands'] },
  { name: 'commands do not import mcp', from: 'src/commands', notTo: ['src/mcp'] },
  { name: 'the booking core imports no front end', from: 'src/booking', notTo: FRONT_ENDS },
  // src/errors.ts is the root: everything may import it, it imports no other module of src/.
  { name: 'the root module imports nothing above it', from: 'src/errors.ts', notTo: ['src'] },
];

// Known violations, allowed for now: issue 26 moves these after the parallel work on src/ lands.
// Each is "importer -> imported". Remove a line when its import goes; the test fails on a line
// that no longer matches anything, so this list can only shrink.
const ALLOWED_FOR_NOW = new Set([
  // errors.ts reaches up for CLI hint wording, secret scrubbing and terminal sanitising
  'src/errors.ts -> src/api/hints.ts',
  'src/errors.ts -> src/api/redact.ts',
  'src/errors.ts -> src/render/sanitize.ts',
  // the HTTP client scrubs and sanitises with renderer helpers
  'src/api/client.ts -> src/render/json-text.ts',
  'src/api/client.ts -> src/render/sanitize.ts',
  'src/api/payload.ts -> src/render/raw-json.ts',
  // the output sink is typed by the CLI's context
  'src/render/output.ts -> src/cli/context.ts',
  // the booking core takes the CLI's context and target types
  'src/booking/journaled-write.ts -> src/cli/context.ts',
  'src/booking/journaled-write.ts -> src/cli/services.ts',
  // mcp borrows the commands' parsers and the reserve request builder
  'src/mcp/http.ts -> src/commands/parse.ts',
  'src/mcp/server.ts -> src/commands/parse.ts',
  'src/mcp/tool-inputs.ts -> src/commands/parse.ts',
  'src/mcp/tool-inputs.ts -> src/commands/reserve.ts',
  'src/mcp/tools.ts -> src/commands/parse.ts',
  // the `carrental mcp` command starts the server
  'src/commands/mcp.ts -> src/mcp/server.ts',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.d.cts') ? [path] : [];
  });
}

const posix = (path: string) => path.split('\\').join('/');

/** The repository-relative src files that `file` imports (bare packages and node: builtins left out). */
function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((ref) => ref.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => posix(relative(ROOT, resolve(dirname(file), specifier.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts')))));
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** "importer -> imported" for every import in `graph` (importer -> the src files it imports) that breaks a rule. */
function violationsIn(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [importer, imports] of graph) {
    for (const imported of imports) {
      for (const rule of RULES) {
        if (imported !== importer && under(importer, rule.from) && rule.notTo.some((layer) => under(imported, layer))) {
          found.push(`${importer} -> ${imported}`);
        }
      }
    }
  }
  return [...new Set(found)].sort();
}

const srcGraph = () => new Map(sourceFiles(SRC).map((file) => [posix(relative(ROOT, file)), importsOf(file)]));

describe('import layers', () => {
  const found = violationsIn(srcGraph());

  it('reads every kind of import specifier', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = () => import('./e.js');",
      "import 'node:fs';",
      "import { z } from 'zod';",
    ].join('\n');
    expect(importsOf(join(SRC, 'x', 'y.ts'), text)).toEqual(['src/x/a.ts', 'src/b.ts', 'src/x/c.ts', 'src/x/d.ts', 'src/x/e.ts']);
  });

  it('scans the whole of src/', () => {
    const files = sourceFiles(SRC).map((file) => posix(relative(ROOT, file)));
    expect(files).toContain('src/errors.ts');
    expect(files).toContain('src/api/client.ts');
    expect(files.length).toBeGreaterThan(100);
  });

  it('no import breaks a layer rule, except the known ones listed above', () => {
    expect(found.filter((violation) => !ALLOWED_FOR_NOW.has(violation))).toEqual([]);
  });

  it('every violation allowed for now still exists (delete the line once it is fixed)', () => {
    expect([...ALLOWED_FOR_NOW].filter((violation) => !found.includes(violation))).toEqual([]);
  });

  it.each(RULES.map((rule) => [rule.name, rule] as const))('the rule "%s" catches an import that breaks it', (_name, rule) => {
    const importer = rule.from.endsWith('.ts') ? rule.from : `${rule.from}/probe.ts`;
    const imported = rule.notTo[0] === 'src' ? 'src/api/schemas.ts' : `${rule.notTo[0]}/probe.ts`;
    expect(violationsIn(new Map([[importer, [imported]]]))).toEqual([`${importer} -> ${imported}`]);
    // and the same file importing inside its own layer is fine
    expect(violationsIn(new Map([[importer, [importer === rule.from ? importer : `${rule.from}/other.ts`]]]))).toEqual([]);
  });
});
