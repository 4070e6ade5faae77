// A `carrental` on PATH that is no Node process of its own: a bash script that hands its
// cwd, arguments, environment and stdin to the test worker that wrote it, which runs the
// command in-process (runCli, the real command tree, its dependencies passed in) and
// answers stdout, stderr and the exit code. The shell around it stays real (pipes, `| jq`,
// quoting, `$(...)`, `VAR=x carrental ...`), and a line costs a few milliseconds instead
// of a Node start (test/readme/examples.ts runs every documented example this way).
//
// What a spawned CLI has of its own and the worker shares, each made the command's for
// the time it runs (so requests are answered one at a time, in arrival order):
// - process.env is the command's environment (what the shell exported to it), for the
//   code that reads it rather than ctx.env (the sandbox's CARRENTAL_SANDBOX_NOW, _CONFIG,
//   _FAULTS), then the worker's again (its own VITEST* variables stay);
// - the working directory (a relative path resolves against it), then the worker's again;
// - process.stdout and process.stderr: a stray write (a warning) goes to the command's.
// What is not the same: a wait (a --watch interval, a Retry-After) passes at once and the
// time is counted as slept; output reaches the shell when the command ends, not as it is
// written; stdin is read to its end before the command starts; there is no terminal and no
// signal (a Ctrl-C is the command's signal aborted: interruptOnOutput). Lines that need
// those run the built CLI (test/readme/examples.ts says which).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { CliError } from '../../src/errors.js';
import type { InStream, IO } from '../../src/session/context.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessRequest {
  argv: string[];
  /** The whole environment of the command (nothing of the worker's is added). */
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin?: Buffer;
  /** Interrupts the command (as a Ctrl-C would) after this long: 15 s unless told. */
  timeoutMs?: number;
}

/** A pipe's end, as a spawned CLI's stdout or stderr is in a shell line: no terminal, no width. */
class Captured extends Writable {
  readonly isTTY = false;
  private readonly chunks: Buffer[] = [];
  /** Told of the first write. */
  onWrite?: () => void;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.add(chunk);
    cb();
  }
  add(chunk: unknown): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk instanceof Uint8Array ? chunk : String(chunk)));
    this.onWrite?.();
    this.onWrite = undefined;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** A wait that passes at once, as if the time had passed; a Ctrl-C (the signal) ends it as makeSleep's does. */
