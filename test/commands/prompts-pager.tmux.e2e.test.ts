// Every command that can ask, on a real terminal with the pager on (CARRENTAL_PAGER and
// PAGER both set to less): its question is on the screen before anyone types, never held
// for the pager. `doctor --contract --write` once printed nothing and waited: its warning
// and question were kept for less, shown only after the user typed blind. The pane is 20
// rows, shorter than doctor's report, so a paged command would page here. Needs tmux, less
// and `npm run build`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { screenWhen, tmuxOn } from '../helpers/tmux.js';
import { freeCars } from '../booking/sandbox.js';

const tmux = tmuxOn(`carrental-prompts-pager-${process.pid}`);
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const day = (ahead: number) => `${new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const DATES = { from: day(21), to: day(24) };

let sb: RunningSandbox;
let home: TestHome;

beforeAll(async () => {
  assertBuilt();
  sb = await startSandbox({ quiet: true });
  home = new TestHome();
});
afterAll(async () => {
  tmux.stop();
  await sb?.close();
  home?.cleanup();
});

const screen = (name: string) => tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-200').replace(/\s+$/gm, '');

const waitFor = (name: string, pattern: RegExp, ms = 20_000): Promise<string> => screenWhen(tmux, name, () => screen(name), (t) => pattern.test(t), String(pattern), ms);

const PAGER_ON = { CARRENTAL_PAGER: 'less -FRX', PAGER: 'less', NO_COLOR: '1', TERM: 'xterm-256color' };

/** Runs `carrental <args>` in a fresh 80x20 pane with the pager on; returns the session's name. */
function open(name: string, args: string[], extra: NodeJS.ProcessEnv = {}): string {
  const env = home.env({ ...PAGER_ON, ...extra });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(String(v))}`).join(' ');
  const cli = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  tmux('new-session', '-d', '-s', name, '-x', '80', '-y', '20', `env -i ${assignments} ${cli}; echo "EXIT:$?"; sleep 60`);
  return name;
}

const api = (...args: string[]) => ['--base-url', sb.baseUrl, ...args];

describe('a question is on the screen before the answer, with the pager on', () => {
  it('doctor --contract --write: the warning and the question, before anything is typed', async () => {
    const name = open('doctor', api('doctor', '--contract', '--write'), { CARRENTAL_API_KEY: sb.keys.booking_write });
    const text = await waitFor(name, /Create and cancel a real reservation\? \(y\/N\)/);
    expect(text).toMatch(/creates a real reservation/);
    tmux('send-keys', '-t', name, 'n', 'Enter');
    expect(await waitFor(name, /EXIT:\d+/)).toMatch(/not checked: nothing was sent[\s\S]*EXIT:1/);
  }, 40_000);

  it('doctor --contract --write on the embedded sandbox', async () => {
    const name = open('doctor-sandbox', ['--sandbox', 'doctor', '--contract', '--write']);
    await waitFor(name, /Create and cancel a real reservation\? \(y\/N\)/);
    tmux('send-keys', '-t', name, 'n', 'Enter');
    expect(await waitFor(name, /EXIT:\d+/)).toMatch(/EXIT:1/);
  }, 40_000);

  it('reserve with nothing given asks for the city first', async () => {
    const name = open('reserve', api('reserve'), { CARRENTAL_API_KEY: sb.keys.booking_write });
    await waitFor(name, /City/);
    tmux('send-keys', '-t', name, 'C-c');
    expect(await waitFor(name, /EXIT:\d+/)).toMatch(/EXIT:130/);
  }, 40_000);

  it('cancel asks before it cancels', async () => {
    const [alias] = await freeCars(sb, 1, DATES);
    const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write });
    const made = await runBin(api('reserve', alias, '--from', DATES.from, '--to', DATES.to, '-y', '--json', 'uuid'), { env });
    expect(made.code, made.stderr).toBe(0);
    const uuid = (JSON.parse(made.stdout) as { uuid: string }).uuid;
    const name = open('cancel', api('cancel', uuid), { CARRENTAL_API_KEY: sb.keys.booking_write });
    await waitFor(name, /Cancel the reservation .*\? \(y\/N\)/);
    tmux('send-keys', '-t', name, 'n', 'Enter');
    expect(await waitFor(name, /EXIT:\d+/)).toMatch(/EXIT:\d+/);
  }, 40_000);

  it('auth login asks for the key', async () => {
    const name = open('login', api('auth', 'login'));
    await waitFor(name, /API key \(svc_/);
    tmux('send-keys', '-t', name, 'C-c');
    expect(await waitFor(name, /EXIT:\d+/)).toMatch(/EXIT:130/);
  }, 40_000);

  it('sandbox reset asks before it discards', async () => {
    const name = open('reset', ['sandbox', 'reset']);
    await waitFor(name, /Discard every reservation, invoice and setting in[\s\S]*\? \(y\/N\)/);
    tmux('send-keys', '-t', name, 'n', 'Enter');
    expect(await waitFor(name, /EXIT:\d+/)).toMatch(/EXIT:\d+/);
  }, 40_000);
});
