// The tmux of a test file: a server of its own (`tmux -L <socket>`), so that parallel files
// and the developer's own tmux never meet.
import { execFileSync } from 'node:child_process';

export interface Tmux {
  (...args: string[]): string;
  /** Stops this file's server, if one is left. */
  stop(): void;
}

export function tmuxOn(socket: string): Tmux {
  const tmux = ((...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })) as Tmux;
  tmux.stop = () => {
    try {
      tmux('kill-server');
    } catch {
      // no server left: nothing to stop
    }
  };
  return tmux;
}

/**
 * Waits until the pane `name` shows `EXIT:<code>` (the test's command line ends with
 * `echo "EXIT:$?"`), then closes the session and returns the screen without trailing blanks.
 */
export async function untilExit(tmux: Tmux, name: string, what: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-2000');
    if (/EXIT:\d+/.test(text)) {
      tmux('kill-session', '-t', name);
      return text.replace(/\s+$/gm, '');
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
