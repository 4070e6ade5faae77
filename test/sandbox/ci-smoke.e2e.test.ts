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
  it('runs to the end, its last check passing; the same check of another outcome fails the job (the job can fail)', () => {
    const script = smokeJob(readFileSync(join(ROOT, 'docs', 'sandbox.md'), 'utf8'));
    expect(script).toContain('carrental sandbox pay');
    const lastCheck = script.slice(script.lastIndexOf('\ncarrental trips "$uuid" --json | jq -e') + 1);
    expect(lastCheck).toContain('.payment_status.type == "refund"');
    // The job as written, then its last check once more, expecting another outcome: one run
    // of the job (a sandbox, a reservation, payments, a cancel) shows both that the check
    // passes (jq prints true and, under `set -e`, the job goes on) and that it decides the
    // job's exit status when the outcome differs.
    const wrongOutcome = lastCheck.replace('.payment_status.type == "refund"', '.payment_status.type == "settled"');
    const env = home.env({ PATH: shim.path() });
    delete env.CARRENTAL_SANDBOX_STATE; // the job sets its own
    delete env.NODE_EXTRA_CA_CERTS;
    const r = spawnSync('bash', ['-c', `${script}\necho "the job as written ends here"\n${wrongOutcome}`], { env, encoding: 'utf8', timeout: 90_000 });
    const out = r.stdout.trim().split('\n');
    // the job's own last check printed jq's verdict, and nothing before it failed
    expect(out.slice(-3, -1), `${r.stdout}\n${r.stderr}`).toEqual(['true', 'the job as written ends here']);
    // the same check of an outcome that did not happen: jq says false, and the job fails
    expect(out.at(-1)).toBe('false');
    expect(r.status).toBe(1);
  }, 120_000);
});
