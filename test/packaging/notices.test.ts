// THIRD-PARTY-NOTICES, written by the build (scripts/notices.mjs): every package esbuild
// bundled into dist/ is listed with its version and the full text of its own licence file.
// The file the build wrote is checked by notices.e2e.test.ts; here, how it is made.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the build, without types
import { bundledPackages, noticesText, packageDir } from '../../scripts/notices.mjs';

describe('THIRD-PARTY-NOTICES', () => {
  it('fails the build for a bundled package that carries no licence file', () => {
    const root = mkdtempSync(join(tmpdir(), 'carrental-notices-'));
    try {
      for (const [name, files] of [
        ['has-one', { 'LICENSE-MIT.txt': 'MIT text' }],
        ['has-none', {}],
      ] as const) {
        mkdirSync(join(root, 'node_modules', name), { recursive: true });
        writeFileSync(join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', license: 'MIT' }));
        for (const [f, text] of Object.entries(files)) writeFileSync(join(root, 'node_modules', name, f), text);
      }
      const one = { inputs: { 'node_modules/has-one/index.js': {} } };
      expect(noticesText(bundledPackages(one, root))).toContain('has-one 1.0.0 (MIT)\n' + '-'.repeat(78) + '\nMIT text');
      const both = { inputs: { 'node_modules/has-one/index.js': {}, 'node_modules/has-none/index.js': {} } };
      expect(() => bundledPackages(both, root)).toThrow('has-none@1.0.0 (node_modules/has-none) is bundled but has no licence file');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds the package of a scoped or nested module', () => {
    expect(packageDir('node_modules/@inquirer/core/dist/index.js')).toBe('node_modules/@inquirer/core');
    expect(packageDir('node_modules/conf/node_modules/env-paths/index.js')).toBe('node_modules/conf/node_modules/env-paths');
    expect(packageDir('src/cli/main.ts')).toBeUndefined();
  });
});
