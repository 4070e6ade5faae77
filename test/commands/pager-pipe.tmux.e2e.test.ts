// Issue 27: the pager is never used in a pipe, even when one is configured, nor in CI on a
// terminal. The built CLI runs in a real terminal (a tmux pane 20 rows tall) with output
// taller than the screen and CARRENTAL_PAGER set to a command that leaves a mark (a file)
// before passing the text on. On the terminal itself the mark appears, so the test can fail;
// with stdout a pipe (stderr still the terminal) or CI=true it must not, and the output
// must be whole. Needs tmux and `npm run build`.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { tmuxOn, untilExit } from '../helpers/tmux.js';

const SOCKET = `carrental-pager-pipe-${process.pid}`;
const NOW = new Date('2026-11-20T18:00:00Z');
const ROWS = 20;
const CARS = 30;

let sb: RunningSandbox;
let home: TestHome;
let session = 0;
const tmux = tmuxOn(SOCKET);
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const mark = () => join(home.dir, 'paged');
const piped = () => join(home.dir, 'piped.txt');
const cars = ['cars', '--city', 'la', '--limit', String(CARS)];

/**
 * Runs `<env> carrental <args><tail>` in a pane ROWS tall through a shell, with a pager
 * that touches `mark()` and then shows what it was given; returns the screen once it exits.
 */
async function pane(args: string[], tail = '', extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const name = `p${++session}`;
  const env = home.env({ NO_COLOR: '1', TERM: 'xterm-256color', CARRENTAL_PAGER: `touch ${q(mark())}; cat`, ...extra });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${q(String(v))}`).join(' ');
  const cli = [process.execPath, BIN, '--base-url', sb.baseUrl, ...args].map(q).join(' ');
  tmux('new-session', '-d', '-s', name, '-x', '100', '-y', String(ROWS), `env -i ${assignments} sh -c ${q(`${cli}${tail}; echo "EXIT:$?"`)}; sleep 60`);
  return untilExit(tmux, name, `carrental ${args.join(' ')}`);
}

beforeAll(async () => {
  assertBuilt();
  // an idle session keeps the tmux server up between panes (see tables.tmux.e2e.test.ts)
  tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
  sb = await startSandbox({ now: () => NOW, quiet: true });
  home = new TestHome();
});

afterAll(async () => {
  tmux.stop();
  await sb?.close();
  home?.cleanup();
});

beforeEach(() => {
  rmSync(mark(), { force: true });
  rmSync(piped(), { force: true });
});

it('on the terminal itself, the tall list goes through the configured pager (the mark appears)', async () => {
  const screen = await pane(cars);
  expect(screen).toContain('EXIT:0');
  expect(existsSync(mark())).toBe(true);
});

it('stdout a pipe (stderr the terminal): no pager, the output whole, as a pipe gets it', async () => {
  const screen = await pane(cars, ` | cat > ${q(piped())}`);
  expect(screen).toContain('EXIT:0');
  expect(existsSync(mark()), 'the pager ran although stdout was a pipe').toBe(false);
  const plain = await runBin(['--base-url', sb.baseUrl, ...cars], { env: home.env() });
  expect(plain.code, plain.stderr).toBe(0);
  const text = readFileSync(piped(), 'utf8');
  expect(text).toBe(plain.stdout);
  expect(text.trimEnd().split('\n')).toHaveLength(CARS);
  for (const line of text.trimEnd().split('\n')) expect(line).toContain('\t');
  // nothing of the list reached the screen
  expect(screen).not.toContain(text.split('\t')[0]);
});

it('CI=true on the terminal: no pager, the table straight on the screen', async () => {
  const screen = await pane(cars, '', { CI: 'true' });
  expect(screen).toContain('EXIT:0');
  expect(existsSync(mark()), 'the pager ran although CI was set').toBe(false);
  expect(screen).toMatch(/^ALIAS +NAME/m);
  expect(screen).toMatch(new RegExp(`showing 1-${CARS} of \\d+`));
});
