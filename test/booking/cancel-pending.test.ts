// `cancel` and `pending` in-process against the stateful fake.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { PassThrough } from 'node:stream';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { FakeOut, runCommand } from '../helpers/cli.js';
import { ALIAS, FAKE_NOW, KEYS, test as fakeTest } from './fake-api.js';

const unknown = { status: 503, headers: { 'retry-after': '1' }, json: { error: 'The outcome of the operation is unknown', error_code: 'operation_outcome_unknown' } };

const test = fakeTest
  .extend('cli', async ({ fake, home }) => (args: string[], opts: { key?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}) =>
    runCommand(['--base-url', fake.baseUrl, ...args], {
      env: home.env({ CARRENTAL_API_KEY: opts.key ?? KEYS.write, CARRENTAL_WRITE_RETRIES: '2', ...opts.env }),
      now: FAKE_NOW,
      sleep: async () => {},
      signal: opts.signal,
    }),
  )
  .extend('journal', async ({ home }) => () => new Journal({ path: join(home.dir, 'state', 'journal.json') }))
  /** Entries whose outcome is unknown (done ones are kept for the replay window). */
  .extend('unfinished', async ({ journal }) => async () => (await journal().list()).filter((e) => e.state === 'pending'))
  /** A reserve and a cancel (on the profile `work`) whose outcomes are unknown; returns the cancelled reservation's uuid. */
  .extend('leavePending', async ({ fake, cli }) => async () => {
    fake.fault('create', { ...unknown, after: true }, unknown, unknown);
    const r = await cli(['reserve', ALIAS, '--from', '2026-12-01T10:00', '--to', '2026-12-04T10:00', '--extra', 'child_seat', '--protection', 'standard', '-y']);
    expect(r.code).toBe(6);
    const seeded = fake.seed();
    Object.assign(seeded, { from: '2027-01-10T10:00', to: '2027-01-12T10:00' });
    fake.fault('cancel', unknown, unknown, unknown);
    const c = await cli(['--profile', 'work', 'cancel', seeded.uuid, '-y']);
    expect(c.code).toBe(6);
    return seeded.uuid;
  });

