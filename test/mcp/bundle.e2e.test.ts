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

/** The modules (esbuild's metafile inputs) a dist file bundles. */
function inputsOf(file: string): string[] {
  const meta = JSON.parse(readFileSync(join(ROOT, '.tmp', 'metafile.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  return Object.keys(meta.outputs[relative(ROOT, file).split(sep).join('/')]?.inputs ?? {});
}

it('a stdio server loads no HTTP server code: not http.ts, not the SDK root that holds its Streamable HTTP transport, not node:http', () => {
  const isHttp = (m: string) => m === 'src/mcp/http.ts' || /node_modules\/@modelcontextprotocol\/server\/dist\/index\.mjs$/.test(m) || m.includes('hono');
  const stdio = [...reachable(join(DIST, 'commands', 'mcp.js'))];
  // (a check of the check: the stdio server's own modules are there)
  expect(stdio.flatMap(inputsOf)).toContain('src/mcp/server.ts');
  for (const file of stdio) {
    expect(inputsOf(file).filter(isHttp), file).toEqual([]);
    // (a static import; the API client's own lazy import("node:http") is not the server's)
    expect(readFileSync(file, 'utf8'), file).not.toMatch(/from\s*["']node:http["']/);
  }
  // the HTTP server is a chunk of its own, imported when --http asks for it
  const http = readdirSync(join(DIST, 'chunks')).map((f) => join(DIST, 'chunks', f)).filter((f) => inputsOf(f).includes('src/mcp/http.ts'));
  expect(http).toHaveLength(1);
  expect(inputsOf(http[0]).some(isHttp)).toBe(true);
  expect(readFileSync(join(DIST, 'commands', 'mcp.js'), 'utf8')).toContain(`import("../chunks/${http[0].split(sep).pop()}")`);
});
