// A write that went through is never hidden by a failure to print it (issue 27): after a
// booking or a cancellation, a --jq error or a stdout that refuses the bytes is exit 7,
// stderr names the reservation, and the journal entry is completed (a rerun replays it,
// it is not "pending"). In-process against the stateful fake.
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { Journal } from '../../src/store/journal.js';
import { FakeOut, runCommand, TestHome } from '../helpers/cli.js';
import { ALIAS, FAKE_NOW, FakeBookingApi, KEYS } from './fake-api.js';

const DATES = ['--from', '2026-12-01T10:00', '--to', '2026-12-04T10:00'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let fake: FakeBookingApi;
let home: TestHome;

beforeAll(async () => {
  fake = await FakeBookingApi.start();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  home = new TestHome();
  fake.requests.length = 0;
  fake.reservations.clear();
});
afterEach(() => home.cleanup());

const env = () => home.env({ CARRENTAL_API_KEY: KEYS.write, NO_COLOR: '1' });
const cli = (args: string[]) => runCommand(['--base-url', fake.baseUrl, ...args], { now: FAKE_NOW, env: env(), sleep: async () => {} });
const entries = () => new Journal({ path: join(home.dir, 'state', 'journal.json') }).list();
const booked = () => [...fake.reservations.values()].filter((r) => r.status === 'new');

/** A stdout whose reader has gone: every write fails as a closed pipe does. */
class ClosedPipe extends Writable {
  isTTY = false;
  override _write(_chunk: unknown, _enc: BufferEncoding, cb: (err?: Error) => void) {
    cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  }
}

async function cliWithStdout(stdout: Writable, args: string[]) {
  const stderr = new FakeOut();
  const stdin = new PassThrough() as unknown as InStream;
  (stdin as unknown as PassThrough).end();
  const code = await runCli(['--base-url', fake.baseUrl, ...args], { io: { stdin, stdout, stderr }, env: env(), now: FAKE_NOW, sleep: async () => {} });
  return { code, stderr: stderr.text() };
}

describe('reserve --json is an object', () => {
  it('with uuid, status and the next step, so --jq .uuid and --json uuid work', async () => {
    const r = await cli(['reserve', ALIAS, ...DATES, '-y', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['uuid', 'status', 'next']);
    expect(doc.uuid).toMatch(UUID);
    expect(doc).toMatchObject({ status: 'new', next: `carrental pay-link ${doc.uuid}` });

    fake.reservations.clear();
    const jq = await cli(['reserve', ALIAS, ...DATES, '-y', '--new', '--jq', '.uuid']);
    expect(jq.code, jq.stderr).toBe(0);
    expect(jq.stdout).toBe(`${booked()[0].uuid}\n`);

    fake.reservations.clear();
    const fields = await cli(['reserve', ALIAS, ...DATES, '-y', '--new', '--json', 'uuid']);
    expect(fields.code, fields.stderr).toBe(0);
    expect(JSON.parse(fields.stdout)).toEqual({ uuid: booked()[0].uuid });
  });

  it('an unknown field is refused before anything is sent (exit 2)', async () => {
    const r = await cli(['reserve', ALIAS, ...DATES, '-y', '--json', 'uuid,reservation_uuid']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown JSON field: reservation_uuid');
    expect(r.stderr).toContain('uuid, status, next');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('reserve: the booking survives a failed output', () => {
  it('a --jq error after the booking: exit 7, the uuid on stderr, the journal entry done', async () => {
    const r = await cli(['reserve', ALIAS, ...DATES, '-y', '--jq', '.uuid | .x']);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    const [res] = booked();
    expect(r.stderr).toContain(`error: reserved ${res.uuid}, but printing the result failed: --jq: Cannot index string with`);
    expect(r.stderr).toContain(`trips ${res.uuid}`);
    expect(r.stderr).not.toMatch(/"kind":"api"/);
    const list = await entries();
    expect(list.map((e) => [e.state, e.result])).toEqual([['done', res.uuid]]);
    // the rerun replays the same key: still one reservation, and it prints this time
    const again = await cli(['reserve', ALIAS, ...DATES, '-y', '--jq', '.uuid']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`${res.uuid}\n`);
    expect(fake.reservations.size).toBe(1);
  });

  it('a closed stdout after the booking: exit 7, the uuid on stderr, nothing pending', async () => {
    const r = await cliWithStdout(new ClosedPipe(), ['reserve', ALIAS, ...DATES, '-y']);
    expect(r.code).toBe(7);
    const [res] = booked();
    expect(r.stderr).toContain(`error: reserved ${res.uuid}, but printing the result failed: write EPIPE`);
    expect((await entries()).map((e) => e.state)).toEqual(['done']);
  });

  it('with --json, the error object says kind output and exit_code 7', async () => {
    const r = await cliWithStdout(new ClosedPipe(), ['reserve', ALIAS, ...DATES, '-y', '--json']);
    expect(r.code).toBe(7);
    const json = JSON.parse(r.stderr.trim().split('\n').at(-1)!);
    expect(json).toMatchObject({ kind: 'output', exit_code: 7 });
    expect(json.error).toContain(`reserved ${booked()[0].uuid}`);
  });
});

describe('cancel: the cancellation survives a failed output', () => {
  it('a --jq error after the cancel: exit 7 naming the reservation, the journal entry done', async () => {
    const seeded = fake.seed();
    const r = await cli(['cancel', seeded.uuid, '-y', '--jq', '.status | .x']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`error: cancelled reservation ${seeded.uuid}, but printing the result failed`);
    expect(seeded.status).toBe('cancelled');
    expect((await entries()).map((e) => [e.operation, e.state])).toEqual([['cancelReservation', 'done']]);
  });

  it('a closed stdout after the cancel: exit 7', async () => {
    const seeded = fake.seed();
    const r = await cliWithStdout(new ClosedPipe(), ['cancel', seeded.uuid, '-y']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`cancelled reservation ${seeded.uuid}, but printing the result failed: write EPIPE`);
  });
});
