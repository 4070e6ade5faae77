// What `npm pack` ships: the bundle, the launcher, the completion scripts, README, the
// manual (docs/, which `carrental help <topic>` reads), LICENSE and the licences of what the
// bundle holds (THIRD-PARTY-NOTICES), nothing else. Every runtime library is bundled into
// dist/ by esbuild, which is why they are all devDependencies and the package installs with
// no dependencies at all.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, assertBuilt } from '../helpers/bin.js';

interface PackResult {
  files: Array<{ path: string; mode: number }>;
  bundled: string[];
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

it('the package holds dist/, bin/, completions/, docs/, README.md, LICENSE and THIRD-PARTY-NOTICES only', () => {
  assertBuilt();
  // --ignore-scripts: the suite runs after `npm run build`; prepack would build again
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [result] = JSON.parse(out) as PackResult[];
  const paths = result.files.map((f) => f.path).sort();
  for (const path of paths) expect(path).toMatch(/^(dist\/.+\.js|bin\/(carrental\.js|package\.json)|completions\/(carrental\.bash|_carrental|carrental\.fish)|docs\/[\w-]+\.md|README\.md|LICENSE|THIRD-PARTY-NOTICES|package\.json)$/);
  expect(paths).toEqual(
    expect.arrayContaining(['LICENSE', 'README.md', 'bin/carrental.js', 'completions/_carrental', 'completions/carrental.bash', 'completions/carrental.fish', 'dist/cli.js', 'docs/scripting.md', 'package.json', 'THIRD-PARTY-NOTICES']),
  );
  expect(paths.some((p) => p.startsWith('dist/chunks/'))).toBe(true);
  expect(result.files.find((f) => f.path === 'bin/carrental.js')!.mode & 0o111).not.toBe(0);
  expect(result.bundled).toEqual([]);
});

it('has no runtime dependencies to install: everything is in the bundle', () => {
  expect(pkg.dependencies ?? {}).toEqual({});
  expect(pkg.bin).toEqual({ carrental: 'bin/carrental.js' });
  expect(pkg.files).toEqual(['bin/', 'dist/', 'completions/', 'docs/', 'README.md', 'LICENSE', 'THIRD-PARTY-NOTICES']);
  expect((pkg.engines as Record<string, string>).node).toBe('^20.19.0 || >=22.13.0');
});
