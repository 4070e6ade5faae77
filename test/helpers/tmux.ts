// The tmux of a test file: a server of its own (`tmux -L <socket>`), so that parallel files
// and the developer's own tmux never meet.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmux {
  (...args: string[]): string;
  /** Stops this file's server, if one is left. */
  stop(): void;
  /**
   * How many bytes the pane `target` (a session's name) has written since this was first
   * asked of it: its output is piped to a file (`pipe-pane`), whose size is read here.
   */
  written(target: string): number;
}

/** `env`, or what returns it (one set up later, in a hook), is the tmux client's environment: the server's, when it starts it. */
export function tmuxOn(socket: string, env?: NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv)): Tmux {
  const run = (args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env: typeof env === 'function' ? env() : env });
  let dir: string | undefined;
  const piped = new Map<string, string>();
  let count = 0;
  const tmux = ((...args: string[]) => {
    // a session made again under a name starts with no pipe
    if (args[0] === 'new-session' || args[0] === 'kill-session') {
      const name = args[args.indexOf(args[0] === 'new-session' ? '-s' : '-t') + 1];
      if (name) piped.delete(name);
    }
    return run(args);
  }) as Tmux;
  tmux.written = (target) => {
    let file = piped.get(target);
    if (!file) {
      dir ??= mkdtempSync(join(tmpdir(), 'carrental-tmux-'));
      file = join(dir, `pane${++count}.out`);
      run(['pipe-pane', '-o', '-t', target, `cat >> '${file}'`]);
      piped.set(target, file);
    }
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  tmux.stop = () => {
    try {
      run(['kill-server']);
    } catch {
      // no server left: nothing to stop
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  return tmux;
}

/**
 * Reads the screen of the pane `target` (`read`, a capture-pane) until `ok` holds, and returns
 * it. It is read again only once the pane wrote something (tmux.written), or half a second
 * went by: each read is two processes (a tmux client and the server's work), tens of them a
 * second per pane when a test polled the screen every 50 ms, which was most of a terminal
 * test's CPU.
 */
export async function screenWhen(tmux: Tmux, target: string, read: () => string, ok: (text: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  let readAt = 0;
  for (;;) {
    const size = tmux.written(target);
    if (size !== seen || Date.now() - readAt >= 500) {
      seen = size;
      readAt = Date.now();
      const text = read();
      if (ok(text)) return text;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${text}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits until the pane `name` shows `EXIT:<code>` (the test's command line ends with
 * `echo "EXIT:$?"`), then closes the session and returns the screen without trailing blanks.
 */
export async function untilExit(tmux: Tmux, name: string, what: string, timeoutMs = 15_000): Promise<string> {
  const text = await screenWhen(tmux, name, () => tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-2000'), (t) => /EXIT:\d+/.test(t), what, timeoutMs);
  tmux('kill-session', '-t', name);
  return text.replace(/\s+$/gm, '');
}
