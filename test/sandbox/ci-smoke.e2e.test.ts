// The CI smoke job of docs/sandbox.md ("A CI smoke job") is run as written: bash, the built
// CLI on PATH, a temp home, jq. It starts `sandbox serve --port 0`, reserves, pays with
// `sandbox pay`, waits until settled, cancels and checks the outcome; it must exit 0.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, ShimDir } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';

/** The first ```sh block after the heading. */
export function smokeJob(markdown: string): string {
  const section = markdown.slice(markdown.indexOf('\n## A CI smoke job\n'));
  const m = /\n```sh\n([\s\S]*?)\n```\n/.exec(section);
  if (!m) throw new Error('docs/sandbox.md has no sh block under "A CI smoke job"');
  return m[1];
}

let home: TestHome;
let shim: ShimDir;
beforeEach(() => {
  home = new TestHome();
  shim = new ShimDir();
});
afterEach(() => {
  shim.cleanup();
  home.cleanup();
});

describe('the CI smoke job of docs/sandbox.md', () => {
  it('runs to the end and exits 0', () => {
    const script = smokeJob(readFileSync(join(ROOT, 'docs', 'sandbox.md'), 'utf8'));
    expect(script).toContain('carrental sandbox pay');
    const env = home.env({ PATH: shim.path() });
    delete env.CARRENTAL_SANDBOX_STATE; // the job sets its own
    delete env.NODE_EXTRA_CA_CERTS;
    const r = spawnSync('bash', ['-c', script], { env, encoding: 'utf8', timeout: 90_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    // the last check printed jq's verdict
    expect(r.stdout.trim().split('\n').at(-1)).toBe('true');
  }, 120_000);

  it('fails when the outcome is not the one it checks (the job can fail)', () => {
    const script = smokeJob(readFileSync(join(ROOT, 'docs', 'sandbox.md'), 'utf8')).replace('.payment_status.type == "refund"', '.payment_status.type == "settled"');
    const env = home.env({ PATH: shim.path() });
    delete env.CARRENTAL_SANDBOX_STATE;
    const r = spawnSync('bash', ['-c', script], { env, encoding: 'utf8', timeout: 90_000 });
    expect(r.status).not.toBe(0);
  }, 120_000);
});
