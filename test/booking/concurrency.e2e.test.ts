// Black box: the built CLI against a spawned `carrental sandbox serve --port 0`, as a user
// (or an agent) would run it. N identical reserves started at once must make exactly one
// reservation and all print its uuid; N identical cancels must all succeed; a CLI killed
// right after the server answered must, on rerun, print the original result. Reservations
// are counted on the server through its admin API. Needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';

interface Served {
  proc: ChildProcess;
  baseUrl: string;
  adminUrl: string;
  key: string;
}

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let server: Served;
let serverHome: TestHome;
let home: TestHome;
const running: ChildProcess[] = [];

/** Starts `carrental sandbox serve --port 0` and reads its base URL and demo key from its output. */
async function serve(): Promise<Served> {
  const proc = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0'], {
    env: serverHome.env({ NO_COLOR: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let baseUrl: string | undefined;
  let key: string | undefined;
  const lines = createInterface({ input: proc.stdout! });
  for await (const line of lines) {
    const [label, value] = line.split('\t');
    if (label === 'Base URL') baseUrl = value;
    if (label === 'Key booking_write') key = value;
    if (baseUrl && key) break;
  }
  if (!baseUrl || !key) throw new Error('sandbox serve printed no base URL or key');
  proc.stdout!.resume();
  return { proc, baseUrl, adminUrl: baseUrl.replace(/\/v1$/, '/__sandbox'), key };
}

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.adminUrl}${path}`, {
    method,
    // the sandbox takes a state change only as JSON (what a cross-site page cannot send)
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function carrental(args: string[], env: NodeJS.ProcessEnv = {}): { proc: ChildProcess; done: Promise<Result> } {
  const proc = spawn(process.execPath, [BIN, '--base-url', server.baseUrl, ...args], {
    env: home.env({ CARRENTAL_API_KEY: server.key, NO_COLOR: '1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Result>((resolve) => proc.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { proc, done };
}

/** Car-local YYYY-MM-DDTHH:MM, `days` from today at 10:00: always in the future, inside opening hours. */
function day(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.toISOString().slice(0, 10)}T10:00`;
}

let from: string;
let to: string;
let alias: string;

/** The demo customer's reservations of this car for these dates, as the server has them. */
async function reservations(status?: string) {
  const res = await admin<{ reservations: Array<{ uuid: string; status: string; car_alias: string; date_checkin: string; date_checkout: string }> }>(
    'GET',
    `/reservations?customer=dana${status ? `&status=${status}` : ''}`,
  );
  return res.reservations.filter((r) => r.car_alias === alias && r.date_checkin === from && r.date_checkout === to);
}

async function requests(operation: string) {
  const res = await admin<{ requests: Array<{ operation: string | null; status: number | null; replayed: boolean; idempotency_key: string | null }> }>('GET', '/requests');
  return res.requests.filter((r) => r.operation === operation);
}

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const reserveArgs = () => ['reserve', alias, '--from', from, '--to', to, '-y'];

beforeAll(async () => {
  assertBuilt();
  serverHome = new TestHome();
  server = await serve();
}, 30_000);

afterAll(async () => {
  if (server) {
    const exited = new Promise((r) => server.proc.on('close', r));
    server.proc.kill('SIGTERM');
    await exited;
  }
  serverHome?.cleanup();
});

let trip = 0;
beforeEach(async () => {
  home = new TestHome();
  // The seeded world again (the demo customer may hold only a few active reservations),
  // and dates of its own for every test.
  await admin('POST', '/reset', {});
  trip += 1;
  from = day(20 + trip * 4);
  to = day(22 + trip * 4);
  const res = await fetch(`${server.baseUrl}/cars?city=la&date_from=${from}&date_to=${to}&limit=50&order_by=price_asc`);
  const cars = ((await res.json()) as { data: { cars: Array<{ car_alias: string; is_available: boolean }> } }).data.cars;
  alias = cars.find((c) => c.is_available)!.car_alias;
  await admin('DELETE', '/requests');
});

afterEach(async () => {
  for (const proc of running.splice(0)) {
    if (proc.exitCode === null && proc.signalCode === null) {
      const closed = new Promise((r) => proc.on('close', r));
      proc.kill('SIGKILL');
      await closed;
    }
  }
  home.cleanup();
});

describe('identical commands started at once (same HOME, same key)', () => {
  // two (a double click, a retried job) and ten (more than the journal lock's waiters ever
  // met in use); five, between them, ran the same path and was dropped for the suite's time
  for (const n of [2, 10]) {
    it(`${n} reserves: exactly one reservation on the server, every one exits 0 and prints its uuid`, async () => {
      const results = await Promise.all(Array.from({ length: n }, () => carrental(reserveArgs()).done));
      const created = await reservations();
      expect(created, JSON.stringify(results.map((r) => r.stderr))).toHaveLength(1);
      for (const r of results) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(`${created[0].uuid}\n`);
      }
      const sent = await requests('createReservation');
      expect(new Set(sent.map((q) => q.idempotency_key)).size).toBe(1);
      expect(sent.filter((q) => q.status === 200 && !q.replayed)).toHaveLength(1);
    }, 90_000);
  }

  it('5 cancels of one reservation: all exit 0, one cancellation', async () => {
    const made = await carrental(reserveArgs()).done;
    expect(made.code, made.stderr).toBe(0);
    const uuid = made.stdout.trim();
    await admin('DELETE', '/requests');

    const results = await Promise.all(Array.from({ length: 5 }, () => carrental(['cancel', uuid, '-y']).done));
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/status\tcancelled/);
    }
    expect(await reservations('cancelled')).toHaveLength(1);
    const sent = await requests('cancelReservation');
    expect(sent.filter((q) => q.status === 200 && !q.replayed)).toHaveLength(1);
    expect(sent.filter((q) => q.status !== 200 && q.status !== 409)).toEqual([]);
    expect(new Set(sent.map((q) => q.idempotency_key)).size).toBe(1);
  }, 90_000);
});

describe('SIGKILL right after the server answered, before anything was printed', () => {
  it('reserve: the rerun prints the original uuid; one reservation', async () => {
    const marker = join(home.dir, 'answered');
    const first = carrental(reserveArgs(), { CARRENTAL_TEST_PAUSE_AFTER_ANSWER: marker });
    await until('the answer to arrive', () => existsSync(marker));
    first.proc.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('');
    const [made] = await reservations();
    expect(made).toBeDefined();

    const again = await carrental(reserveArgs()).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`${made.uuid}\n`);
    expect(await reservations()).toHaveLength(1);
    const sent = await requests('createReservation');
    expect(sent.map((q) => [q.status, q.replayed])).toEqual([
      [200, false],
      [200, true],
    ]);
    expect(sent[1].idempotency_key).toBe(sent[0].idempotency_key);
  }, 60_000);

  it('cancel: the rerun prints the cancellation, exit 0; cancelled once', async () => {
    const made = await carrental(reserveArgs()).done;
    const uuid = made.stdout.trim();
    await admin('DELETE', '/requests');
    const marker = join(home.dir, 'answered');
    const first = carrental(['cancel', uuid, '-y'], { CARRENTAL_TEST_PAUSE_AFTER_ANSWER: marker });
    await until('the answer to arrive', () => existsSync(marker));
    first.proc.kill('SIGKILL');
    expect((await first.done).stdout).toBe('');

    const again = await carrental(['cancel', uuid, '-y']).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/status\tcancelled/);
    const sent = await requests('cancelReservation');
    expect(sent.map((q) => [q.status, q.replayed])).toEqual([
      [200, false],
      [200, true],
    ]);
  }, 60_000);
});
