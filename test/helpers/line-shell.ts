// One bash for a session of shell lines (test/readme/examples.ts): each line runs in a
// subshell of it, as `bash -o pipefail -c LINE` would (the session's environment and working
// directory, stdin /dev/null, no variable or trap left for the next line), in a process group
// of its own (so a line that hangs is killed with what it started). A subshell of a small
// bash instead of a bash started by the test worker: the worker's fork and bash's start cost
// more than most lines on a loaded machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LineResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The loop the shell runs: a request names files `<req>.line` (the line), `<req>.out`, `<req>.err`. */
const LOOP = `
set -m
while IFS= read -r __ls_req; do
  IFS= read -r -d '' __ls_line <"$__ls_req.line"
  ( __ls_x=$__ls_line; unset __ls_req __ls_line; eval "unset __ls_x; $__ls_x" ) </dev/null >"$__ls_req.out" 2>"$__ls_req.err" &
  printf 'pid %s\\n' "$!"
  wait "$!"
  printf 'code %s\\n' "$?"
done
`;

export class LineShell {
  private readonly dir = mkdtempSync(join(tmpdir(), 'carrental-lines-'));
  private readonly child: ChildProcess;
  private answers: string[] = [];
  private waiting?: () => void;
  private count = 0;
  private closed = false;

  /** `prelude` is bash run once first (a function definition); env and cwd are every line's. */
  constructor(opts: { env: NodeJS.ProcessEnv; cwd: string; prelude?: string }) {
    this.child = spawn('bash', ['--noprofile', '--norc', '-o', 'pipefail', '-c', `${opts.prelude ?? ''}\n${LOOP}`], {
      env: opts.env,
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    });
    let buffer = '';
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      this.answers.push(...lines);
      this.waiting?.();
    });
    this.child.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  private async next(): Promise<string | undefined> {
    while (!this.answers.length && !this.closed) await new Promise<void>((resolve) => (this.waiting = resolve));
    this.waiting = undefined;
    return this.answers.shift();
  }

  /** Runs one line (one at a time); killed with its process group after `timeoutMs`. */
  async run(line: string, timeoutMs = 20_000): Promise<LineResult> {
    const req = join(this.dir, `line${++this.count}`);
    writeFileSync(`${req}.line`, line);
    this.child.stdin!.write(`${req}\n`);
    const started = await this.next();
    const pid = Number(/^pid (\d+)$/.exec(started ?? '')?.[1]);
    if (!pid) throw new Error(`the session's bash did not start the line (${started ?? 'it exited'})`);
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    const done = await this.next();
    clearTimeout(timer);
    const code = /^code (\d+)$/.exec(done ?? '')?.[1];
    if (code === undefined) throw new Error(`the session's bash did not finish the line (${done ?? 'it exited'})`);
    const read = (f: string) => readFileSync(`${req}.${f}`, 'utf8');
    const result = { code: killed ? null : Number(code), stdout: read('out'), stderr: read('err') };
    for (const f of ['line', 'out', 'err']) rmSync(`${req}.${f}`, { force: true });
    return result;
  }

  close(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
