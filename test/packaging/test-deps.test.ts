// `npm test` on a fresh machine: scripts/test-deps.mjs checks the system packages the
// browser, terminal and shell tests need, installs them as root, and otherwise stops at
// once with the one line to run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/bin.js';

const SCRIPT = join(ROOT, 'scripts', 'test-deps.mjs');

it('with a package missing and no apt-get to run, stops at once with the line to run', () => {
  // a PATH with node only: no chromium-headless-shell, tmux, fish, zsh or jq, and no apt-get
  const bin = mkdtempSync(join(tmpdir(), 'carrental-path-'));
  try {
    symlinkSync(process.execPath, join(bin, 'node'));
    const started = Date.now();
    const r = spawnSync(process.execPath, [SCRIPT], { env: { PATH: bin }, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^npm test needs chromium-headless-shell, tmux, fish, zsh, jq/);
    expect(lines[1]).toMatch(/^  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium-headless-shell tmux fish zsh jq sqlite3( bash-completion)?$/);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

it('with everything present only looks, and passes quickly', () => {
  const started = Date.now();
  const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(Date.now() - started).toBeLessThan(2000);
});

it('is the first step of `npm test`, which is what .ci/run runs', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.test).toMatch(/^node scripts\/test-deps\.mjs && /);
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  expect(ci).toMatch(/\bnpm test\b/);
  expect(ci).not.toMatch(/apt-get/);
});
