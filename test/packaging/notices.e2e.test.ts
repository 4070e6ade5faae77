// THIRD-PARTY-NOTICES as the build wrote it: every package esbuild bundled into dist/ (the
// build's metafile) is listed with its version and the full text of its own licence file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, assertBuilt } from '../helpers/bin.js';
// @ts-expect-error: a plain ES module of the build, without types
import { packageDir } from '../../scripts/notices.mjs';

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
    for (const name of ['commander', 'zod', 'cli-table3', 'undici']) expect([...dirs].some((d) => d.endsWith(`node_modules/${name}`))).toBe(true);
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
});
