// The MCP SDK is loaded only when `mcp` runs: no module reachable from the command tree or
// from any other command's entry holds a line of it. Read from the build itself (esbuild
// keeps a `// node_modules/...` comment per bundled module), following every import.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../helpers/bin.js';

const DIST = join(ROOT, 'dist');
const SDK = /^\/\/ node_modules\/@modelcontextprotocol\//m;

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
  expect(SDK.test(readFileSync(join(DIST, 'commands', 'mcp.js'), 'utf8'))).toBe(true);
  const others = readdirSync(join(DIST, 'commands')).filter((f) => f.endsWith('.js') && f !== 'mcp.js');
  expect(others.length).toBeGreaterThan(20);
  // the walk follows the shared chunks (a check of the check)
  expect([...reachable(join(DIST, 'commands', 'cars.js'))].some((f) => f.includes(`${join('dist', 'chunks')}`))).toBe(true);
  for (const entry of others) {
    for (const file of reachable(join(DIST, 'commands', entry))) expect(SDK.test(readFileSync(file, 'utf8')), `${entry} reaches ${file}`).toBe(false);
  }
});

it('the command tree (--help, --version, usage errors) holds none of it', () => {
  const tree = readFileSync(join(DIST, 'cli', 'start.cjs'), 'utf8');
  expect(tree).not.toMatch(/modelcontextprotocol/);
  expect(tree).toContain('../commands/mcp.js');
});
