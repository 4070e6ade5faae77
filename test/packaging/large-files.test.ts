// .ci/large-files, an early stage of .ci/run: CI fails on a tracked file over 1 MB other
// than package-lock.json and the mutation-testing incremental file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ROOT } from '../helpers/bin.js';

const MB = 1024 * 1024;
let repo: string;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'carrental-large-files-'));
  mkdirSync(join(repo, '.ci'));
  writeFileSync(join(repo, '.ci', 'large-files'), readFileSync(join(ROOT, '.ci', 'large-files')), { mode: 0o755 });
  git('init', '-q');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

function git(...args: string[]) {
  const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}
function add(path: string, bytes: number) {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), Buffer.alloc(bytes, 'x'));
  git('add', path);
}
const check = () => spawnSync(join(repo, '.ci', 'large-files'), { cwd: repo, encoding: 'utf8' });

it('fails on a tracked file over 1 MB, naming it', () => {
  add('docs/a file.md', 1000);
  add('heap dump', MB + 1);
  const r = check();
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('heap dump (1.0 MB)');
  expect(r.stderr).not.toContain('a file.md');
});

it('passes with the two large files the project keeps, and with a file of exactly 1 MB', () => {
  add('package-lock.json', 2 * MB);
  add('test/mutation/incremental.json', 2 * MB);
  add('src/big.ts', MB);
  expect(check().status).toBe(0);
});

it('does not allow an allowed name in another folder', () => {
  add('sub/package-lock.json', 2 * MB);
  expect(check().status).toBe(1);
});

it('is a stage of .ci/run, before npm ci', () => {
  const run = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  const stage = run.indexOf('.ci/large-files');
  expect(stage).toBeGreaterThan(-1);
  expect(stage).toBeLessThan(run.indexOf('stage "npm ci"'));
});
