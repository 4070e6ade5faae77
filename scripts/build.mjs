// One esbuild build of the CLI as ES modules, with code splitting:
// - dist/cli.js: the command tree and src/cli/main.ts (everything --help needs, no
//   commander), one file with no static import (treeChunkAsEntry below);
// - dist/commands/<name>.js: one entry per command module, imported by the tree
//   (`import('./commands/cars.js')`) only when that command runs;
// - dist/chunks/: code the entries share (one copy of each module, so `instanceof` holds
//   between the tree and the commands); what the API commands share is one chunk
//   (scripts/command-core.ts); commander is its own chunk, loaded for a command or a
//   usage error.
// Then THIRD-PARTY-NOTICES, the licences of every package the build bundled
// (scripts/notices.mjs), from esbuild's metafile. Nothing here depends on the Node that
// runs the build: the output is plain JavaScript for every Node the engines range allows,
// the same from every build. docs/development.md ("What start-up costs") says why each
// step is here and what it saves.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { isBuiltin } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeNotices } from './notices.mjs';

/** The modules src/cli/commands.ts loads lazily: one entry each, at the path the tree imports. */
const commandEntries = Object.fromEntries(
  [...readFileSync(new URL('../src/cli/commands.ts', import.meta.url), 'utf8').matchAll(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g)].map(([, name]) => [
    `commands/${name}`,
    `src/commands/${name}.ts`,
  ]),
);

/** commander's eager require of node:child_process becomes a proxy that loads it on first use. */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: fileURLToPath(new URL('./lazy-child-process.cjs', import.meta.url)) }
        : undefined,
    );
  },
};

/**
 * undici's HTTP/2 client (lib/dispatcher/client-h2.js) loads node:http2, and with it tls
 * and fs/promises: ~17 ms of CPU of every command that sends a request (Node 22). carrental
 * never enables HTTP/2 (undici's allowH2 stays off), so the build puts a stub in its place
 * that throws if it is ever called. test/unit/undici-pin.test.ts pins the undici version
 * this was checked on.
 */
const noHttp2Client = {
  name: 'no-http2-client',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)
        ? { path: fileURLToPath(new URL('./undici-no-h2.cjs', import.meta.url)) }
        : undefined,
    );
  },
};

/**
 * Every `import ... from 'node:fs'` (and any other builtin) in the bundle becomes a read of
 * `process.getBuiltinModule('node:fs')`. Node's ES-module view of a builtin reads every one
 * of its exports as it loads, getters included: importing node:process creates
 * process.stdin, importing node:fs loads all of node's streams for fs.ReadStream (and on
 * Node 24 warns that fs.F_OK is deprecated), and the view is built export by export. In
 * `cars --json` (chalk, the config store, the client) that was ~1 ms of CPU on Node 22 and
 * ~4 ms on Node 20, for objects nothing used. The module put in its place is CommonJS, so
 * esbuild's own interop reads a named import where it is used and gives a namespace import
 * getters: nothing is read that the code does not read. One such module per importing
 * file keeps it in that file's chunk. test/e2e/startup.e2e.test.ts checks that no dist
 * file imports a builtin.
 */
