// Spawned end-to-end runs of the built CLI (bin/carrental.js → dist/). Always through
// process.execPath, never `node` from PATH: the Node matrix runs this suite under Node 22
// and 24 (`npx -p node@22 -- node node_modules/vitest/vitest.mjs run ...`) and the CLI under
// test must run on that same Node.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'carrental.js');

/** Fails with the fix when the bundle is missing (`npm test` builds first; `vitest run` alone does not). */
export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` before the spawned tests');
}

export interface BinResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface BinOptions {
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, then closed (stdin is closed at once otherwise). */
  input?: string;
  cwd?: string;
  /** Kill the child after this long (default 30 s); the result then has signal SIGKILL. */
  timeoutMs?: number;
}

/** Runs the built CLI with this Node; env replaces process.env entirely (pass TestHome.env()). */
export function runBin(argv: string[], opts: BinOptions = {}): Promise<BinResult> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], { env: opts.env ?? { PATH: process.env.PATH }, cwd: opts.cwd ?? ROOT, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * A temp directory holding a `carrental` executable that runs the built CLI with this
 * Node, for shells (completion tests, README pipelines) that look the command up on PATH.
 */
export class ShimDir {
  readonly dir = mkdtempSync(join(tmpdir(), 'carrental-bin-'));
  constructor() {
    assertBuilt();
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const shim = join(this.dir, 'carrental');
    writeFileSync(shim, `#!/bin/sh\nexec ${q(process.execPath)} ${q(BIN)} "$@"\n`);
    chmodSync(shim, 0o755);
  }
  /** PATH with the shim first. */
  path(rest = process.env.PATH ?? '/usr/bin:/bin'): string {
    return `${this.dir}:${rest}`;
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
