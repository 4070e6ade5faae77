// Tables in a real terminal at 60, 120 and 160 columns: the built CLI runs in a tmux pane
// against a sandbox served from this process, and the test reads the screen (capture-pane -J
// joins the lines the terminal wrapped, so a line longer than the pane is a table that
// overflowed). Tables are borderless like gh's, one line per row, never wider than the
// terminal; uuids show as short prefixes, aliases and operation ids whole. Needs tmux and
// `npm run build`. Each pane is a Node start, a terminal and its reads: the narrowest width
// and a wide one here, every command at 60 and 80 columns in-process on a terminal of that
// width (width.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { screenWhen, tmuxOn, untilExit } from '../helpers/tmux.js';

const SOCKET = `carrental-tables-${process.pid}`;
const NOW = new Date('2026-11-20T18:00:00Z');

let sb: RunningSandbox;
let home: TestHome;
let trips: Array<{ uuid: string; car: { car_alias: string } }> = [];
let cars: Array<{ car_alias: string }> = [];
/** The invoices of trips[2]. */
let invoices: Array<{ id: string }> = [];
let session = 0;

const tmux = tmuxOn(SOCKET);
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `carrental <args>` in a pane `width` columns wide and returns the screen once it exits. */
async function screen(width: number, args: string[]): Promise<string> {
  const name = `t${++session}`;
  // the whole output is checked, not a pager's first page (the pager has its own test below)
  const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1', TERM: 'xterm-256color', CARRENTAL_PAGER: 'cat' });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(String(v))}`).join(' ');
  const cli = [process.execPath, BIN, '--base-url', sb.baseUrl, ...args].map(shellQuote).join(' ');
  tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', '50', `env -i ${assignments} ${cli}; echo "EXIT:$?"; sleep 60`);
  return untilExit(tmux, name, `carrental ${args.join(' ')}`);
}

/** A read of the sandbox, up front, before the panes; a 429 (a busy machine) is read again. */
async function read(path: string, withKey = true): Promise<unknown> {
  const get = () => fetch(`${sb.baseUrl}${path}`, withKey ? { headers: { authorization: `Bearer ${sb.keys.booking_write}` } } : {});
  let res = await get();
  for (let i = 0; res.status === 429 && i < 5; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    res = await get();
  }
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
  return res.json();
}

const tooWide = (text: string, width: number) => text.split('\n').filter((l) => [...l].length > width);

beforeAll(async () => {
  assertBuilt();
  // an idle session keeps the tmux server up between panes: killing the last session stops
  // the server, and the next pane would race its exit ("server exited unexpectedly")
  tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
  sb = await startSandbox({ now: () => NOW, quiet: true });
  home = new TestHome();
  const body = (await read('/my/trips')) as { data: { active: typeof trips; history: typeof trips } };
  trips = [...body.data.active, ...body.data.history];
  if (trips.length < 3) throw new Error('the sandbox fixtures hold fewer trips than this test needs');
  cars = ((await read('/cars?limit=20', false)) as { data: { cars: typeof cars } }).data.cars;
  invoices = (await read(`/my/reservation/${trips[2].uuid}/invoices`)) as typeof invoices;
  if (invoices.length === 0) throw new Error('the third trip of the fixtures has no invoices');
});

afterAll(async () => {
  tmux.stop();
  await sb?.close();
  home?.cleanup();
});

/** The line of `text` that starts with `id` (a short uuid or an alias), one per row. */
const rowOf = (text: string, id: string) => text.split('\n').filter((l) => l.startsWith(`${id} `));