const builtinsByGetter = {
  name: 'builtins-by-getter',
  setup(b) {
    // named by a digest of the importer's path (not the path: THIRD-PARTY-NOTICES reads
    // package names from the paths of the metafile), the same in every build
    const importerId = (importer) => createHash('sha256').update(relative(process.cwd(), importer)).digest('hex').slice(0, 12);
    b.onResolve({ filter: /^[a-z_/:]+$/ }, (args) =>
      args.kind === 'import-statement' && isBuiltin(args.path)
        ? { path: `${args.path.replace(/^node:/, '')}?${importerId(args.importer)}`, namespace: 'builtin' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(`node:${path.slice(0, path.indexOf('?'))}`)});`,
      loader: 'js',
    }));
  },
};

/**
 * The modules of the commands that talk to the API (all but `help` and `completion`)
 * import scripts/command-core.ts first: the code they share then lands in one chunk
 * instead of a chunk for each subset of commands that happens to share a module.
 */
const commandCore = {
  name: 'command-core',
  setup(b) {
    // and the sandbox's lazily loaded parts: they run only inside a command that has the
    // core already, and unless they import it too, esbuild splits out of the core every
    // module they share with it (dates and money: one more file for `cars --json`)
    const sandboxParts = ['index', 'admin', 'pages', 'openapi'].map((name) => `src/sandbox/${name}.ts`);
    const importers = new Set(
      [
        ...Object.entries(commandEntries)
          .filter(([name]) => !/^commands\/(help|completion)$/.test(name))
          .map(([, file]) => file),
        ...sandboxParts,
      ].map((file) => fileURLToPath(new URL(`../${file}`, import.meta.url))),
    );
    b.onLoad({ filter: /[\\/]src[\\/](commands|sandbox)[\\/][\w-]+\.ts$/ }, (args) =>
      importers.has(args.path) ? { contents: `import '../../scripts/command-core.ts';\n${readFileSync(args.path, 'utf8')}`, loader: 'ts' } : undefined,
    );
  },
};

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const result = await build({
  entryPoints: { cli: 'src/cli/main.ts', ...commandEntries },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: false,
  minify: true,
  metafile: true,
  chunkNames: 'chunks/[name]-[hash]',
  // the licences go to THIRD-PARTY-NOTICES in full instead
  legalComments: 'none',
  // CJS dependencies call require() for node builtins (cli-table3, proper-lockfile, ...),
  // which an ES module has not: the banner gives every file one, made on its first call
  // (most files never call it) by process.getBuiltinModule('node:module') (Node 20.16+)
  // rather than an import (the ES-module view of a builtin costs start-up time).
  // __filename and __dirname become import.meta's (Node 20.11+), read where they are used.
  define: { __CARRENTAL_VERSION__: JSON.stringify(pkg.version), __filename: 'import.meta.filename', __dirname: 'import.meta.dirname' },
  banner: {
    js: "const require = (id) => (require.made ??= process.getBuiltinModule('node:module').createRequire(import.meta.url))(id);",
  },
  inject: ['scripts/tree-core.ts'],
  plugins: [lazyChildProcess, builtinsByGetter, commandCore, noHttp2Client],
  logLevel: 'warning',
});

/**
 * The chunk that holds the command tree (and main.ts, which scripts/tree-core.ts puts
 * there) becomes dist/cli.js itself, in place of the entry esbuild writes, which only
 * re-exports it. --help then reads one file with no static import: on Node 20, a second
 * file costs the start of node's ES-module resolver as well, ~1.5 ms of a 22 ms `node -e 0`.
 * The entry's init calls and export names are moved onto the chunk, import paths to and
 * from it follow it, and the metafile says so (test/e2e/startup.e2e.test.ts reads it).
 * Anything unexpected in esbuild's output stops the build.
 */
function treeChunkAsEntry(metafile) {
  const entryFile = 'dist/cli.js';
  const entry = readFileSync(entryFile, 'utf8');
  const m = /^(const require = [^\n]*\n)import\s*\{([^}]*)\}\s*from\s*"\.\/chunks\/(chunk-[A-Z0-9]+\.js)";\s*((?:\w+\(\);\s*)*)export\s*\{([^}]*)\};\s*$/.exec(entry);
  if (!m) throw new Error(`${entryFile} is not a re-export of one chunk: the build's tree-core injection changed`);
  const [, banner, imported, chunkName, inits, exported] = m;
  const chunkFile = `dist/chunks/${chunkName}`;
  const chunk = readFileSync(chunkFile, 'utf8');
  const pairs = (list) => list.split(',').map((p) => p.trim()).filter(Boolean).map((p) => p.split(/\s+as\s+/));
  // in the entry: import {chunkExport as entryLocal}, export {entryLocal as publicName}
  const chunkExportOf = new Map(pairs(imported).map(([exp, local]) => [local ?? exp, exp]));
  const tail = /export\s*\{([^}]*)\};\s*$/.exec(chunk);
  if (!tail || !chunk.startsWith(banner)) throw new Error(`${chunkFile} does not end in one export list`);
  const chunkLocalOf = new Map(pairs(tail[1]).map(([local, exp]) => [exp ?? local, local]));
  const local = (entryLocal) => {
    const name = chunkLocalOf.get(chunkExportOf.get(entryLocal));
    if (!name) throw new Error(`${entryLocal} of ${entryFile} is not exported by ${chunkFile}`);
    return name;
  };
  const calls = inits.split('();').map((f) => f.trim()).filter(Boolean).map((f) => `${local(f)}();`).join('');
  // the public names (main, runCli, ...) the chunk does not export already
  const exports = pairs(exported)
    .filter(([l, name = l]) => {
      if (!chunkLocalOf.has(name)) return true;
      if (chunkLocalOf.get(name) !== local(l)) throw new Error(`${chunkFile} exports another ${name}`);
      return false;
    })
    .map(([l, name = l]) => `${local(l)} as ${name}`)
    .join(',');
  // the chunk's own relative imports, from dist/chunks/ to dist/
  const moved = chunk.replace(/(from\s*|import\()"(\.\.?\/[^"]+)"/g, (_, kw, spec) => `${kw}"${spec.startsWith('../') ? `./${spec.slice(3)}` : `./chunks/${spec.slice(2)}`}"`);
  writeFileSync(entryFile, `${moved}${calls}${exports ? `export{${exports}};` : ''}\n`);
  rmSync(chunkFile);
  for (const file of Object.keys(metafile.outputs)) {
    if (file === entryFile || file === chunkFile || !file.endsWith('.js')) continue;
    const text = readFileSync(file, 'utf8');
    // every other output is one directory down: dist/chunks/ or dist/commands/
    const ref = file.startsWith('dist/chunks/') ? `"./${chunkName}"` : `"../chunks/${chunkName}"`;
    if (text.includes(ref)) writeFileSync(file, text.replaceAll(ref, '"../cli.js"'));
  }
  const outputs = metafile.outputs;
  outputs[entryFile] = { ...outputs[chunkFile], entryPoint: outputs[entryFile].entryPoint, exports: outputs[entryFile].exports };
  delete outputs[chunkFile];
  for (const o of Object.values(outputs)) for (const i of o.imports) if (i.path === chunkFile) i.path = entryFile;
}

treeChunkAsEntry(result.metafile);

// Which modules each output holds, for the start-up test (.tmp/ is not in the package).
mkdirSync('.tmp', { recursive: true });
writeFileSync('.tmp/metafile.json', JSON.stringify(result.metafile));
writeNotices(result.metafile, 'THIRD-PARTY-NOTICES');
