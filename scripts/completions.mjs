// Regenerates completions/ (checked in, shipped in the package) from the command tree:
// the same text `carrental completion <shell>` prints. Bundles only the generator, so it
// works before the rest of the CLI builds; a test fails when the files are stale.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';

const FILES = { bash: 'carrental.bash', zsh: '_carrental', fish: 'carrental.fish' };

const result = await build({
  entryPoints: ['src/cmdkit/completion-gen.ts'],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  logLevel: 'warning',
  // the command tree's lazy `import('../commands/x.js')` calls never run here
  plugins: [{ name: 'lazy-commands', setup: (b) => b.onResolve({ filter: /^\.\.\/commands\// }, (a) => ({ path: a.path, external: true })) }],
});
const url = `data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString('base64')}`;
const { generateCompletion } = await import(url);

mkdirSync(new URL('../completions/', import.meta.url), { recursive: true });
for (const [shell, file] of Object.entries(FILES)) {
  writeFileSync(new URL(`../completions/${file}`, import.meta.url), generateCompletion(shell));
  console.log(`completions/${file}`);
}
