// Issue 27, in a real terminal: a request slow enough for the spinner (the sandbox holds
// `GET /cars` longer than SPINNER_DELAY_MS) draws it for a person, and draws nothing in
// the accessible mode (CARRENTAL_ACCESSIBLE=1, TERM=dumb) or for an AI agent (AI_AGENT=1),
// whose page count comes as a plain line or not at all. The spinner is erased once the
// answer comes, so the screen at the end cannot tell; tmux's pipe-pane records every byte
// the built CLI wrote to the pane instead. Needs tmux and `npm run build`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { SPINNER_DELAY_MS } from '../../src/render/spinner.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN } from '../helpers/bin.js';
import type { TestHome } from '../helpers/home.js';
import { withSandboxAndHome } from '../helpers/sandbox-fixtures.js';
import { tmuxOn } from '../helpers/tmux.js';

const SOCKET = `carrental-spinner-modes-${process.pid}`;
const NOW = new Date('2026-11-20T18:00:00Z');
const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

let session = 0;
const tmux = tmuxOn(SOCKET);
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A test's own sandbox and home: the tests with no spinner run at once, each holding its own page back. */
const it = withSandboxAndHome({ now: () => NOW });

async function admin(sb: RunningSandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sb.adminUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}`);
}

/**
 * `cars --city la --all` in a pane, its first page held back by the sandbox; returns every
 * byte written to the pane. The pane waits for a go file, so the recording starts first.
 */
async function slowCars({ sb, home }: { sb: RunningSandbox; home: TestHome }, extra: NodeJS.ProcessEnv): Promise<string> {
  await admin(sb, 'POST', '/faults', { kind: 'latency', operation: 'listCars', ms: SPINNER_DELAY_MS + 600, times: 1 });
  const name = `s${++session}`;
  const go = join(home.dir, `${name}.go`);
  const raw = join(home.dir, `${name}.raw`);
  const env = home.env({ NO_COLOR: '1', TERM: 'xterm-256color', ...extra });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${q(String(v))}`).join(' ');
  // stdout and stderr both the terminal; no pager for the tall list (it would wait for q)
  const cli = [process.execPath, BIN, '--base-url', sb.baseUrl, '--no-pager', 'cars', '--city', 'la', '--all'].map(q).join(' ');
  const script = `while [ ! -e ${q(go)} ]; do sleep 0.02; done; env -i ${assignments} ${cli}; echo "EXIT:$?"; sleep 60`;
  tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '30', `sh -c ${q(script)}`);
  tmux('pipe-pane', '-t', name, '-o', `cat >> ${q(raw)}`);
  writeFileSync(go, '');
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = existsSync(raw) ? readFileSync(raw, 'utf8') : '';
    if (/EXIT:\d+/.test(text)) {
      tmux('kill-session', '-t', name);
      return text;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for carrental cars --all:\n${tmux('capture-pane', '-p', '-t', name)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(() => {
  assertBuilt();
  // an idle session keeps the tmux server up between panes (see tables.tmux.e2e.test.ts)
  tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
});
afterAll(() => tmux.stop());

// the spinner's test alone: it is drawn only if the command gets the CPU within the page's delay
it('a person: the spinner while the page is held back, then the page count, both redrawn in place', async ({ sb, home, expect }) => {
  const raw = await slowCars({ sb, home }, {});
  expect(raw).toContain('EXIT:0');
  expect(raw).toMatch(new RegExp(`\\r\\u001b\\[2K${FRAME.source} waiting for GET /cars`));
  expect(raw).toMatch(/\r\u001b\[2Kfetched \d+ of \d+ cars/);
  expect(raw).toMatch(/ALIAS +NAME/);
});

// no spinner to draw in time: these run at once, the page held back as long for each
describe.concurrent('without a spinner', () => {
  it.for([
    ['CARRENTAL_ACCESSIBLE=1', { CARRENTAL_ACCESSIBLE: '1' }],
    ['TERM=dumb', { TERM: 'dumb' }],
  ] as const)('%s: no spinner; the page count is a plain line', async ([_name, env], { sb, home, expect }) => {
    const raw = await slowCars({ sb, home }, env);
    expect(raw).toContain('EXIT:0');
    expect(raw).not.toMatch(FRAME);
    expect(raw).not.toContain('waiting for');
    expect(raw).not.toContain('\u001b[2K');
    // the terminal turns the line's \n into \r\n
    expect(raw).toMatch(/(^|\n)fetched (\d+) of \2 cars\r\n/);
  });

  it('AI_AGENT=1: no spinner and no progress at all', async ({ sb, home, expect }) => {
    const raw = await slowCars({ sb, home }, { AI_AGENT: '1' });
    expect(raw).toContain('EXIT:0');
    expect(raw).not.toMatch(FRAME);
    expect(raw).not.toContain('waiting for');
    expect(raw).not.toContain('fetched');
    // what a pipe gets: tab-separated lines, no header
    expect(raw).not.toMatch(/ALIAS +NAME/);
    expect(raw).toMatch(/^[a-z0-9-]+-\d+\t/m);
  });
});
