// Ctrl-C while the pager runs, in a real terminal: the built CLI pages 50 cars through
// `less -FRX` in a tmux pane (20 rows) running a shell. Ctrl-C goes to the whole foreground
// group; less handles it and stays, and carrental, as git and gh do, ignores it while the
// pager runs and leaves when the pager does. Before, a second Ctrl-C exited carrental and
// gave the shell its prompt back with less still holding the terminal. Needs tmux, less
// and `npm run build`.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { tmuxOn } from '../helpers/tmux.js';

const SOCKET = `carrental-pager-${process.pid}`;
const tmux = tmuxOn(SOCKET);
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
let home: TestHome;

beforeAll(() => {
  assertBuilt();
  home = new TestHome();
});
afterAll(() => {
  tmux.stop();
  home.cleanup();
});

const screen = (name: string) => tmux('capture-pane', '-p', '-t', name).replace(/\s+$/gm, '');
/**
 * The commands running on the pane's terminal (the shell, node, sh, less). From Node 24 on,
 * ps names node's process after its main thread ('MainThread'): read as node here.
 */
const onTerminal = (tty: string) =>
  execFileSync('ps', ['-t', tty, '-o', 'comm='], { encoding: 'utf8' })
    .split('\n')
    .map((s) => (s.trim() === 'MainThread' ? 'node' : s.trim()))
    .filter(Boolean);

async function until<T>(what: string, probe: () => T | undefined | false, name: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${screen(name)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Ctrl-C twice while less pages the output', () => {
  it('leaves less in charge; q ends both, the prompt comes back, no less is left, the terminal is as it was', async () => {
    const name = 'pager';
    const env = home.env({ NO_COLOR: '1', TERM: 'xterm-256color', PS1: 'PROMPT$ ', CARRENTAL_PAGER: 'less -FRX' });
    const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(String(v))}`).join(' ');
    tmux('new-session', '-d', '-s', name, '-c', home.dir, '-x', '80', '-y', '20', `env -i ${assignments} bash --norc --noprofile`);
    const tty = tmux('display-message', '-p', '-t', name, '#{pane_tty}').trim();
    await until('the prompt', () => screen(name).includes('PROMPT$'), name);
    tmux('send-keys', '-t', name, 'stty -g > stty.before; clear', 'Enter');
    const cli = [process.execPath, BIN, '--sandbox', 'cars', '--limit', '50'].map(shellQuote).join(' ');
    tmux('send-keys', '-t', name, `${cli}; echo "EXIT:$?"; stty -g > stty.after`, 'Enter');
    await until('less', () => onTerminal(tty).includes('less') && /^:$/m.test(screen(name)), name);

    tmux('send-keys', '-t', name, 'C-c');
    await pause(300);
    tmux('send-keys', '-t', name, 'C-c');
    await pause(1_000);
    // both still there, less still showing the page: no prompt yet
    expect(screen(name)).not.toMatch(/EXIT:/);
    expect(onTerminal(tty)).toEqual(expect.arrayContaining(['less', 'node']));

    tmux('send-keys', '-t', name, 'q');
    const done = await until('the prompt after q', () => /EXIT:(\d+)\nPROMPT\$/.exec(screen(name)) ?? undefined, name);
    expect(done[1]).toBe('0');
    await until('the shell alone on the terminal', () => onTerminal(tty).every((c) => c === 'bash' || c === 'ps'), name);
    const stty = (file: string) => execFileSync('cat', [`${home.dir}/${file}`], { encoding: 'utf8' });
    await until('stty.after', () => {
      try {
        return stty('stty.after').length > 0;
      } catch {
        return false;
      }
    }, name);
    expect(stty('stty.after')).toBe(stty('stty.before'));
    tmux('kill-session', '-t', name);
  }, 40_000);
});
