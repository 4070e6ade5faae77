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
