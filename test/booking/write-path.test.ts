// The write path's promises that no other test looked at (found by mutation testing,
// docs/mutation-testing.md "Mutation testing"): a final 5xx keeps the key for the rerun, and
// what a person at a terminal sees while a create or cancel is retried or resumed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { describeFailure } from '../../src/booking/journaled-write.js';
import { Journal } from '../../src/store/journal.js';
import { runCommand } from '../helpers/cli.js';
import { ALIAS, FAKE_NOW, KEYS, test as fakeTest } from './fake-api.js';

const DATES = ['--from', '2026-12-01T10:00', '--to', '2026-12-04T10:00'];
const ESC = '\u001b';
const ERASE = `\r${ESC}[2K`;

const test = fakeTest
  /** What the command slept, in ms (unless a test gives it a sleep, they return at once). */
  .extend('sleeps', async () => [] as number[])
  .extend('cli', async ({ fake, home, sleeps }) => (args: string[], opts: { env?: NodeJS.ProcessEnv; tty?: boolean; sleep?: (ms: number) => Promise<void> } = {}) =>
    runCommand(['--base-url', fake.baseUrl, ...args], {
      now: FAKE_NOW,
      env: home.env({ CARRENTAL_API_KEY: KEYS.write, CARRENTAL_WRITE_RETRIES: '3', NO_COLOR: '1', ...opts.env }),
      sleep: opts.sleep ?? (async (ms) => void sleeps.push(ms)),
      tty: opts.tty,
    }),
  )
  .extend('journalPath', async ({ home }) => () => join(home.dir, 'state', 'journal.json'))
  .extend('journal', async ({ journalPath }) => () => new Journal({ path: journalPath() }))
  .extend('unfinished', async ({ journal }) => async () => (await journal().list()).filter((e) => e.state === 'pending'))
  .extend('keysSent', async ({ fake }) => (op: 'create' | 'cancel') => fake.requestsOf(op).map((q) => q.headers['idempotency-key']));

const boom = { status: 500, json: { error: 'boom' } };

