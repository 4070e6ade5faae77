// Runs a command in-process with fake terminal streams, the way gh tests its commands.
import { PassThrough, Writable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import type { InStream, IO } from '../../src/session/context.js';

// TestHome lives apart so that a spawned test, which needs a home and no in-process CLI,
// does not load src/ for it
export { TestHome } from './home.js';

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
