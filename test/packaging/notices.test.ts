// THIRD-PARTY-NOTICES, written by the build (scripts/notices.mjs): every package esbuild
// bundled into dist/ is listed with its version and the full text of its own licence file.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, assertBuilt } from '../helpers/bin.js';
// @ts-expect-error: a plain ES module of the build, without types
import { bundledPackages, noticesText, packageDir } from '../../scripts/notices.mjs';

interface Metafile {
  inputs: Record<string, unknown>;
}

describe('THIRD-PARTY-NOTICES', () => {
  it('names every package the build bundled, with its licence text', () => {
    assertBuilt();
    const meta = JSON.parse(readFileSync(join(ROOT, '.tmp', 'metafile.json'), 'utf8')) as Metafile;
    const notices = readFileSync(join(ROOT, 'THIRD-PARTY-NOTICES'), 'utf8');
    const dirs = new Set(Object.keys(meta.inputs).map(packageDir).filter(Boolean) as string[]);
    // the big ones, so that a build that bundled nothing cannot pass
    for (const name of ['commander', 'zod', 'chalk', 'cli-table3', 'undici']) expect([...dirs].some((d) => d.endsWith(`node_modules/${name}`))).toBe(true);
    for (const dir of dirs) {
      const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string };
      expect(notices).toContain(`\n${pkg.name} ${pkg.version} (`);
    }
    // a licence text, verbatim: commander's
    const commander = [...dirs].find((d) => d.endsWith('node_modules/commander'))!;
    expect(notices).toContain(readFileSync(join(ROOT, commander, 'LICENSE'), 'utf8').trim());
    // nothing that was not bundled (a devDependency used only by the tests)
    expect(notices).not.toMatch(/\nvitest /);
  });

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
