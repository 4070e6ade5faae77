// What `npm pack` ships: the bundle, the launcher, the completion scripts, README, the
// manual (docs/, which `carrental help <topic>` reads), LICENSE and the licences of what the
// bundle holds (THIRD-PARTY-NOTICES), nothing else. Every runtime library is bundled into
// dist/ by esbuild, which is why they are all devDependencies and the package installs with
// no dependencies at all. What `npm pack` of the build holds is pack.e2e.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/bin.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

it('has no runtime dependencies to install: everything is in the bundle', () => {
  expect(pkg.dependencies ?? {}).toEqual({});
  expect(pkg.bin).toEqual({ carrental: 'bin/carrental.js' });
  expect(pkg.files).toEqual(['bin/', 'dist/', 'completions/', 'docs/', 'README.md', 'LICENSE', 'THIRD-PARTY-NOTICES']);
  expect((pkg.engines as Record<string, string>).node).toBe('^20.19.0 || >=22.13.0');
});
