// reserve and cancel against the sandbox with fault injection, in-process: a dropped
// connection after the commit, 409 operation_in_progress, 503 operation_outcome_unknown
// until retries run out, a rerun after success, a read_only key, and no -y in a pipe.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { runCommand } from '../helpers/cli.js';
import { FROM, SANDBOX_NOW, TO, admin, faults, requests, reservations, test as bookingTest } from './sandbox.js';

const noWait = async () => {};

const test = bookingTest
  /** Two write retries; sleeps are skipped unless `realSleep` (Retry-After must then really pass). */
  .extend('cli', async ({ sb, home }) => (args: string[], opts: { key?: string; env?: NodeJS.ProcessEnv; realSleep?: boolean } = {}) =>
    runCommand(['--base-url', sb.baseUrl, ...args], {
      env: home.env({ CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write, CARRENTAL_WRITE_RETRIES: '2', ...opts.env }),
      sleep: opts.realSleep ? undefined : noWait,
      now: () => SANDBOX_NOW,
    }),
  )
  .extend('reserveArgs', async ({ alias }) => () => ['reserve', alias, '--from', FROM, '--to', TO, '-y'])
  .extend('journal', async ({ home }) => () => new Journal({ path: join(home.dir, 'state', 'journal.json') }))
  /** Entries whose outcome is unknown (done ones are kept for the replay window). */
  .extend('unfinished', async ({ journal }) => async () => (await journal().list()).filter((e) => e.state === 'pending'))
  /** A reservation to cancel; the request log starts empty after it. */
  .extend('reserveOne', async ({ sb, cli, reserveArgs }) => async (): Promise<string> => {
    const r = await cli(reserveArgs());
    expect(r.code, r.stderr).toBe(0);
    await admin(sb, 'DELETE', '/requests');
    return r.stdout.trim();
  });

