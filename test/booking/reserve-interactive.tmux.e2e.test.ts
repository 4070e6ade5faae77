// An interactive `reserve` driven end to end in a real terminal: the built CLI runs in a
// tmux pane against a sandbox served from this process; the test types the answers
// (send-keys) and reads the screen (capture-pane). Needs tmux and `npm run build`.
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { freeCars, reservations, resetSandbox } from './sandbox.js';

// The CLI in the pane runs on this machine's clock (env -i: nothing pins it), so the sandbox
// does too and the trip is 11 days ahead of today: no date here ever falls in the past.
const day = (ahead: number) => `${new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const FROM = day(11);
const TO = day(14);
const DATES = { from: FROM, to: TO };
import { screenWhen, tmuxOn } from '../helpers/tmux.js';

const SOCKET = `carrental-test-${process.pid}`;
const SESSION = 'reserve';

let sb: RunningSandbox;
let home: TestHome;

const tmux = tmuxOn(SOCKET);
let session = SESSION;
const screen = () => tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-200');
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
/** Literal text (no key-name lookup), then nothing else. */
const type = (text: string) => tmux('send-keys', '-t', session, '-l', text);

const waitFor = (pattern: RegExp, timeoutMs = 15_000): Promise<string> => screenWhen(tmux, session, screen, (t) => pattern.test(t), `${pattern} on the screen`, timeoutMs);

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

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

it('prompts for city, dates, a free car and options, shows the quote, confirms and books', async () => {
  const [alias] = await freeCars(sb, 1, DATES);
  const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1', TERM: 'xterm-256color' });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(String(v))}`).join(' ');
  const command = `env -i ${assignments} ${shellQuote(process.execPath)} ${shellQuote(BIN)} --base-url ${shellQuote(sb.baseUrl)} reserve; echo "EXIT:$?"; sleep 60`;
  tmux('new-session', '-d', '-s', SESSION, '-x', '220', '-y', '60', command);

  await waitFor(/City/);
  keys('Enter'); // la, the default
  await waitFor(/Check-in \(YYYY-MM-DD HH:MM, or tomorrow 3pm, fri 10:00, \+3d; America\/Los_Angeles\)/);
  type(FROM.replace('T', ' '));
  keys('Enter');
  await waitFor(/Check-out/);
  type(TO.replace('T', ' '));
  keys('Enter');
  await waitFor(/Car \(\d+ available; type to filter\)/);
  type(alias);
  await waitFor(new RegExp(`\\(${alias}\\)`));
  keys('Enter');
  await waitFor(/Protection plan/);
  keys('Down', 'Enter'); // standard
  await waitFor(/Mileage/);
  keys('Enter'); // limited
  await waitFor(/Pickup or delivery/);
  keys('Enter'); // pickup
  const next = await waitFor(/Extras \(space to select|Promo code/);
  if (/Extras \(space to select/.test(next)) {
    keys('Space', 'Enter'); // the first extra
    await waitFor(/Promo code/);
  }
  keys('Enter'); // no promo
  const quote = await waitFor(/Reserve .* for \$[\d,]+\.\d\d \(plus a \$[\d,]+\.\d\d refundable deposit\)\?/);
  expect(quote).toMatch(new RegExp(`Quote for .+ \\(${alias}\\)`));
  expect(quote).toMatch(/Protection \(standard\)/);
  expect(quote).toMatch(/Refundable deposit/);
  type('y');
  keys('Enter');

  const done = await waitFor(/EXIT:\d+/, 20_000);
  expect(done).toContain('EXIT:0');
  const booked = await reservations(sb, alias, undefined, DATES);
  expect(booked).toHaveLength(1);
  expect(done).toMatch(new RegExp(`reservation\\s+${booked[0].uuid}`));
  expect(done).toContain(`carrental pay-link ${booked[0].uuid}`);
  // after prompts, the same reservation as one command
  expect(done).toMatch(new RegExp(`the same without prompts: carrental reserve ${alias} --from '${FROM.replace('T', ' ')}' --to '${TO.replace('T', ' ')}' --protection standard`));
}, 60_000);

it('in the accessible mode, completes by typing numbers and text only: numbered lists, nothing redrawn', async () => {
  await resetSandbox(sb);
  const [alias] = await freeCars(sb, 1, DATES);
  session = 'accessible';
  // a home of its own: the journal of the first test would replay its booking of the same car
  const own = new TestHome();
  onTestFinished(() => own.cleanup());
  const env = own.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1', TERM: 'xterm-256color', CARRENTAL_ACCESSIBLE: '1' });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(String(v))}`).join(' ');
  const command = `env -i ${assignments} ${shellQuote(process.execPath)} ${shellQuote(BIN)} --base-url ${shellQuote(sb.baseUrl)} reserve; echo "EXIT:$?"; sleep 60`;
  tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '60', command);
  // every answer is typed text and Enter: no arrow keys, no space bar
  const answer = (text: string) => {
    if (text) type(text);
    keys('Enter');
  };

  await waitFor(/City:\n {2}1\. la \(America\/Los_Angeles\)\n {2}2\. miami \(America\/New_York\)\nType a number from 1 to 2, or press Enter for 1: $/m);
  answer('1');
  await waitFor(/Check-in \(YYYY-MM-DD HH:MM, or tomorrow 3pm, fri 10:00, \+3d; America\/Los_Angeles\) \[Enter for [^\]]+\]: $/m);
  answer(FROM.replace('T', ' '));
  await waitFor(/Check-out .*: $/m);
  answer(TO.replace('T', ' '));
  await waitFor(/Car \(\d+ available; type to filter\):\n\d+ to choose from: type words to narrow the list/);
  answer(alias);
  await waitFor(new RegExp(`1 match "${alias}":\\n {2}1\\. .*\\(${alias}\\)`));
  answer('1');
  await waitFor(/Protection plan:\n {2}1\. minimum/);
  answer('2');
  await waitFor(/Mileage:\n {2}1\. limited/);
  answer('1');
  await waitFor(/Pickup or delivery:\n {2}1\. pickup/);
  answer('1');
  const next = await waitFor(/Type the numbers you want|Promo code/);
  if (/Type the numbers you want/.test(next)) {
    answer('1');
    await waitFor(/Promo code/);
  }
  answer('');
  const quote = await waitFor(/Reserve .* for \$[\d,]+\.\d\d \(plus a \$[\d,]+\.\d\d refundable deposit\)\? Type yes or no \(Enter for no\):/);
  expect(quote).toMatch(/Protection \(standard\)/);
  answer('yes');

  const done = await waitFor(/EXIT:\d+/, 20_000);
  expect(done).toContain('EXIT:0');
  const booked = await reservations(sb, alias, undefined, DATES);
  expect(booked).toHaveLength(1);
  expect(done).toMatch(new RegExp(`reservation\\s+${booked[0].uuid}`));
  // inquirer's pointer, checkbox marks and spinner frames never appear: nothing was drawn over
  expect(done).not.toMatch(/[❯◯◉⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
}, 60_000);
