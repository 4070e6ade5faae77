// What `npm pack` ships, from the build: the bundle, the launcher, the completion scripts,
// README, the manual, LICENSE and THIRD-PARTY-NOTICES, nothing else (pack.test.ts: the
// package.json fields that say so).
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ROOT, assertBuilt } from '../helpers/bin.js';

interface PackResult {
  files: Array<{ path: string; mode: number }>;
  bundled: string[];
}

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