function fastForward(signal: AbortSignal) {
  return (_ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new CliError('interrupted', 'interrupted'));
      setImmediate(() => (signal.aborted ? reject(new CliError('interrupted', 'interrupted')) : resolve()));
    });
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class InProcessCli {
  /** Holds the `carrental` script and the requests' files. */
  readonly dir = mkdtempSync(join(tmpdir(), 'carrental-inproc-'));
  private queue: Promise<unknown> = Promise.resolve();
  /** The commands answered, for a test that wants to see they ran here. */
  answered = 0;
  /**
   * While set, a command is interrupted (its signal aborted, what main() does on Ctrl-C) as
   * soon as it prints on stdout: for a line that runs until Ctrl-C (a server, a watch).
   */
  interruptOnOutput = false;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<InProcessCli> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const cli = new InProcessCli(server);
    server.on('connection', (socket) => cli.serve(socket));
    cli.writeShim((server.address() as AddressInfo).port);
    return cli;
  }

  /** PATH with this `carrental` first. */
  path(rest = process.env.PATH ?? '/usr/bin:/bin'): string {
    return `${this.dir}:${rest}`;
  }

  /** Runs one command line's `carrental` here, after the ones asked before it. */
  async run(request: InProcessRequest): Promise<InProcessResult> {
    const r = await this.inTurn(request);
    return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * `carrental` as a bash function, to define in a line's own shell (prelude()): no process
   * at all, only builtins, as each process a line starts costs milliseconds, and tens of them
   * on a loaded machine. Its variables are local and oddly named, so that the environment it
   * sends is the caller's exported variables, a `VAR=x` prefix included.
   */
  private functionText(port: number): string {
    return [
      'carrental() {',
      `  local __cr_r=${q(this.dir)}/req.$BASHPID.$RANDOM __cr_p __cr_n __cr_names __cr_fd __cr_code __cr_text`,
      '  printf \'%s\\0\' "$PWD" "$#" "$@" >"$__cr_r.argv" || return 70',
      '  {',
      '    for __cr_p in {A..Z} {a..z} _; do',
      '      eval "__cr_names=(\\${!$__cr_p@})"',
      '      for __cr_n in "${__cr_names[@]}"; do',
      '        [[ ${!__cr_n@a} != *x* ]] || printf \'%s=%s\\0\' "$__cr_n" "${!__cr_n}"',
      '      done',
      '    done',
      '  } >"$__cr_r.env" || return 70',
      // stdin, unless a terminal or /dev/null (most lines): read to its end
      '  if [[ ! -t 0 ]] && ! [[ /dev/stdin -ef /dev/null ]]; then',
      '    IFS= read -r -d \'\' __cr_text',
      '    printf \'%s\' "$__cr_text" >"$__cr_r.in" || return 70',
      '  fi',
      `  exec {__cr_fd}<>/dev/tcp/127.0.0.1/${port} || return 70`,
      '  printf \'%s\\n\' "$__cr_r" >&$__cr_fd',
      '  IFS= read -r __cr_code <&$__cr_fd',
      '  exec {__cr_fd}<&-',
      '  if [[ -z $__cr_code ]]; then echo "carrental: the test worker that runs it in-process did not answer" >&2; return 70; fi',
      // the reader of a pipe went away (`| head -3`): as for the CLI, no error of ours
      "  trap '' PIPE",
      '  if [[ -s $__cr_r.out ]]; then IFS= read -r -d \'\' __cr_text <"$__cr_r.out"; printf \'%s\' "$__cr_text" 2>/dev/null; fi',
      '  if [[ -s $__cr_r.err ]]; then IFS= read -r -d \'\' __cr_text <"$__cr_r.err"; printf \'%s\' "$__cr_text" >&2; fi',
      '  trap - PIPE',
      '  return "$__cr_code"',
      '}',
    ].join('\n');
  }

  /**
   * What a line's bash runs first (`bash -c "$prelude<newline>$line"`): the `carrental`
   * function. Whatever runs `carrental` as a program (`exec`, `xargs`, `env`) finds the script
   * of the same body first on PATH (path()).
   */
  prelude(): string {
    return this.functionDef;
  }

  private functionDef = '';

  private writeShim(port: number): void {
    const bash = execFileSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();
    this.functionDef = this.functionText(port);
    const script = [
      `#!${bash}`,
      '# carrental, run in-process by the test worker that wrote this file (test/helpers/inprocess-shim.ts).',
      this.functionDef,
      'carrental "$@"',
      '',
    ].join('\n');
    const shim = join(this.dir, 'carrental');
    writeFileSync(shim, script);
    chmodSync(shim, 0o755);
  }

  private serve(socket: import('node:net').Socket): void {
    let line = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (data: string) => {
      line += data;
      const end = line.indexOf('\n');
      if (end < 0) return;
      socket.removeAllListeners('data');
      const base = line.slice(0, end);
      void this.answer(base).then((code) => socket.end(`${code}\n`));
    });
  }

  /** Reads a request the script wrote, runs it, writes what it printed beside it: its exit code. */
  private async answer(base: string): Promise<number> {
    try {
      const [cwd, count, ...argv] = readFileSync(`${base}.argv`, 'utf8').split('\0').slice(0, -1);
      if (argv.length !== Number(count)) throw new Error(`the request's arguments are damaged: ${count} announced, ${argv.length} read`);
      const env: NodeJS.ProcessEnv = {};
      for (const entry of readFileSync(`${base}.env`, 'utf8').split('\0')) {
        const eq = entry.indexOf('=');
        if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      const stdin = existsSync(`${base}.in`) ? readFileSync(`${base}.in`) : undefined;
      for (const done of ['argv', 'env', 'in']) rmSync(`${base}.${done}`, { force: true });
      const r = await this.inTurn({ argv, env, cwd, stdin });
      writeFileSync(`${base}.out`, r.stdout);
      writeFileSync(`${base}.err`, r.stderr);
      return r.code;
    } catch (err) {
      writeFileSync(`${base}.out`, '');
      writeFileSync(`${base}.err`, `carrental (in-process): ${(err as Error).stack ?? String(err)}\n`);
      return 70;
    }
  }

  private inTurn(request: InProcessRequest): ReturnType<InProcessCli['runNow']> {
    const result = this.queue.then(() => this.runNow(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runNow(request: InProcessRequest): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> {
    const stdout = new Captured();
    const stderr = new Captured();
    const stdin = new PassThrough() as unknown as InStream & PassThrough;
    stdin.isTTY = false;
    stdin.end(request.stdin ?? Buffer.alloc(0));
    const io: IO = { stdin, stdout: stdout as unknown as IO['stdout'], stderr: stderr as unknown as IO['stderr'] };

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), request.timeoutMs ?? 15_000);
    if (this.interruptOnOutput) stdout.onWrite = () => controller.abort();
    const worker = { env: { ...process.env }, cwd: process.cwd(), out: process.stdout.write, err: process.stderr.write };
    replaceEnv(request.env, worker.env);
    process.chdir(request.cwd);
    process.stdout.write = strayTo(stdout);
    process.stderr.write = strayTo(stderr);
    try {
      const code = await runCli(request.argv, { io, env: request.env, signal: controller.signal, sleep: fastForward(controller.signal) });
      this.answered++;
      return { code, stdout: stdout.bytes(), stderr: stderr.bytes() };
    } finally {
      clearTimeout(timer);
      process.stdout.write = worker.out;
      process.stderr.write = worker.err;
      process.chdir(worker.cwd);
      replaceEnv(worker.env, {});
    }
  }
}

/** A write to process.stdout or process.stderr while a command runs: the command's. */
function strayTo(target: Captured): typeof process.stdout.write {
  return ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    target.add(chunk);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') setImmediate(() => (done as () => void)());
    return true;
  }) as typeof process.stdout.write;
}

/** process.env becomes `env` in place (node's own handling of TZ and the like applies), keeping the worker's VITEST* variables. */
function replaceEnv(env: NodeJS.ProcessEnv, worker: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) delete process.env[key];
  for (const [key, value] of Object.entries(worker)) if (key.startsWith('VITEST') && value !== undefined) process.env[key] = value;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
}
