// Issue 27: no spinner in the accessible mode (CARRENTAL_ACCESSIBLE=1, TERM=dumb) nor for an
// AI agent, even on a terminal and with a request slow enough for one (the sandbox holds
// its answer longer than SPINNER_DELAY_MS). The same run with neither shows the spinner, so
// these tests would fail if the modes stopped turning it off. Progress (`cars --all`'s
// page count) comes as plain lines in the accessible mode, and not at all for an agent.
import { expect, it } from 'vitest';
import { SPINNER_DELAY_MS } from '../../src/render/spinner.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);

const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const LATENCY_MS = SPINNER_DELAY_MS + 400;

/** `cars --all` on a terminal (stdin too), its first page held back by the sandbox. */
async function slowCars(env: NodeJS.ProcessEnv) {
  await sb.fault({ kind: 'latency', operation: 'listCars', ms: LATENCY_MS, times: 1 });
  return runCommand(['--base-url', sb.baseUrl, 'cars', '--city', 'la', '--all'], { tty: true, stdinTty: true, env: home.env({ NO_COLOR: '1', ...env }) });
}

it('with no mode on, the slow request shows the spinner, then the page count redrawn in place', async () => {
  const r = await slowCars({});
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(new RegExp(`\\r\\u001b\\[2K${FRAME.source} waiting for GET /cars`));
  expect(r.stderr).toMatch(/\r\u001b\[2Kfetched \d+ of \d+ cars/);
});

it.each([
  ['CARRENTAL_ACCESSIBLE=1', { CARRENTAL_ACCESSIBLE: '1' }],
  ['TERM=dumb', { TERM: 'dumb' }],
])('%s: no spinner, and the progress as plain lines', async (_name, env) => {
  const r = await slowCars(env);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(FRAME);
  expect(r.stderr).not.toContain('waiting for');
  // nothing redrawn: no carriage return, no erase-line
  expect(r.stderr).not.toMatch(/[\r\u001b]/);
  expect(r.stderr).toMatch(/^fetched (\d+) of \1 cars\n$/);
  // the table itself is the terminal's
  expect(r.stdout).toMatch(/^ALIAS +NAME/);
});

it('AI_AGENT=1 on a terminal: no spinner and no progress, the output of a pipe', async () => {
  const agent = await slowCars({ AI_AGENT: '1' });
  expect(agent.code, agent.stderr).toBe(0);
  expect(agent.stderr).toBe('');
  await sb.fault({ kind: 'latency', operation: 'listCars', ms: LATENCY_MS, times: 1 });
  const piped = await runCommand(['--base-url', sb.baseUrl, 'cars', '--city', 'la', '--all'], { env: home.env() });
  expect(agent.stdout).toBe(piped.stdout);
  expect(agent.stdout).toContain('\t');
});
