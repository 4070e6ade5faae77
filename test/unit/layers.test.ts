import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import { GLOBAL_OPTIONS, HELP_FLAGS, VERSION_FLAGS } from '../../src/cmdkit/global-options.js';

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

// src/commands holds one module per command and nothing else (issue 26): what two commands
// share lives in the layer it belongs to (src/cli, src/booking, src/render, ...), so no
// command module imports another.
describe('src/commands', () => {
  it('holds the modules the command tree loads, and nothing else', () => {
    const tree = readFileSync(join(SRC, 'cli', 'commands.ts'), 'utf8');
    const loaded = [...tree.matchAll(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g)].map(([, name]) => `${name}.ts`);
    expect(loaded.length).toBeGreaterThan(30);
    expect(readdirSync(join(SRC, 'commands')).sort()).toEqual([...new Set(loaded)].sort());
  });

  it('no command module imports another', () => {
    const found = [...srcGraph()].flatMap(([importer, imports]) =>
      under(importer, 'src/commands') ? imports.filter((i) => under(i, 'src/commands')).map((i) => `${importer} -> ${i}`) : [],
    );
    expect(found).toEqual([]);
  });
});

// zod/mini is taken from src/api/zod.ts, which sets it up (English messages, no JIT) and which
// the build loads on first use (scripts/zod-on-first-use.ts): a module importing 'zod/mini'
// itself would run zod before the set-up, and load it in commands that need none.
describe('zod', () => {
  it("no module but src/api/zod.ts imports zod/mini's values (types are free)", () => {
    const valueImport = /^import (?!type )[^;]* from 'zod\/mini';$/m;
    const importers = sourceFiles(SRC)
      .filter((file) => valueImport.test(readFileSync(file, 'utf8')))
      .map((file) => posix(relative(ROOT, file)));
    expect(importers).toEqual(['src/api/zod.ts']);
    expect(valueImport.test("import * as z from 'zod/mini';")).toBe(true);
    expect(valueImport.test("import type * as Zod from 'zod/mini';")).toBe(false);
  });
});

// What to say to a person belongs to the front end that says it (issue 26): the transport
// records what failed, and src/cmdkit/hints.ts words the next step; the booking core, shared with
// the MCP server, records facts too (a pending write's key). So no string under src/api or
// src/booking names a command of the CLI (`carrental doctor`) or one of its flags (`--debug`).

/** The CLI's top-level command names and every long flag it declares, from its own declarations. */
function cliWords(): { commands: string[]; flags: string[] } {
  const flags = new Set<string>();
  const addFlags = (spec: { flags: string }) => {
    for (const m of spec.flags.matchAll(/--[a-z][\w-]*/g)) flags.add(m[0]);
  };
  const walk = (spec: CommandSpec) => {
    spec.options?.forEach(addFlags);
    spec.subcommands?.forEach(walk);
  };
  COMMANDS.forEach(walk);
  [...GLOBAL_OPTIONS, HELP_FLAGS, VERSION_FLAGS].forEach(addFlags);
  const commands = COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]).filter((name) => !name.startsWith('_'));
  return { commands, flags: [...flags] };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text of every string literal and template part in a TypeScript source (comments left out). */
function stringsOf(text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true));
  return found;
}

/** "file: string" for each string that speaks the CLI's language. */
function cliWordingIn(files: Map<string, string>): string[] {
  const { commands, flags } = cliWords();
  const command = new RegExp(`\\bcarrental (${commands.map(escape).join('|')})(?![\\w-])`);
  const flag = new RegExp(`(?<![\\w-])(${flags.map(escape).join('|')})(?![\\w-])`);
  return [...files].flatMap(([file, text]) => stringsOf(text).filter((s) => command.test(s) || flag.test(s)).map((s) => `${file}: ${s}`));
}

describe('the transport and the booking core speak no CLI', () => {
  it.each(['api', 'booking'])('no string under src/%s names a carrental command or flag', (dir) => {
    const files = new Map(sourceFiles(join(SRC, dir)).map((file) => [posix(relative(ROOT, file)), readFileSync(file, 'utf8')]));
    expect(cliWordingIn(files)).toEqual([]);
  });

  it('catches a command, a flag, in quotes or a template, and leaves comments and other flags alone', () => {
    const probe = (text: string) => cliWordingIn(new Map([['src/api/probe.ts', text]]));
    expect(probe("const a = 'run `carrental doctor`';")).toHaveLength(1);
    expect(probe('const b = `rerun with --debug to see ${x}`;')).toHaveLength(1);
    expect(probe("const c = 'try `carrental --sandbox ...`';")).toHaveLength(1);
    expect(probe('const d = `${x} (or --base-url)`;')).toHaveLength(1);
    expect(probe("// run `carrental doctor` with --debug\nconst e = 1;")).toEqual([]);
    expect(probe("setFlagsFromString('--liftoff-only'); const f = 'carrental follows a redirect';")).toEqual([]);
  });
});