describe('reserve against the sandbox', () => {
  test('(a) connection dropped after the commit: the in-process retry returns the original uuid, one reservation', async ({ sb, alias, cli, reserveArgs, unfinished }) => {
    await faults(sb, { kind: 'drop', operation: 'createReservation', when: 'after_commit', times: 1 });
    const r = await cli(reserveArgs());
    expect(r.code, r.stderr).toBe(0);
    const created = await reservations(sb, alias);
    expect(created).toHaveLength(1);
    expect(r.stdout.trim()).toBe(created[0].uuid);
    const sent = await requests(sb, 'createReservation');
    expect(sent.map((q) => q.status)).toEqual([null, 200]);
    expect(sent[1]).toMatchObject({ replayed: true, idempotency_key: sent[0].idempotency_key });
    expect(await unfinished()).toEqual([]);
  });

  test('(c) 409 operation_in_progress (the first attempt timed out while the server still works) then success', async ({ sb, alias, cli, reserveArgs }) => {
    await faults(sb, { kind: 'latency', operation: 'createReservation', ms: 1500, when: 'before_commit', times: 1 });
    // real sleeps: Retry-After 2 must actually pass for the slow first attempt to finish
    const r = await cli(['--timeout', '0.5', ...reserveArgs()], { realSleep: true, env: { CARRENTAL_WRITE_RETRIES: '4' } });
    expect(r.code, r.stderr).toBe(0);
    const sent = await requests(sb, 'createReservation');
    expect(sent.some((q) => q.status === 409)).toBe(true);
    expect(sent.at(-1)).toMatchObject({ status: 200, replayed: true });
    expect(new Set(sent.map((q) => q.idempotency_key)).size).toBe(1);
    const created = await reservations(sb, alias);
    expect(created).toHaveLength(1);
    expect(r.stdout.trim()).toBe(created[0].uuid);
  }, 20_000);

  test('(d) 503 operation_outcome_unknown until retries run out: exit 6, entry kept, the rerun succeeds with the same key', async ({ sb, alias, cli, reserveArgs, unfinished }) => {
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    const r = await cli(reserveArgs());
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/rerunning the same command is safe/);
    const [entry] = await unfinished();
    expect(entry).toMatchObject({ operation: 'createReservation', target: alias, attempts: 3 });

    const again = await cli(reserveArgs());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming a pending reserve');
    const created = await reservations(sb, alias);
    expect(created).toHaveLength(1);
    expect(again.stdout.trim()).toBe(created[0].uuid);
    const sent = await requests(sb, 'createReservation');
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
    expect(await unfinished()).toEqual([]);
  });

  test('(f) after a success the same command within the replay window replays: the same uuid, one reservation; --new books again', async ({ sb, alias, cli, reserveArgs, unfinished }) => {
    const first = await cli(reserveArgs());
    expect(first.code, first.stderr).toBe(0);
    const second = await cli(reserveArgs());
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toContain(`already reserved by this same command 0 s ago: ${first.stdout.trim()}`);
    expect(second.stderr).toContain('--new books another');
    let sent = await requests(sb, 'createReservation');
    expect(sent.map((q) => q.replayed)).toEqual([false, true]);
    expect(sent[1].idempotency_key).toBe(sent[0].idempotency_key);
    expect(await reservations(sb, alias)).toHaveLength(1);

    const fresh = await cli([...reserveArgs(), '--new']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).not.toBe(first.stdout);
    sent = await requests(sb, 'createReservation');
    expect(sent.map((q) => q.replayed)).toEqual([false, true, false]);
    expect(sent[2].idempotency_key).not.toBe(sent[0].idempotency_key);
    expect(await reservations(sb, alias)).toHaveLength(2);
    expect(await unfinished()).toEqual([]);
  });

  test('(f) after the replay window the same command is a new command with a new key', async ({ sb, home, alias, cli, reserveArgs }) => {
    const first = await cli(reserveArgs(), { env: { CARRENTAL_REPLAY_WINDOW: '60' } });
    expect(first.code, first.stderr).toBe(0);
    const later = new Date(SANDBOX_NOW.getTime() + 61_000);
    const second = await runCommand(['--base-url', sb.baseUrl, ...reserveArgs()], {
      env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, CARRENTAL_REPLAY_WINDOW: '60' }),
      sleep: noWait,
      now: () => later,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('already reserved');
    expect(second.stdout).not.toBe(first.stdout);
    const sent = await requests(sb, 'createReservation');
    expect(sent.map((q) => q.replayed)).toEqual([false, false]);
    expect(await reservations(sb, alias)).toHaveLength(2);
  });

  test('a replay whose reservation was cancelled since says so, claims no booking and exits 5', async ({ sb, alias, cli, reserveArgs }) => {
    const first = await cli(reserveArgs());
    expect(first.code, first.stderr).toBe(0);
    const uuid = first.stdout.trim();
    expect((await cli(['cancel', uuid, '-y'])).code).toBe(0);

    const again = await cli(reserveArgs());
    expect(again.code).toBe(5);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(`error: reservation ${uuid}, made by this same command 0 s ago, has been cancelled since: nothing new was booked`);
    expect(again.stderr).toMatch(/hint: to book this car again, rerun the command with --new/);
    expect(again.stderr).not.toContain('pay-link');
    expect(await reservations(sb, alias)).toHaveLength(1);
    expect((await requests(sb, 'createReservation')).map((q) => q.replayed)).toEqual([false, true]);
  });

  test("another customer's key on the same profile neither resumes nor clears the first customer's pending reserve", async ({ sb, home, alias, cli, reserveArgs, unfinished }) => {
    await faults(sb, { kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    const r = await cli(reserveArgs());
    expect(r.code).toBe(6);
    const [danas] = await unfinished();

    const other = sb.keys.other_customer;
    const cleared = await runCommand(['--base-url', sb.baseUrl, 'pending', 'clear', '-y'], { now: () => SANDBOX_NOW, env: home.env({ CARRENTAL_API_KEY: other }) });
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stderr).toContain('dropped 0 pending commands of the current API key');
    const listed = await runCommand(['--base-url', sb.baseUrl, 'pending'], { now: () => SANDBOX_NOW, env: home.env({ CARRENTAL_API_KEY: other }) });
    expect(listed.stdout).toBe('');
    expect(listed.stderr).toContain('1 more pending command of other API keys or profiles');

    const again = await cli(reserveArgs());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming a pending reserve');
    expect(await reservations(sb, alias)).toHaveLength(1);
    const sent = await requests(sb, 'createReservation');
    expect(new Set(sent.map((q) => q.idempotency_key))).toEqual(new Set([danas.key]));
  });

  test('a read_only key: 403 with the settings page, exit 3, nothing pending, nothing booked', async ({ sb, alias, cli, reserveArgs, unfinished }) => {
    const r = await cli(reserveArgs(), { key: sb.keys.read_only });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('api_key_write_upgrade_required');
    expect(r.stderr).toMatch(new RegExp(`hint: .*booking_write.*${sb.appUrl.replace(/[/.]/g, '\\$&')}/\\S+`));
    expect(await unfinished()).toEqual([]);
    expect(await reservations(sb, alias)).toHaveLength(0);
  });

  test('no -y in a pipe: exit 2 and not a single request', async ({ sb, alias, cli }) => {
    const r = await cli(['reserve', alias, '--from', FROM, '--to', TO]);
    expect(r.code).toBe(2);
    expect(await requests(sb)).toEqual([]);
  });
});

