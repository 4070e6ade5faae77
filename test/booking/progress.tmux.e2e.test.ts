// Progress lines in a real terminal at 60 and 80 columns: the built CLI runs in a tmux pane
// against a sandbox served from this process while the test pays the rent (or lets a fault
// pass); once the command ends, the screen holds no progress row. A progress line longer
// than the terminal used to wrap, and `\r\e[2K` erased only its last row, so every poll left
// the rest behind. Needs tmux and `npm run build`. The tests run at once, each in its own
// pane against its own sandbox: most of their time is the commands' 5 s polls.
import { afterAll, beforeAll, describe } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { withSandboxAndHome } from '../helpers/sandbox-fixtures.js';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { admin, faults, freeCars } from './sandbox.js';

// The CLI in a pane runs on this machine's clock (env -i: nothing pins it), so the sandbox
// does too and the trip is 11 days ahead of today: no date here ever falls in the past.
const day = (ahead: number) => `${new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const FROM = day(11);
const TO = day(14);
const DATES = { from: FROM, to: TO };
import { screenWhen, tmuxOn } from '../helpers/tmux.js';

const SOCKET = `carrental-progress-${process.pid}`;
let session = 0;

/** A test's own sandbox (on this machine's clock) and home. */
interface Setup {
  sb: RunningSandbox;
  home: TestHome;
}

const test = withSandboxAndHome();

const tmux = tmuxOn(SOCKET);
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const env = ({ sb, home }: Setup) => home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1', TERM: 'xterm-256color' });

/**
 * Runs `carrental <args>` in a pane `width` columns wide; once `progress` shows on the
 * screen (its wrapped lines joined, so a link wider than the pane is matched whole), runs
 * `then` (the customer pays); returns the screen, as the rows show it, after the command exits.
 */
async function pane(setup: Setup, width: number, args: string[], progress: RegExp, then: () => Promise<unknown> = async () => {}): Promise<string> {
  const name = `p${++session}`;
  const assignments = Object.entries(env(setup)).map(([k, v]) => `${k}=${shellQuote(String(v))}`).join(' ');
  const cli = [process.execPath, BIN, '--base-url', setup.sb.baseUrl, ...args].map(shellQuote).join(' ');
  tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', '40', `env -i ${assignments} ${cli}; echo "EXIT:$?"; sleep 60`);
  // generous: on a loaded machine (a load of 20 on 2 cores) each node start takes seconds
  const deadline = Date.now() + 75_000;
  const what = `carrental ${args.join(' ')}`;
  // its wrapped lines joined, for the progress; as the rows show it, for the end
  const joined = await screenWhen(tmux, name, () => tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-200'), (t) => /EXIT:\d+/.test(t) || progress.test(t), what, deadline - Date.now());
  if (/EXIT:\d+/.test(joined)) throw new Error(`${what} ended before its progress showed:\n${joined}`);
  await then();
  const text = await screenWhen(tmux, name, () => tmux('capture-pane', '-p', '-t', name, '-S', '-200'), (t) => /EXIT:\d+/.test(t), what, deadline - Date.now());
  tmux('kill-session', '-t', name);
  return text.replace(/\s+$/gm, '');
}

/** A fresh unpaid reservation of the cheapest free car. */
async function reserve(setup: Setup): Promise<string> {
  const [alias] = await freeCars(setup.sb, 1, DATES);
  const r = await runCommand(['--base-url', setup.sb.baseUrl, 'reserve', alias, '--from', FROM, '--to', TO, '-y'], { env: env(setup) });
  if (r.code !== 0) throw new Error(`reserve exited ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The payment link, alone on its line (printAction), as the command prints it once the API made it. */
const LINK_LINE = /^https?:\/\/\S+$/m;
const pay = (sb: RunningSandbox, uuid: string) => admin(sb, 'POST', '/pay', { reservation_uuid: uuid, payment_type: 'rent' });

beforeAll(() => {
  assertBuilt();
  tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
});
afterAll(() => tmux.stop());

describe.concurrent.each([60, 80])('at %i columns', (width) => {
  test('pay-link --wait: the waiting line is cut to the width and gone once paid', async ({ sb, home, expect }) => {
    const uuid = await reserve({ sb, home });
    // a slow link request, as on a loaded machine: the request spinner says "waiting for"
    // a second before the link exists (paying then made the command exit 5)
    await faults(sb, { kind: 'latency', operation: 'paymentLink', ms: 1_500, times: 1 });
    // paid once the link is on the screen, not on "waiting for": the request spinner says
    // that too when a request takes over 500 ms (a loaded machine), before the link exists
    const text = await pane({ sb, home }, width, ['pay-link', uuid, '--wait'], LINK_LINE, () => pay(sb, uuid));
    expect(text).toContain('EXIT:0');
    expect(text).toContain(`settled: reservation ${uuid}`);
    expect(text).not.toMatch(/waiting for|Ctrl-C to stop|checked \d/);
  }, 150_000);

  test('trips --watch: the watching line is cut to the width and gone once the payment changes', async ({ sb, home, expect }) => {
    const uuid = await reserve({ sb, home });
    const text = await pane({ sb, home }, width, ['trips', uuid, '--watch'], /watching /, () => pay(sb, uuid));
    expect(text).toContain('EXIT:0');
    expect(text).not.toMatch(/watching |next in \d|Ctrl-C to stop/);
  }, 150_000);

  test('a retried reserve: the retry lines are cut to the width and gone once it books', async ({ sb, home, expect }) => {
    const [alias] = await freeCars(sb, 1, DATES);
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'internal_error', times: 2 });
    const text = await pane({ sb, home }, width, ['reserve', alias, '--from', FROM, '--to', TO, '-y'], /retrying/);
    expect(text).toContain('EXIT:0');
    expect(text).toMatch(/^reservation +[0-9a-f]{8}-[0-9a-f-]{27}$/m);
    expect(text).not.toMatch(/retrying|idempotency key in|attempt \d/);
  }, 150_000);
});
