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
  /** "importer -> imported" pairs the design allows (each says why). */
  except?: string[];
}

const FRONT_ENDS = ['src/commands', 'src/cli', 'src/mcp'];

/** Every top-level folder and file of src/ but the given ones, folders first. */
function everythingBut(...kept: string[]): string[] {
  return readdirSync(SRC, { withFileTypes: true })
    .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name))
    .map((entry) => `src/${entry.name}`)
    .filter((path) => !kept.includes(path));
}

const RULES: Rule[] = [
  { name: 'the transport imports no renderer and no front end', from: 'src/api', notTo: ['src/render', ...FRONT_ENDS] },
  { name: 'renderers import no front end', from: 'src/render', notTo: FRONT_ENDS },
  { name: 'mcp does not import commands', from: 'src/mcp', notTo: ['src/commands'] },
  // `carrental mcp` is a command like any other: its module is the one door from the commands
  // into mcp, and it opens on mcp's entry only (src/mcp never imports src/commands).
  { name: 'commands do not import mcp', from: 'src/commands', notTo: ['src/mcp'], except: ['src/commands/mcp.ts -> src/mcp/server.ts'] },
  { name: 'the booking core imports no front end', from: 'src/booking', notTo: FRONT_ENDS },
  { name: 'the input parsers import no front end', from: 'src/input', notTo: ['src/booking', 'src/render', ...FRONT_ENDS] },
  // src/text is the bottom layer (terminal sanitising, secret scrubbing, JSON text): everyone
  // may import it, and it imports nothing else of src/.
  { name: 'the text helpers import nothing above them', from: 'src/text', notTo: everythingBut('src/text') },
  // src/errors.ts is the root: everything may import it, it imports no other module of src/.
  { name: 'the root module imports nothing above it', from: 'src/errors.ts', notTo: everythingBut('src/errors.ts', 'src/text') },
];

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
        const edge = `${importer} -> ${imported}`;
        if (imported !== importer && under(importer, rule.from) && rule.notTo.some((layer) => under(imported, layer)) && !rule.except?.includes(edge)) {
          found.push(edge);
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

  it('no import breaks a layer rule', () => {
    expect(found).toEqual([]);
  });

  it("a rule's exception is that one import, not its folder", () => {
    expect(violationsIn(new Map([['src/commands/mcp.ts', ['src/mcp/server.ts']]]))).toEqual([]);
    expect(violationsIn(new Map([['src/commands/mcp.ts', ['src/mcp/tools.ts']]]))).toEqual(['src/commands/mcp.ts -> src/mcp/tools.ts']);
    expect(violationsIn(new Map([['src/commands/cars.ts', ['src/mcp/server.ts']]]))).toEqual(['src/commands/cars.ts -> src/mcp/server.ts']);
  });

  it.each(RULES.map((rule) => [rule.name, rule] as const))('the rule "%s" catches an import that breaks it', (_name, rule) => {
    const importer = rule.from.endsWith('.ts') ? rule.from : `${rule.from}/probe.ts`;
    const imported = `${rule.notTo[0]}/probe.ts`;
    expect(violationsIn(new Map([[importer, [imported]]]))).toEqual([`${importer} -> ${imported}`]);
    // and the same file importing inside its own layer is fine
    expect(violationsIn(new Map([[importer, [importer === rule.from ? importer : `${rule.from}/other.ts`]]]))).toEqual([]);
  });
});
