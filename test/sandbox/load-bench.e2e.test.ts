// bench/sandbox-load keeps working: a one-second run at a low rate against the built
// `sandbox serve`, with its JSON report (the figures in docs/sandbox.md come from
// full runs of the same script).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, assertBuilt } from '../helpers/bin.js';

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'sandbox-load'), ...args], { cwd: ROOT, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('bench/sandbox-load', () => {
  it('offers the paced mix to a built sandbox serve and reports rate, errors and latency', async () => {
    assertBuilt();
    const res = await runBench(['--rate', '40', '--duration', '1', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report).toMatchObject({ server: 'carrental sandbox serve (built)', offered_rate: 40, requests: 40, errors: 0, goal: { rate: 40, ok: true } });
    expect(report.per_operation).toHaveLength(12);
    expect(report.per_operation.reduce((n: number, k: { requests: number }) => n + k.requests, 0)).toBe(40);
    expect(report.latency_ms.p50).toBeGreaterThan(0);
  }, 60_000);

  it('refuses unbounded runs before starting anything', async () => {
    const res = await runBench(['--rate', '5000']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--rate must be a number from 1 to 2000');
  });
});
