import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import { GLOBAL_OPTIONS, HELP_FLAGS, VERSION_FLAGS } from '../../src/cmdkit/global-options.js';

// The import layers of issues 26 and 37, checked statically over src/: every import, export-from and
// dynamic import() (type-only imports included: a type that reaches up a layer is a dependency
// all the same), resolved to the src file it names.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

/**
 * A rule: files under `from` may import only what is under `may` (a layer below, named),
 * or, for the layers at the top, anything but what is under `notTo`.
 */
interface Rule {
  name: string;
  from: string;
  may?: string[];
  notTo?: string[];
  /** "importer -> imported" pairs the design allows (each says why). */
  except?: string[];
}

/** Every top-level folder and file of src/ but the given ones, folders first. */
function everythingBut(...kept: string[]): string[] {
  return readdirSync(SRC, { withFileTypes: true })
    .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name))
    .map((entry) => `src/${entry.name}`)
    .filter((path) => !kept.includes(path));
}

// The layers of issue 37, top to bottom (docs/development.md draws them). Each folder names
// what it may import besides itself; anything else of src/ is refused, so a new folder is
// refused by every layer below the commands until a rule lets it in (and it needs a rule of
// its own: see below).
const ROOT_MODULES = ['src/text', 'src/errors.ts'];
const RULES: Rule[] = [
  // the entry and the command tree: main.ts, program.ts and the loaders (src/cli/commands.ts)
  { name: 'the command tree may import anything below it', from: 'src/cli', notTo: [] },
  // `carrental mcp` is a command like any other: its module is the one door from the commands
  // into mcp, and it opens on mcp's entry only (src/mcp never imports src/commands).
  {
    name: 'commands import the kit and what is below it, never the tree, and mcp only through mcp.ts',
    from: 'src/commands',
    notTo: ['src/cli', 'src/mcp'],
    except: ['src/commands/mcp.ts -> src/mcp/server.ts'],
  },
  { name: 'the MCP server imports nothing of the CLI (tree, kit, commands)', from: 'src/mcp', may: ['src/session', 'src/booking', 'src/input', 'src/render', 'src/api', 'src/store', ...ROOT_MODULES] },
  {
    name: 'the command kit imports no front end',
    from: 'src/cmdkit',
    may: ['src/session', 'src/booking', 'src/contract', 'src/sandbox', 'src/input', 'src/render', 'src/api', 'src/store', ...ROOT_MODULES],
  },
  { name: 'the session both front ends share imports neither front end nor the kit', from: 'src/session', may: ['src/sandbox', 'src/input', 'src/render', 'src/api', 'src/store', ...ROOT_MODULES] },
  { name: 'the booking core imports no front end, kit or session', from: 'src/booking', may: ['src/input', 'src/render', 'src/api', 'src/store', ...ROOT_MODULES] },
  { name: 'the contract check imports only the transport', from: 'src/contract', may: ['src/api', ...ROOT_MODULES] },
  { name: 'the sandbox imports no client code above the transport', from: 'src/sandbox', may: ['src/input', 'src/render', 'src/api', 'src/store', ...ROOT_MODULES] },
  { name: 'renderers import no front end, core or store', from: 'src/render', may: ['src/input', 'src/api', ...ROOT_MODULES] },
  { name: 'the input parsers import no renderer, core or front end', from: 'src/input', may: ['src/api', 'src/store', ...ROOT_MODULES] },
  { name: 'the store imports only the transport', from: 'src/store', may: ['src/api', ...ROOT_MODULES] },
  { name: 'the transport imports no renderer, store or front end', from: 'src/api', may: ROOT_MODULES },
  // src/text is the bottom layer (terminal sanitising, secret scrubbing, JSON text): everyone
  // may import it, and it imports nothing else of src/.
  { name: 'the text helpers import nothing above them', from: 'src/text', may: [] },
  // src/errors.ts is the root: everything may import it, it imports no other module of src/.
  { name: 'the root module imports nothing above it', from: 'src/errors.ts', may: ['src/text'] },
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

const refuses = (rule: Rule, imported: string) =>
  rule.may ? !rule.may.some((layer) => under(imported, layer)) : (rule.notTo ?? []).some((layer) => under(imported, layer));

/** What a rule refuses among today's folders of src/, and a folder added tomorrow for a `may` rule. */
const refusedBy = (rule: Rule) => (rule.may ? [...everythingBut(rule.from, ...rule.may), 'src/newfolder'] : (rule.notTo ?? []));

/** "importer -> imported" for every import in `graph` (importer -> the src files it imports) that breaks a rule. */
function violationsIn(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [importer, imports] of graph) {
    for (const imported of imports) {
      for (const rule of RULES) {
        const edge = `${importer} -> ${imported}`;
        if (imported !== importer && under(importer, rule.from) && !under(imported, rule.from) && refuses(rule, imported) && !rule.except?.includes(edge)) {
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

  it.each(RULES.filter((rule) => refusedBy(rule).length).map((rule) => [rule.name, rule] as const))('the rule "%s" catches an import that breaks it', (_name, rule) => {
    const importer = rule.from.endsWith('.ts') ? rule.from : `${rule.from}/probe.ts`;
    for (const layer of refusedBy(rule)) {
      const imported = layer.endsWith('.ts') ? layer : `${layer}/probe.ts`;
      expect(violationsIn(new Map([[importer, [imported]]]))).toEqual([`${importer} -> ${imported}`]);
    }
    // and the same file importing inside its own layer, or a layer it may import, is fine
    expect(violationsIn(new Map([[importer, [importer === rule.from ? importer : `${rule.from}/other.ts`]]]))).toEqual([]);
    for (const layer of rule.may ?? []) expect(violationsIn(new Map([[importer, [layer.endsWith('.ts') ? layer : `${layer}/probe.ts`]]]))).toEqual([]);
  });

  it('every folder and file at the top of src/ has a rule, and every layer below the commands names what it may import', () => {
    expect(RULES.map((rule) => rule.from).sort()).toEqual(everythingBut().sort());
    expect(RULES.filter((rule) => !rule.may).map((rule) => rule.from)).toEqual(['src/cli', 'src/commands']);
    // a folder added tomorrow is outside every `may` list: refused until a rule lets it in
    expect(violationsIn(new Map([['src/mcp/probe.ts', ['src/newfolder/x.ts']]]))).toEqual(['src/mcp/probe.ts -> src/newfolder/x.ts']);
  });

  it('nothing but the launcher imports the command tree (src/cli)', () => {
    const importers = [...srcGraph()].flatMap(([importer, imports]) => (!under(importer, 'src/cli') && imports.some((i) => under(i, 'src/cli')) ? [importer] : []));
    expect(importers).toEqual([]);
    expect(RULES.filter((rule) => rule.from !== 'src/cli' && !refusedBy(rule).includes('src/cli')).map((rule) => rule.name)).toEqual([]);
    expect(violationsIn(new Map([['src/cmdkit/probe.ts', ['src/cli/main.ts']]]))).toEqual(['src/cmdkit/probe.ts -> src/cli/main.ts']);
  });
});

/** The top-level folder (or file) of src/ a path is in. */
const layerOf = (path: string) => path.split('/').slice(0, 2).join('/');

/** The circles in the graph of imports between top-level folders (a circle inside one folder is not one), each as "a -> b -> a". */
function folderCircles(graph: Map<string, string[]>): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [importer, imports] of graph) {
    for (const imported of imports) {
      const [from, to] = [layerOf(importer), layerOf(imported)];
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const circles = new Set<string>();
  const walk = (node: string, path: string[]) => {
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      const at = path.indexOf(next);
      if (at >= 0) {
        // one name per circle: start it at its smallest folder
        const circle = path.slice(at);
        const first = circle.indexOf([...circle].sort()[0]);
        const turned = [...circle.slice(first), ...circle.slice(0, first)];
        circles.add([...turned, turned[0]].join(' -> '));
      } else walk(next, [...path, next]);
    }
  };
  for (const start of [...edges.keys()].sort()) walk(start, [start]);
  return [...circles].sort();
}

describe('the folders of src/, drawn with their imports', () => {
  it('show no circle', () => {
    expect(folderCircles(srcGraph())).toEqual([]);
  });

  it('a circle between two folders, or through three, is found; one inside a folder is not', () => {
    expect(folderCircles(new Map([['src/a/x.ts', ['src/b/y.ts']], ['src/b/y.ts', ['src/a/z.ts']]]))).toEqual(['src/a -> src/b -> src/a']);
    expect(
      folderCircles(
        new Map([
          ['src/c/x.ts', ['src/a/y.ts']],
          ['src/a/y.ts', ['src/b/z.ts']],
          ['src/b/z.ts', ['src/c/w.ts', 'src/errors.ts']],
        ]),
      ),
    ).toEqual(['src/a -> src/b -> src/c -> src/a']);
    expect(folderCircles(new Map([['src/a/x.ts', ['src/a/y.ts']], ['src/a/y.ts', ['src/a/x.ts', 'src/b/z.ts']]]))).toEqual([]);
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