describe('cancel', () => {
  test('refuses in a pipe without -y: exit 2 and no request', async ({ fake, cli }) => {
    const r = fake.seed();
    const res = await cli(['cancel', r.uuid]);
    expect(res.code).toBe(2);
    expect(fake.requests).toHaveLength(0);
  });

  test('shows what is cancelled, sends DELETE with a key, then prints the cancellation outcome', async ({ fake, cli, unfinished }) => {
    const r = fake.seed();
    const res = await cli(['cancel', r.uuid, '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('2026-12-01 10:00 America/Los_Angeles');
    expect(res.stderr).toContain('a cancellation fee may apply');
    const [del] = fake.requestsOf('cancel');
    expect(String(del.headers['idempotency-key'])).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.stdout).toMatch(/status\tcancelled/);
    expect(res.stdout).toMatch(/refund review\tpending/);
    expect(fake.requestsOf('reservation')).toHaveLength(2);
    expect(r.status).toBe('cancelled');
    expect(await unfinished()).toEqual([]);
  });

  test('--json prints the reservation read after the cancel, as the server sent it', async ({ fake, cli }) => {
    const r = fake.seed();
    const res = await cli(['cancel', r.uuid, '-y', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const payload = JSON.parse(res.stdout);
    expect(payload).toMatchObject({ uuid: r.uuid, status: 'cancelled', cancellation_outcome: { status: 'cancelled' }, server_extra_field: 'kept' });
  });

  test('an already cancelled reservation: nothing is sent, the outcome is shown, exit 0', async ({ fake, cli }) => {
    const r = fake.seed('cancelled');
    const res = await cli(['cancel', r.uuid, '-y']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('already cancelled: nothing was sent');
    expect(fake.requestsOf('cancel')).toHaveLength(0);
  });

  test('404 is exit 4 before any DELETE', async ({ fake, cli }) => {
    const res = await cli(['cancel', '6f1c1d7e-1111-4222-8333-444455556666', '-y']);
    expect(res.code).toBe(4);
    expect(fake.requestsOf('cancel')).toHaveLength(0);
  });

  test('a read_only key: 403 upgrade message, exit 3, nothing pending', async ({ fake, cli, unfinished }) => {
    const r = fake.seed();
    const res = await cli(['cancel', r.uuid, '-y'], { key: KEYS.readOnly });
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('api_key_write_upgrade_required');
    expect(res.stderr).toContain('https://app.example.test/settings/api-keys');
    expect(await unfinished()).toEqual([]);
    expect(r.status).toBe('new');
  });

  test('a dropped connection after the commit: the retry returns OK under the same key', async ({ fake, cli }) => {
    const r = fake.seed();
    fake.fault('cancel', { after: true, destroy: true });
    const res = await cli(['cancel', r.uuid, '-y']);
    expect(res.code, res.stderr).toBe(0);
    const keys = fake.requestsOf('cancel').map((q) => q.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  test('409 operation_in_progress then success', async ({ fake, cli }) => {
    const r = fake.seed();
    fake.fault('cancel', { status: 409, headers: { 'retry-after': '2' }, json: { error: 'Operation in progress', error_code: 'operation_in_progress' } });
    const res = await cli(['cancel', r.uuid, '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(fake.requestsOf('cancel')).toHaveLength(2);
  });

  test('503 operation_outcome_unknown until retries run out: exit 6, entry kept; the rerun resumes the same key even though it now reads cancelled', async ({ fake, cli, unfinished }) => {
    const r = fake.seed();
    fake.fault('cancel', { ...unknown, after: true }, unknown, unknown);
    const res = await cli(['cancel', r.uuid, '-y']);
    expect(res.code).toBe(6);
    expect(res.stderr).toContain('the outcome of this cancel is unknown');
    const [entry] = await unfinished();
    expect(entry).toMatchObject({ operation: 'cancelReservation', target: r.uuid, request: { uuid: r.uuid } });

    const again = await cli(['cancel', r.uuid, '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming a pending cancel from \d+ s ago/);
    expect(fake.requestsOf('cancel').at(-1)!.headers['idempotency-key']).toBe(entry.key);
    expect(await unfinished()).toEqual([]);
  });
});

describe('pending', () => {

  test('lists nothing when nothing is pending', async ({ home }) => {
    const r = await runCommand(['pending'], { now: FAKE_NOW, env: home.env({ CARRENTAL_API_KEY: KEYS.write }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no pending');
    const json = await runCommand(['pending', 'list', '--json'], { now: FAKE_NOW, env: home.env() });
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  test('lists operation, target, key, age and the command that finishes each one', async ({ fake, home, journal, leavePending }) => {
    const uuid = await leavePending();
    const entries = await journal().list();
    const r = await runCommand(['pending'], { now: FAKE_NOW, env: home.env({ CARRENTAL_API_KEY: KEYS.write }) });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(lines).toHaveLength(2);
    expect(lines[0].slice(0, 4)).toEqual(['reserve', ALIAS, 'default', entries[0].key]);
    expect(lines[0][5]).toBe('pending');
    expect(lines[0][6]).toBe(`carrental --base-url ${fake.baseUrl} reserve ${ALIAS} --from 2026-12-01T10:00 --to 2026-12-04T10:00 --protection standard --extra child_seat`);
    expect(lines[1].slice(0, 3)).toEqual(['cancel', uuid, 'work']);
    expect(lines[1][6]).toBe(`carrental --base-url ${fake.baseUrl} --profile work cancel ${uuid}`);

    const json = JSON.parse((await runCommand(['pending', '--json'], { now: FAKE_NOW, env: home.env({ CARRENTAL_API_KEY: KEYS.write }) })).stdout);
    expect(json).toHaveLength(2);
    expect(json[0]).toMatchObject({ operation: 'createReservation', key: entries[0].key, expired: false, attempts: 3 });
  });

  test('on a terminal: a table, then the numbered commands that finish each one', async ({ fake, home, leavePending }) => {
    const uuid = await leavePending();
    const r = await runCommand(['pending'], { now: FAKE_NOW, env: home.env({ NO_COLOR: '1', CARRENTAL_API_KEY: KEYS.write }), tty: true });
    expect(r.code).toBe(0);
    // plain columns at 120: a boxed table would not fit without cutting the uuid or the key
    expect(r.stdout).toMatch(/^ *1  reserve\s+tesla-model-3-la-001\s+default/m);
    expect(r.stdout).toContain('To finish one, rerun the same command');
    expect(r.stdout).toContain(`  2. carrental --base-url ${fake.baseUrl} --profile work cancel ${uuid}\n`);
  });

  test('the listed command really finishes the pending reserve', async ({ fake, home, unfinished, leavePending }) => {
    await leavePending();
    const [entry] = await unfinished();
    const json = JSON.parse((await runCommand(['pending', '--json'], { now: FAKE_NOW, env: home.env({ CARRENTAL_API_KEY: KEYS.write }) })).stdout) as Array<{ rerun: string }>;
    const argv = json[0].rerun.split(' ').slice(1);
    const r = await runCommand([...argv, '-y'], { now: FAKE_NOW, env: home.env({ CARRENTAL_API_KEY: KEYS.write }), sleep: async () => {} });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requestsOf('create').at(-1)!.headers['idempotency-key']).toBe(entry.key);
    const created = [...fake.reservations.values()].filter((x) => x.from === '2026-12-01T10:00');
    expect(created).toHaveLength(1);
    expect(r.stdout.trim()).toBe(created[0].uuid);
    expect((await unfinished()).map((e) => e.operation)).toEqual(['cancelReservation']);
  });

  test('clear asks first: in a pipe it needs -y and drops nothing without it', async ({ home, unfinished, leavePending }) => {
    await leavePending();
    const env = home.env({ CARRENTAL_API_KEY: KEYS.write });
    const refused = await runCommand(['pending', 'clear'], { now: FAKE_NOW, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pending clear needs a confirmation and this is not a terminal: pass -y (--yes) to confirm');
    expect(refused.stderr).toContain('nothing was dropped');
    expect(await unfinished()).toHaveLength(2);
  });

  test('clear on a terminal asks, and a no keeps everything', async ({ home, unfinished, leavePending }) => {
    await leavePending();
    const env = home.env({ CARRENTAL_API_KEY: KEYS.write, NO_COLOR: '1' });
    const no = await runCommand(['pending', 'clear'], { now: FAKE_NOW, env, tty: true, stdinTty: true, stdin: 'n\n' });
    expect(no.code).toBe(1);
    expect(no.stdout + no.stderr).toContain('Drop 2 pending commands of the current API key?');
    expect(no.stderr).toContain('nothing was dropped');
    expect(await unfinished()).toHaveLength(2);
  });

  test("clear -y drops the current key's commands only; --all drops everything", async ({ home, unfinished, leavePending }) => {
    await leavePending();
    const other = await runCommand(['pending', 'clear', '-y'], { now: FAKE_NOW, env: home.env({ CARRENTAL_API_KEY: KEYS.readOnly }) });
    expect(other.code).toBe(0);
    expect(other.stderr).toContain('dropped 0 pending commands of the current API key');
    expect(await unfinished()).toHaveLength(2);

    const r = await runCommand(['pending', 'clear', '-y'], { now: FAKE_NOW, env: home.env({ CARRENTAL_API_KEY: KEYS.write }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('dropped 2 pending commands of the current API key');
    expect(r.stderr).toContain('outcome stays unknown');
    expect(await unfinished()).toEqual([]);

    await leavePending();
    const all = await runCommand(['pending', 'clear', '--all', '--json', '-y'], { now: FAKE_NOW, env: home.env() });
    expect(JSON.parse(all.stdout)).toEqual({ cleared: 2 });
    expect(await unfinished()).toEqual([]);
  });
});

describe('a confirmation', () => {
  test('asks again on an answer that is neither yes nor no, instead of taking it as no', async ({ fake, home }) => {
    const seeded = fake.seed();
    const stdout = new FakeOut(true);
    const stderr = new FakeOut(true);
    // inquirer ends the stream its prompt drew on unless it is the process's own, as this one stands for
    Object.assign(stdout, { _isStdio: true });
    const stdin = new PassThrough() as unknown as InStream;
    stdin.isTTY = true;
    const typed = stdin as unknown as PassThrough;
    // the second answer is typed once the first was refused, as a person would
    const watch = setInterval(() => {
      if (stdout.text().includes('answer y (yes) or n (no)')) {
        clearInterval(watch);
        typed.write('yes\n');
      }
    }, 10);
    typed.write('yrs\n');
    const env = home.env({ CARRENTAL_API_KEY: KEYS.write, NO_COLOR: '1' });
    const code = await runCli(['--base-url', fake.baseUrl, 'cancel', seeded.uuid], { env, io: { stdin, stdout, stderr }, sleep: async () => {} });
    clearInterval(watch);
    expect(stdout.text()).toContain('answer y (yes) or n (no)');
    expect(code, stderr.text().slice(-600)).toBe(0);
    expect(seeded.status).toBe('cancelled');
  });
});

describe('pending --json', () => {
  test('speaks snake_case, as every JSON carrental prints', async ({ fake, cli }) => {
    fake.fault('create', { ...unknown, after: true }, unknown, unknown);
    expect((await cli(['reserve', ALIAS, '--from', '2026-12-01T10:00', '--to', '2026-12-04T10:00', '-y'])).code).toBe(6);
    const r = await cli(['pending', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [entry] = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(Object.keys(entry).filter((k) => /[A-Z]/.test(k))).toEqual([]);
    expect(entry).toHaveProperty('base_url', fake.baseUrl);
    expect(entry).toHaveProperty('created_at');
    expect(entry).toHaveProperty('rerun');
  });
});
