// Bundles src/ into dist/ with code splitting, so `carrental --help` loads only the
// command tree and each command's dependencies load when that command runs.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli/main.ts' },
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
  logLevel: 'warning',
});
