// The README's set-up says what a fresh machine needs for the tests: every Debian package
// scripts/test-deps.mjs installs, and every other program the tests start (found in test/
// itself, so a new one is caught), and why npm 11 warns about esbuild's install script,
// with the command that approves it on the npm in use.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/bin.js';
// @ts-expect-error a plain .mjs script, no types
import { NEEDS } from '../../scripts/test-deps.mjs';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The set-up: from the top to the paragraph that starts describing the tool. */
const setup = readme.slice(0, readme.indexOf('**carrental** searches'));

/** Programs of Debian's essential set (always there), the toolchain and carrental itself: not listed. */
const ESSENTIAL = new Set(['carrental', 'bash', 'sh', 'cat', 'mkdir', 'mkfifo', 'readlink', 'mount', 'umount', 'runuser', 'apt-get', 'npm', 'node', 'env', 'sleep', 'stty', 'more']);
/** A program the tests start → the Debian package that has it. */
const PACKAGE_OF: Record<string, string> = { ps: 'procps' };

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? testFiles(join(dir, e.name)) : /\.(ts|mjs|cjs)$/.test(e.name) ? [join(dir, e.name)] : []));
}

it('names every package scripts/test-deps.mjs checks for', () => {
  for (const name of Object.keys(NEEDS as Record<string, unknown>)) expect(setup, `README set-up misses ${name}`).toContain(`\`${name}\``);
});

it('names the package of every program the tests start', () => {
  const started = new Set<string>();
  for (const file of testFiles(join(ROOT, 'test'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b(?:execFileSync|execFile|spawnSync|spawn)\('([a-z0-9_-]+)'/g)) started.add(m[1]);
    // the pager a terminal test really runs (a unit test only reads the name)
    if (file.includes('.tmux.')) for (const m of text.matchAll(/PAGER: '([a-z]+)/g)) started.add(m[1]);
  }
  expect(started.size).toBeGreaterThan(5);
  for (const program of started) {
    if (ESSENTIAL.has(program)) continue;
    const pkg = PACKAGE_OF[program] ?? program;
    expect(setup, `the tests run ${program}: README set-up misses the package ${pkg}`).toContain(`\`${pkg}\``);
  }
});

// playwright starts it (executablePath), so the scan above does not see it
it('names the browser the browser tests launch, which scripts/test-deps.mjs installs', () => {
  const browser = /export const CHROMIUM = '\/usr\/bin\/([a-z0-9_-]+)'/.exec(readFileSync(join(ROOT, 'test', 'helpers', 'chromium.ts'), 'utf8'))?.[1];
  expect(browser).toBeDefined();
  expect(Object.values(NEEDS as Record<string, { command?: string }>).map((need) => need.command)).toContain(browser);
  expect(setup, `README set-up misses the package ${browser}`).toContain(`\`${browser}\``);
});

it("says why npm 11 warns about esbuild's install script, with an approval this npm knows", () => {
  const flat = setup.replace(/\s+/g, ' ');
  expect(flat).toContain('not yet covered by allowScripts');
  expect(flat).toContain('`npm install-scripts approve esbuild`');
  const major = Number(execFileSync('npm', ['--version'], { encoding: 'utf8' }).split('.')[0]);
  if (major >= 11) expect(spawnSync('npm', ['install-scripts', '--help'], { encoding: 'utf8' }).status).toBe(0);
});