describe('cancel against the sandbox', () => {
  test('(a) connection dropped after the commit: the retry returns OK, the outcome is shown', async ({ sb, alias, cli, reserveOne }) => {
    const uuid = await reserveOne();
    await faults(sb, { kind: 'drop', operation: 'cancelReservation', when: 'after_commit', times: 1 });
    const r = await cli(['cancel', uuid, '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/status\tcancelled/);
    const sent = await requests(sb, 'cancelReservation');
    expect(sent.map((q) => q.status)).toEqual([null, 200]);
    expect(sent[1]).toMatchObject({ replayed: true, idempotency_key: sent[0].idempotency_key });
    expect(await reservations(sb, alias, 'cancelled')).toHaveLength(1);
  });

  test('(c) 409 operation_in_progress then success', async ({ sb, cli, reserveOne }) => {
    const uuid = await reserveOne();
    await faults(sb, { kind: 'latency', operation: 'cancelReservation', ms: 1500, when: 'before_commit', times: 1 });
    const r = await cli(['--timeout', '0.5', 'cancel', uuid, '-y'], { realSleep: true, env: { CARRENTAL_WRITE_RETRIES: '4' } });
    expect(r.code, r.stderr).toBe(0);
    const sent = await requests(sb, 'cancelReservation');
    expect(sent.some((q) => q.status === 409)).toBe(true);
    expect(sent.at(-1)).toMatchObject({ status: 200, replayed: true });
    expect(new Set(sent.map((q) => q.idempotency_key)).size).toBe(1);
  }, 20_000);

  test('(d) 503 operation_outcome_unknown until retries run out: exit 6, entry kept, the rerun finishes with the same key', async ({ sb, cli, unfinished, reserveOne }) => {
    const uuid = await reserveOne();
    await faults(sb, { kind: 'error', operation: 'cancelReservation', code: 'operation_outcome_unknown', commit: true, times: 3 });
    const r = await cli(['cancel', uuid, '-y']);
    expect(r.code).toBe(6);
    const [entry] = await unfinished();
    expect(entry).toMatchObject({ operation: 'cancelReservation', target: uuid });
    // the server did cancel: a rerun must still send the DELETE with the same key, not shortcut
    const again = await cli(['cancel', uuid, '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming a pending cancel');
    const sent = await requests(sb, 'cancelReservation');
    expect(sent).toHaveLength(4);
    expect(sent.at(-1)).toMatchObject({ status: 200, replayed: true, idempotency_key: entry.key });
    expect(await unfinished()).toEqual([]);
  });

  test('(f) after a success the same command within the window replays the same key: exit 0, no second cancellation', async ({ sb, cli, reserveOne }) => {
    const uuid = await reserveOne();
    expect((await cli(['cancel', uuid, '-y'])).code).toBe(0);
    const again = await cli(['cancel', uuid, '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('already cancelled by this same command 0 s ago');
    expect(again.stdout).toMatch(/status\tcancelled/);
    const sent = await requests(sb, 'cancelReservation');
    expect(sent.map((q) => [q.status, q.replayed])).toEqual([
      [200, false],
      [200, true],
    ]);
  });

  test('(f) after the window, an already cancelled reservation: nothing is sent', async ({ sb, cli, reserveOne }) => {
    const uuid = await reserveOne();
    expect((await cli(['cancel', uuid, '-y'], { env: { CARRENTAL_REPLAY_WINDOW: '0' } })).code).toBe(0);
    const again = await cli(['cancel', uuid, '-y'], { env: { CARRENTAL_REPLAY_WINDOW: '0' } });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already cancelled: nothing was sent');
    expect(await requests(sb, 'cancelReservation')).toHaveLength(1);
  });

  test('a read_only key: exit 3 and nothing pending', async ({ sb, alias, cli, unfinished, reserveOne }) => {
    const uuid = await reserveOne();
    const r = await cli(['cancel', uuid, '-y'], { key: sb.keys.read_only });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('api_key_write_upgrade_required');
    expect(await unfinished()).toEqual([]);
    expect(await reservations(sb, alias, 'new')).toHaveLength(1);
  });

  test('no -y in a pipe: exit 2 and no request', async ({ sb, cli, reserveOne }) => {
    const uuid = await reserveOne();
    const r = await cli(['cancel', uuid]);
    expect(r.code).toBe(2);
    expect(await requests(sb)).toEqual([]);
  });
});
