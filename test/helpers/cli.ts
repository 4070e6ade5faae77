// Runs a command in-process with fake terminal streams, the way gh tests its commands.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import type { InStream, IO } from '../../src/session/context.js';

export class FakeOut extends Writable {
  chunks: string[] = [];
  isTTY: boolean;
  columns = 120;
  constructor(tty = false) {
    super();
    this.isTTY = tty;
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void) {
    this.chunks.push(chunk.toString());
    cb();
  }
  text() {
    return this.chunks.join('');
  }
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOpts {
  env?: NodeJS.ProcessEnv;
  /** stdout and stderr are terminals. */
  tty?: boolean;
  /** stdin is a terminal (prompts allowed when tty too). */
  stdinTty?: boolean;
  /** Text fed to stdin, then end. */
  stdin?: string;
  now?: () => Date;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
}

/** A temp home for config, state and data; `env()` points carrental at it. */
export class TestHome {
  readonly dir = mkdtempSync(join(tmpdir(), 'carrental-test-'));
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: this.dir,
      CARRENTAL_CONFIG_DIR: join(this.dir, 'config'),
      CARRENTAL_STATE_DIR: join(this.dir, 'state'),
      CARRENTAL_DATA_DIR: join(this.dir, 'data'),
      CARRENTAL_SANDBOX_STATE: join(this.dir, 'data', 'sandbox-state.json'),
      // no fixed port in tests: parallel runs, and links that point at their own server
      CARRENTAL_SANDBOX_PORT: '0',
      ...extra,
    };
  }
  cleanup() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function runCommand(argv: string[], opts: RunOpts = {}): Promise<RunResult> {
  const stdout = new FakeOut(!!opts.tty);
  const stderr = new FakeOut(!!opts.tty);
  const stdin = new PassThrough() as unknown as InStream;
  stdin.isTTY = !!opts.stdinTty;
  if (opts.stdin !== undefined) (stdin as unknown as PassThrough).end(opts.stdin);
  else if (!opts.stdinTty) (stdin as unknown as PassThrough).end();
  const io: IO = { stdin, stdout, stderr };
  const code = await runCli(argv, { io, env: opts.env ?? { PATH: process.env.PATH }, now: opts.now, signal: opts.signal, sleep: opts.sleep });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
