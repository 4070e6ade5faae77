// Output longer than the screen goes through a pager on a terminal, as gh and git do. A
// command marked `pager` in the tree prints a finished document (a list, a detail), so its
// stdout is held until it ends: then it goes to the pager when it has more lines than the
// screen, else straight to the terminal. Never in a pipe, in CI, for an AI agent or with
// --no-pager (Globals.pager). A question must never wait behind the pager (the user would
// type blind): a command that asks is not marked `pager` for that input, and should one
// reach stdin anyway, `release` shows what was held and ends the holding before it asks.
import { Writable } from 'node:stream';
import type { OutStream } from '../session/context.js';

/** The pager command: CARRENTAL_PAGER, then PAGER, then `less -FRX`; undefined for none (empty or `cat`). */
export function pagerCommand(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env.CARRENTAL_PAGER ?? env.PAGER ?? 'less -FRX';
  const command = chosen.trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/**
 * A terminal's stdout and stderr that keep what is written until `finish`, in the order it
 * was written: a message on stderr between two tables stays between them, on the screen
 * and in the pager. Progress (a write that starts with a carriage return, Output.progress)
 * goes to the terminal at once. A stderr that is not a terminal is left alone.
 */
export class HeldOutput {
  private readonly held: Array<{ to: OutStream; text: string }> = [];
  private released = false;
  readonly stdout: OutStream;
  readonly stderr: OutStream;

  constructor(
    private readonly out: OutStream,
    err: OutStream,
  ) {
    this.stdout = this.stream(out, () => true);
    this.stderr = err.isTTY ? this.stream(err, (text) => !text.startsWith('\r')) : err;
  }

  private stream(real: OutStream, holds: (text: string) => boolean): OutStream {
    const held = this.held;
    const holding = () => !this.released;
    const stream = new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        const text = chunk.toString();
        if (holding() && holds(text)) held.push({ to: real, text });
        else real.write(text);
        cb();
      },
    }) as OutStream;
    stream.isTTY = true;
    Object.defineProperty(stream, 'columns', { get: () => real.columns });
    return stream;
  }

  /**
   * Before a question: what was held goes to the terminal now, in order, and everything
   * after it goes straight there too; `finish` then pages nothing.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    for (const { to, text } of this.held.splice(0)) to.write(text);
  }

  /**
   * Sends what was held to `command` when it is taller than the screen, else to the
   * terminal as written. A pager that cannot start (not installed: the shell's 127) is
   * skipped. `onPager` is told while the pager runs (main.ts leaves Ctrl-C to it then).
   */
  async finish(command: string | undefined, env: NodeJS.ProcessEnv, onPager?: (running: boolean) => void): Promise<void> {
    if (this.released) return;
    const text = this.held.map((h) => h.text).join('');
    if (text === '') return;
    const rows = (this.out as { rows?: number }).rows;
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (command !== undefined && rows && lines >= rows && (await runPager(command, text, this.out, env, onPager))) return;
    for (const { to, text } of this.held) to.write(text);
  }
}

/** Runs the pager on `text`; false when it could not run (nothing was shown). */
async function runPager(command: string, text: string, out: OutStream, env: NodeJS.ProcessEnv, onPager?: (running: boolean) => void): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  onPager?.(true);
  try {
    return await pagerExit(spawn, command, text, out, env);
  } finally {
    onPager?.(false);
  }
}

async function pagerExit(spawn: typeof import('node:child_process').spawn, command: string, text: string, out: OutStream, env: NodeJS.ProcessEnv): Promise<boolean> {
  // the real terminal is the pager's own stdout; a test's stream gets the pager's output
  const direct = out === process.stdout;
  // less reads LESS for its options when the command gave none (gh and git set these too),
  // and LESSCHARSET for what it is sent: UTF-8 (a table's "…"), whatever the locale says
  const child = spawn(command, {
    shell: true,
    stdio: ['pipe', direct ? 'inherit' : 'pipe', 'inherit'],
    env: { LESS: 'FRX', LV: '-c', LESSCHARSET: 'utf-8', ...env },
  });
  if (!direct) child.stdout!.on('data', (chunk: Buffer) => out.write(chunk.toString()));
  // a pager quit before reading everything (q in less): not an error
  child.stdin!.on('error', () => {});
  child.stdin!.end(text);
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('close', (c) => resolve(c));
  });
  return code !== 127;
}