describe('a final 5xx is not an answer', () => {
  test('a final 500 on create keeps the journal entry and a rerun reuses its key', async ({ fake, cli, unfinished, keysSent }) => {
    fake.fault('create', boom);
    const r = await cli(['reserve', ALIAS, ...DATES, '-y'], { env: { CARRENTAL_WRITE_RETRIES: '0' } });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('the outcome of this reserve is unknown: boom');
    const [entry] = await unfinished();
    expect(entry.key).toBe(keysSent('create')[0]);

    const again = await cli(['reserve', ALIAS, ...DATES, '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(keysSent('create')).toEqual([entry.key, entry.key]);
    expect(fake.reservations.size).toBe(1);
  });

  test('a final 500 on cancel keeps the journal entry and a rerun reuses its key', async ({ fake, cli, unfinished, keysSent }) => {
    const booked = fake.seed();
    fake.fault('cancel', boom);
    const r = await cli(['cancel', booked.uuid, '-y'], { env: { CARRENTAL_WRITE_RETRIES: '0' } });
    expect(r.code).toBe(6);
    const [entry] = await unfinished();
    expect(entry).toMatchObject({ operation: 'cancelReservation', key: keysSent('cancel')[0] });

    const again = await cli(['cancel', booked.uuid, '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(keysSent('cancel')).toEqual([entry.key, entry.key]);
  });

  test('a 4xx on create is the answer: the entry goes, and the rerun sends a new key', async ({ fake, cli, journal, keysSent }) => {
    fake.fault('create', { status: 422, json: { error: 'bad dates', error_code: 'invalid_dates' } });
    const r = await cli(['reserve', ALIAS, ...DATES, '-y']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: bad dates (invalid_dates');
    expect(fake.requestsOf('create')).toHaveLength(1);
    expect(await journal().list()).toEqual([]);
    expect((await cli(['reserve', ALIAS, ...DATES, '-y'])).code).toBe(0);
    const [first, second] = keysSent('create');
    expect(second).not.toBe(first);
  });
});

describe('on a terminal', () => {
  test('each retry shows a progress line naming the failure, the wait and the attempt, erased before the result', async ({ fake, sleeps, cli, keysSent }) => {
    fake.fault('create', boom, { status: 503, headers: { 'retry-after': '3' }, json: { error: 'down', error_code: 'operation_outcome_unknown' } });
    const r = await cli(['reserve', ALIAS, ...DATES, '-y'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${ERASE}HTTP 500: retrying the reserve with the same idempotency key in 1 s (attempt 2 of 4)`);
    expect(r.stderr).toContain(`${ERASE}HTTP 503 operation_outcome_unknown: retrying the reserve with the same idempotency key in 3 s (attempt 3 of 4)${ERASE}`);
    expect(sleeps[1]).toBe(3000);
    expect(new Set(keysSent('create')).size).toBe(1);
  });

  test('a dropped connection is named in the progress line', async ({ fake, cli }) => {
    fake.fault('create', { after: true, destroy: true });
    const r = await cli(['reserve', ALIAS, ...DATES, '-y'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\r\u001b\[2Kconnection failed \((UND_ERR_SOCKET|ECONNRESET)\): retrying the reserve with the same idempotency key in 1 s \(attempt 2 of 4\)/);
  });

  test('409 operation_in_progress shows that the same command is still running and when it asks again', async ({ fake, sleeps, cli }) => {
    fake.fault('cancel', { status: 409, headers: { 'retry-after': '2' }, json: { error: 'Operation in progress', error_code: 'operation_in_progress' } });
    const booked = fake.seed();
    const r = await cli(['cancel', booked.uuid, '-y'], { tty: true, env: { CARRENTAL_WRITE_RETRIES: '0' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `${ERASE}the same cancel is in progress (HTTP 409 operation_in_progress): asking again with the same idempotency key in 2 s${ERASE}`,
    );
    expect(sleeps).toEqual([2000]);
  });

  test('in a pipe there is no progress line at all', async ({ fake, cli }) => {
    fake.fault('create', boom);
    const r = await cli(['reserve', ALIAS, ...DATES, '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('retrying');
    expect(r.stderr).not.toContain(ESC);
  });

  test('the resume message says how old the pending command is and which key it reuses', async ({ fake, home, cli, unfinished }) => {
    fake.fault('create', boom);
    const first = await cli(['reserve', ALIAS, ...DATES, '-y'], { env: { CARRENTAL_WRITE_RETRIES: '0' } });
    expect(first.code).toBe(6);
    const [entry] = await unfinished();
    const later = new Date(Date.parse(entry.createdAt) + 5 * 60_000);
    const r = await runCommand(['--base-url', fake.baseUrl, 'reserve', ALIAS, ...DATES, '-y'], {
      env: home.env({ CARRENTAL_API_KEY: KEYS.write, NO_COLOR: '1' }),
      tty: true,
      now: () => later,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`resuming a pending reserve from 5 min ago with the same idempotency key (${entry.key})\n`);
    expect(r.stderr.match(/resuming a pending/g)).toHaveLength(1);
  });

  test('a replay within the window says what the earlier run got, and that --new books another', async ({ fake, home, cli, journal }) => {
    const first = await cli(['reserve', ALIAS, ...DATES, '-y']);
    expect(first.code).toBe(0);
    const uuid = first.stdout.trim();
    const [entry] = await journal().list();
    const r = await runCommand(['--base-url', fake.baseUrl, 'reserve', ALIAS, ...DATES, '-y'], {
      env: home.env({ CARRENTAL_API_KEY: KEYS.write, NO_COLOR: '1' }),
      tty: true,
      now: () => new Date(Date.parse(entry.doneAt!) + 2 * 60_000),
    });
    expect(r.code, r.stderr).toBe(0);
    // folded to the terminal's 120 columns: read as one line
    expect(r.stderr.replace(/\n/g, ' ')).toContain(`already reserved by this same command 2 min ago: ${uuid} (replaying idempotency key ${entry.key}; --new books another) `);
  });

  test("the journal's warnings reach the terminal: a corrupt journal is set aside and the reserve goes ahead", async ({ fake, home, cli, journalPath, journal }) => {
    mkdirSync(join(home.dir, 'state'), { recursive: true });
    writeFileSync(journalPath(), '{"version":2,"entries":[{"id":');
    const r = await cli(['reserve', ALIAS, ...DATES, '-y'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    // folded to the terminal's 120 columns, where the temp directory's length puts the breaks: read as one line
    expect(r.stderr.replace(/\n/g, ' ')).toMatch(new RegExp(`warning: the idempotency journal ${journalPath().replace(/[.]/g, '\\.')} is corrupt \\(not valid JSON: [^)]*\\); moved it to ${journalPath().replace(/[.]/g, '\\.')}\\.corrupt-`));
    expect(fake.reservations.size).toBe(1);
  });

  test('an entry cleared in another terminal while retrying: the next retry warns that a rerun would send a new key', async ({ fake, cli, journal }) => {
    fake.fault('create', boom, boom);
    let cleared = false;
    const r = await cli(['reserve', ALIAS, ...DATES, '-y'], {
      tty: true,
      sleep: async () => {
        if (!cleared) await journal().clear({ all: true });
        cleared = true;
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.replace(/\n/g, ' ')).toMatch(/warning: idempotency journal entry [0-9a-f]{12} is gone \(cleared or expired\); rerunning this command will send a new idempotency key /);
    expect(await journal().list()).toEqual([]);
  });
});

describe('describeFailure', () => {
  test('names a status with its error code, a timeout, and a failed connection with its code', () => {
    expect(describeFailure({ kind: 'status', status: 502 })).toBe('HTTP 502');
    expect(describeFailure({ kind: 'status', status: 503, errorCode: 'operation_outcome_unknown' })).toBe('HTTP 503 operation_outcome_unknown');
    expect(describeFailure({ kind: 'network', timedOut: true, code: 'UND_ERR_HEADERS_TIMEOUT' })).toBe('timed out');
    expect(describeFailure({ kind: 'network', timedOut: false, code: 'ECONNRESET' })).toBe('connection failed (ECONNRESET)');
    expect(describeFailure({ kind: 'network', timedOut: false })).toBe('connection failed');
  });
});