describe.each([60, 120])('at %i columns', (width) => {
  it('trips: borderless, one line per trip with its short uuid, no line wider than the terminal', async () => {
    const text = await screen(width, ['trips']);
    expect(text).toContain('EXIT:0');
    expect(tooWide(text, width)).toEqual([]);
    expect(text).not.toMatch(/[│─┌└]/);
    for (const t of trips) {
      expect(rowOf(text, t.uuid.slice(0, 8))).toHaveLength(1);
      expect(text).not.toContain(t.uuid);
    }
    expect(text).toMatch(/^Active · times in America\/Los_Angeles$/m);
    expect(text).not.toMatch(/\d\d:\d\d America\//);
  }, 30_000);

  it('invoices <uuid> and trips <uuid>: one line per invoice, no line wider than the terminal', async () => {
    const uuid = trips[2].uuid;
    for (const args of [['invoices', uuid], ['trips', uuid]]) {
      const text = await screen(width, args);
      expect(text).toContain('EXIT:0');
      // notes and the financial summary's heading are folded to the width too
      expect(tooWide(text, width)).toEqual([]);
      // the invoice table, then the line items: each invoice's row in the first
      for (const inv of invoices) expect(rowOf(text, inv.id.slice(0, 8)).length).toBeGreaterThanOrEqual(1);
    }
  }, 30_000);

  it('cars: one line per car, every alias whole, no line wider than the terminal', async () => {
    const text = await screen(width, ['cars', '--limit', '20']);
    expect(text).toContain('EXIT:0');
    expect(tooWide(text, width)).toEqual([]);
    for (const car of cars) expect(rowOf(text, car.car_alias)).toHaveLength(1);
  }, 30_000);

  it('doctor: one line per operation, every operation id whole, no line wider than the terminal', async () => {
    const text = await screen(width, ['doctor']);
    expect(tooWide(text, width)).toEqual([]);
    for (const op of ['listCars', 'getCar', 'listTrips', 'getReservation', 'cancelReservation']) expect(text).toMatch(new RegExp(`^${op}( |\\*)`, 'm'));
  }, 30_000);
});

describe.each([60])('headings and notes at %i columns', (width) => {
  it('car <alias>, quote, status and cars --from: titles, descriptions and notes folded, nothing wider than the terminal', async () => {
    const alias = cars.find((c) => c.car_alias.startsWith('tesla-cybertruck'))?.car_alias ?? cars[0].car_alias;
    for (const args of [['car', alias], ['quote', alias, '--from', '2026-12-01 10:00', '--days', '3'], ['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '3', '--limit', '3']]) {
      const text = await screen(width, args);
      expect(text, args.join(' ')).toContain('EXIT:0');
      expect(tooWide(text, width), args.join(' ')).toEqual([]);
    }
    // a `next:` command stays whole on its line, to be copied (alone under its label when the
    // terminal is too narrow for both): every other line fits
    const status = await screen(width, ['status']);
    expect(tooWide(status.split('\n').filter((l) => !/^ *(?:next: )?carrental /.test(l)).join('\n'), width)).toEqual([]);
    for (const t of trips.filter((t) => status.includes(t.uuid))) expect(status).toMatch(new RegExp(`^${t.uuid} `, 'm'));
  }, 60_000);
});

it('at 160 columns each trip is one line holding both dates and the amounts; --wide shows the uuid whole', async () => {
  const text = await screen(160, ['trips']);
  for (const t of trips) expect(rowOf(text, t.uuid.slice(0, 8))[0]).toMatch(/ \d{4}-\d\d-\d\d \d\d:\d\d  \d{4}-\d\d-\d\d \d\d:\d\d .*\$/);
  const wide = await screen(160, ['trips', '--wide']);
  for (const t of trips) expect(rowOf(wide, t.uuid)).toHaveLength(1);
}, 30_000);

it('doctor at 120 columns: each column as wide as its content needs, the request whole', async () => {
  const text = await screen(120, ['doctor']);
  expect(text).toMatch(/^getReservation +GET \/my\/reservation\/\{uuid\} +phase/m);
}, 30_000);

it('a list taller than the terminal opens in less (-FRX), which shows the "…" of a cut name, and q ends it', async () => {
  const name = `t${++session}`;
  // no LANG: less would take "…" for three unprintable bytes without the LESSCHARSET carrental sets
  const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, NO_COLOR: '1', TERM: 'xterm-256color' });
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(String(v))}`).join(' ');
  const cli = [process.execPath, BIN, '--base-url', sb.baseUrl, 'cars', '--limit', '40'].map(shellQuote).join(' ');
  tmux('new-session', '-d', '-s', name, '-x', '80', '-y', '20', `env -i ${assignments} ${cli}; echo "EXIT:$?"; sleep 60`);
  const capture = () => tmux('capture-pane', '-p', '-t', name).replace(/\s+$/gm, '');
  const waitFor = (pattern: RegExp) => screenWhen(tmux, name, capture, (t) => pattern.test(t), String(pattern));
  // less's prompt on the last line, the table's first page above it
  const paged = await waitFor(/^:$/m);
  expect(paged).toMatch(/^ALIAS +NAME/m);
  expect(paged).toContain('…');
  expect(paged).not.toMatch(/<E2>|<80>/);
  expect(paged).not.toContain('EXIT:');
  tmux('send-keys', '-t', name, 'q');
  expect(await waitFor(/EXIT:\d+/)).toContain('EXIT:0');
  tmux('kill-session', '-t', name);
}, 30_000);
