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
  define: { __CARRENTAL_VERSION__: JSON.stringify(pkg.version) },
  // CJS dependencies (cli-table3, proper-lockfile, ...) call require() for node builtins,
  // and write-file-atomic names its temp files with __filename.
  banner: {
    js: [
      "import { createRequire as __carrentalCreateRequire } from 'node:module';",
      "import { fileURLToPath as __carrentalFileURLToPath } from 'node:url';",
      'const require = __carrentalCreateRequire(import.meta.url);',
      'const __filename = __carrentalFileURLToPath(import.meta.url);',
      "const __dirname = __carrentalFileURLToPath(new URL('.', import.meta.url));",
    ].join(' '),
  },
  logLevel: 'warning',
});
