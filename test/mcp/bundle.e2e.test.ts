// The MCP SDK is loaded only when `mcp` runs: no module reachable from the command tree or
// from any other command's entry holds a line of it. Which modules a dist file holds comes
// from the build's metafile (the output is minified); the imports are followed in the files.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../helpers/bin.js';

const DIST = join(ROOT, 'dist');
/** Whether a dist file bundles any module of the MCP SDK, from esbuild's metafile of the build. */
function holdsSdk(file: string): boolean {
  const meta = JSON.parse(readFileSync(join(ROOT, '.tmp', 'metafile.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  const key = relative(ROOT, file).split(sep).join('/');
  return Object.keys(meta.outputs[key]?.inputs ?? {}).some((m) => m.includes('node_modules/@modelcontextprotocol/'));
}

/** The file and every file it imports statically: what loading it loads (an `import()` runs only when called). */
function reachable(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || !existsSync(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, spec] of text.matchAll(/(?:\bfrom\s*|^import\s*)["'](\.{1,2}\/[^"']+)["']/gm)) reachable(resolve(dirname(file), spec), seen);
  return seen;
}

beforeAll(() => assertBuilt());

it('the SDK is in the mcp entry only', () => {
  expect(holdsSdk(join(DIST, 'commands', 'mcp.js'))).toBe(true);
  const others = readdirSync(join(DIST, 'commands')).filter((f) => f.endsWith('.js') && f !== 'mcp.js');
  expect(others.length).toBeGreaterThan(20);
  // the walk follows the shared chunks (a check of the check)
  expect([...reachable(join(DIST, 'commands', 'cars.js'))].some((f) => f.includes(`${join('dist', 'chunks')}`))).toBe(true);
  for (const entry of others) {
    for (const file of reachable(join(DIST, 'commands', entry))) expect(holdsSdk(file), `${entry} reaches ${file}`).toBe(false);
  }
});

it('the command tree (--help, --version, usage errors) holds none of it', () => {
  // dist/cli.js and the tree's chunk (scripts/build.mjs)
  const tree = [...reachable(join(DIST, 'cli.js'))];
  expect(tree).toContain(join(DIST, 'cli.js'));
  for (const file of tree) expect(holdsSdk(file), file).toBe(false);
  // the tree names the mcp entry, to import it only when `mcp` runs
  expect(tree.some((file) => /"\.\.?\/commands\/mcp\.js"/.test(readFileSync(file, 'utf8')))).toBe(true);
});
