// Two builds (docs/development.md says what they save):
// - dist/cli/start.cjs: the command tree, commander and the error reporting, as CommonJS.
//   bin/carrental.js requires it, so --help and usage errors never start node's ESM loader.
// - dist/commands/*.js and dist/chunks/: every command module as an ES-module entry, with
//   code splitting, imported by start.cjs (`import('../commands/cars.js')`, the same
//   relative path as in src/cli/commands.ts) only when that command runs. dist/cli.js is
//   the same tree as an ES module, for programmatic use.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The modules src/cli/commands.ts loads lazily: one entry each, at a path start.cjs can import. */
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

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli/main.ts', ...commandEntries },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: false,
  minify: false,
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  // CJS dependencies call require() for node builtins (cli-table3, proper-lockfile, ...) and
  // read __filename (write-file-atomic names its temp files with it), which ESM has not.
  // The free names are renamed to banner constants instead of being declared as they are:
  // a bundled ESM module may declare its own top-level __dirname (`open` does), and two
  // declarations in one chunk are a SyntaxError when that chunk loads.
  define: { __CARRENTAL_VERSION__: JSON.stringify(pkg.version), __filename: '__carrental_filename', __dirname: '__carrental_dirname' },
  banner: {
    js: [
      "import { createRequire as __carrentalCreateRequire } from 'node:module';",
      "import { fileURLToPath as __carrentalFileURLToPath } from 'node:url';",
      'const require = __carrentalCreateRequire(import.meta.url);',
      'const __carrental_filename = __carrentalFileURLToPath(import.meta.url);',
      "const __carrental_dirname = __carrentalFileURLToPath(new URL('.', import.meta.url));",
    ].join(' '),
  },
  plugins: [lazyChildProcess],
  logLevel: 'warning',
});

const tree = await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli/start.cjs',
  write: false,
  // read on every start: smaller is quicker to load (error stack traces name no functions)
  minify: true,
  // which modules the tree holds, for the start-up test (not shipped: dist/ is)
  metafile: true,
  // under dist/cli/load.cjs the tree's import() goes through the loader (see there)
  banner: { js: "const __carrentalImportCommand = (p) => (typeof __carrentalImport === 'function' ? __carrentalImport(p) : import(p));" },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  legalComments: 'none',
  define: { __CARRENTAL_VERSION__: JSON.stringify(pkg.version) },
  plugins: [
    lazyChildProcess,
    {
      // the ES-module entries of the first build, loaded when a command runs
      name: 'commands-external',
      setup(b) {
        b.onResolve({ filter: /^\.\.\/commands\// }, (args) => ({ path: args.path, external: true }));
      },
    },
  ],
  logLevel: 'warning',
});
mkdirSync('dist/cli', { recursive: true });
for (const file of tree.outputFiles) writeFileSync(file.path, file.text.replace(/import\("(\.\.\/commands\/[\w-]+\.js)"\)/g, '__carrentalImportCommand("$1")'));
mkdirSync('node_modules/.cache/carrental', { recursive: true });
writeFileSync('node_modules/.cache/carrental/start-inputs.json', JSON.stringify({ node: process.version, inputs: Object.keys(tree.metafile.inputs) }, null, 1));
copyFileSync('src/cli/load-tree.cjs', 'dist/cli/load.cjs');
// the V8 code cache of the tree, made by this node: see src/cli/load-tree.cjs. Without one
// the CLI works the same, only its start-up is ~3 ms slower: a warning, not a failure.
try {
  execFileSync(process.execPath, ['scripts/code-cache.cjs'], { stdio: ['ignore', 'ignore', 'pipe'] });
} catch (err) {
  console.warn(`warning: no code cache for dist/cli/start.cjs: ${err.stderr?.toString().trim() || err.message}`);
}
