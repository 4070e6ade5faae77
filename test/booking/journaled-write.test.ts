// JournaledWrite itself, with a hand-made context and a scripted `send`: what it tells the
// report callback (reused, replayed, finished by a concurrent run), what it keeps as the
// result, what it says when the journal cannot record the answer, and when it announces a
// resume. The command tests reach it only through reserve and cancel, which announce first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import type { Context } from '../../src/session/context.js';
import type { Target } from '../../src/session/services.js';
import { JournaledWrite, type RunInfo, type WriteCommand } from '../../src/booking/journaled-write.js';
import { BOOK_ANOTHER, hintFor } from '../../src/cmdkit/hints.js';
import { Output } from '../../src/render/output.js';
import { credentialFingerprint, Journal } from '../../src/store/journal.js';
import { FakeOut } from '../helpers/cli.js';

const KEY = 'svc_dana_booking_write_key_0001';
let dir: string;
let stderr: FakeOut;
let clock: number;
let aborted: AbortController;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'carrental-jw-'));
  stderr = new FakeOut(false);
  clock = Date.parse('2026-11-01T12:00:00.000Z');
  aborted = new AbortController();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setup(opts: { env?: NodeJS.ProcessEnv; apiKey?: string | null; journal?: Journal } = {}) {
  const env = { CARRENTAL_STATE_DIR: join(dir, 'state'), ...opts.env };
  const ctx = {
    io: { stdin: process.stdin, stdout: new FakeOut(false), stderr },
    env,
    globals: { profile: 'default', sandbox: false, json: false, color: false, input: false, yes: true, debug: false, timeoutMs: 30_000 },
    version: 'test',
    now: () => new Date(clock),
    sleep: async () => {},
    signal: aborted.signal,
    canPrompt: () => false,
    onCleanup: () => {},
  } as unknown as Context;
  const out = new Output(ctx);
  const target = { profile: 'default', baseUrl: 'https://api.example.test/v1', apiKey: opts.apiKey === null ? undefined : (opts.apiKey ?? KEY), sandbox: false } as Target;
  return new JournaledWrite(ctx, out, target, opts.journal, { bookAnother: BOOK_ANOTHER });
}

const journal = () => new Journal({ path: join(dir, 'state', 'journal.json'), now: () => new Date(clock) });
const create: WriteCommand = { operation: 'createReservation', target: 'car-1', request: { car_alias: 'car-1' } };
const cancel: WriteCommand = { operation: 'cancelReservation', target: 'u-1', request: { uuid: 'u-1' } };

describe('what the journal keeps as the result', () => {
  it.each([
    ['a string', 'uuid-1', 'uuid-1'],
    ['an envelope with a string', { data: 'OK' }, 'OK'],
    ['an envelope with an object', { data: { uuid: 'u' } }, null],
    ['null', null, null],
    ['a number', 7, null],
  ])('%s', async (_what, answer, kept) => {
    await setup().run(create, async () => answer);
    const [entry] = await journal().list();
    expect(entry).toMatchObject({ state: 'done', result: kept });
  });
});

describe('what report is told', () => {
  it('a first run: not reused, no earlier answer', async () => {
    const infos: RunInfo[] = [];
    await setup().run(create, async () => 'uuid-1', { report: (_r, info) => void infos.push(info) });
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatchObject({ reused: false, doneBefore: undefined, entry: { state: 'pending', attempts: 1 } });
  });

  it('a replay within the window: reused, with when the first run was answered', async () => {
    await setup().run(create, async () => 'uuid-1');
    const [done] = await journal().list();
    clock += 60_000;
    const infos: RunInfo[] = [];
    await setup().run(create, async () => 'uuid-1', { report: (_r, info) => void infos.push(info) });
    expect(infos[0]).toMatchObject({ reused: true, doneBefore: done.doneAt, entry: { key: done.key, state: 'done' } });
  });

  it('a resumed pending command that a concurrent run finished first: its answer time, so ours is the replay', async () => {
    const first = await journal().begin({ ...create, profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint(KEY) });
    const infos: RunInfo[] = [];
    await setup().run(
      create,
      async () => {
        clock += 1000;
        await journal().complete(first.entry.id, 'uuid-1'); // the other terminal got its 2xx first
        return 'uuid-1';
      },
      { report: (_r, info) => void infos.push(info) },
    );
    expect(infos[0]).toMatchObject({ reused: true, doneBefore: '2026-11-01T12:00:01.000Z' });
  });

  it('a resumed pending command cleared in another terminal while it ran: no earlier answer, and the answer still returned', async () => {
    await journal().begin({ ...create, profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint(KEY) });
    const infos: RunInfo[] = [];
    const result = await setup().run(
      create,
      async () => {
        await journal().clear({ all: true });
        return 'uuid-1';
      },
      { report: (_r, info) => void infos.push(info) },
    );
    expect(result).toBe('uuid-1');
    expect(infos[0]).toMatchObject({ reused: true, doneBefore: undefined });
  });

  it('a resumed pending command replaced by a run with another key, which finished: not a replay of ours', async () => {
    const ours = await journal().begin({ ...create, profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint(KEY) });
    const infos: RunInfo[] = [];
    await setup().run(
      create,
      async () => {
        const theirs = await journal().begin({ ...create, profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint(KEY), key: 'their-own-key-0000001' });
        await journal().complete(theirs.entry.id, 'uuid-2');
        return 'uuid-1';
      },
      { report: (_r, info) => void infos.push(info) },
    );
    expect(infos[0]).toMatchObject({ reused: true, doneBefore: undefined, entry: { key: ours.entry.key } });
  });

  it('a resumed pending command nobody finished: reused, no earlier answer', async () => {
    await journal().begin({ ...create, profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint(KEY) });
    const infos: RunInfo[] = [];
    await setup().run(create, async () => 'uuid-1', { report: (_r, info) => void infos.push(info) });
    expect(infos[0]).toMatchObject({ reused: true, doneBefore: undefined });
  });
});

describe('announcing a resume', () => {
  it('run announces a resumed pending command once, with its age and key', async () => {
    const { entry } = await journal().begin({ ...cancel, profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint(KEY) });
    clock += 3 * 60_000;
    await setup().run(cancel, async () => ({ data: 'OK' }));
    expect(stderr.text()).toBe(`resuming a pending cancel from 3 min ago with the same idempotency key (${entry.key})\n`);
  });

  it('a replayed cancel says when it was cancelled, and offers no --new', async () => {
    await setup().run(cancel, async () => ({ data: 'OK' }));
    const [done] = await journal().list();
    clock += 30_000;
    await setup().run(cancel, async () => ({ data: 'OK' }));
    expect(stderr.text()).toBe(`already cancelled by this same command 30 s ago (replaying idempotency key ${done.key})\n`);
  });

  it('a replayed reserve without a recorded uuid names none', async () => {
    await setup().run(create, async () => ({ data: { not: 'a string' } }));
    const [done] = await journal().list();
    await setup().run(create, async () => 'x');
    expect(stderr.text()).toBe(`already reserved by this same command 0 s ago (replaying idempotency key ${done.key}; --new books another)\n`);
  });
});

describe('pending()', () => {
  it('finds the live entry; another given key or --new over a done one starts afresh; --new over a pending one is refused', async () => {
    const w = setup();
    expect(await w.pending(create)).toBeUndefined();
    const { entry } = await journal().begin({ ...create, profile: 'default', baseUrl: 'https://api.example.test/v1', credential: credentialFingerprint(KEY) });
    expect((await w.pending(create))?.key).toBe(entry.key);
    expect((await w.pending({ ...create, key: entry.key }))?.key).toBe(entry.key);
    expect(await w.pending({ ...create, key: 'another-key-00000001' })).toBeUndefined();
    await expect(w.pending({ ...create, fresh: true })).rejects.toThrow(/has not finished/);
    await journal().complete(entry.id, 'uuid-1');
    expect(await w.pending({ ...create, fresh: true })).toBeUndefined();
    expect((await w.pending(create))?.state).toBe('done');
  });
});

describe('endings', () => {
  it('already interrupted: nothing is journaled or sent', async () => {
    aborted.abort();
    let sent = 0;
    const err = await setup()
      .run(create, async () => {
        sent++;
        return 'x';
      })
      .catch((e: unknown) => e as CliError);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).kind).toBe('interrupted');
    expect((err as CliError).message).toBe('interrupted');
    expect(sent).toBe(0);
    expect(await journal().list()).toEqual([]);
  });

  it('a usage error from the sender (refused before sending) stays a usage error, not an unknown outcome', async () => {
    const refused = new CliError('usage', 'refusing to send the API key to http://example.test');
    const err = await setup()
      .run(create, async () => {
        throw refused;
      })
      .catch((e: unknown) => e);
    expect(err).toBe(refused);
  });

  it('Ctrl-C during the send: the outcome is unknown, the key that finishes it is on the error, with the interruption as its cause', async () => {
    const ctrlC = new CliError('interrupted', 'interrupted');
    let sent = '';
    const err = (await setup()
      .run(create, async (key) => {
        sent = key;
        throw ctrlC;
      })
      .catch((e: unknown) => e)) as CliError;
    expect(err.kind).toBe('interrupted');
    // the booking core records the fact; the CLI words the way out (src/cli/main.ts, test/booking/reserve.test.ts)
    expect(err.message).toBe('interrupted: the outcome of this reserve is unknown');
    expect(err.journalKey).toBe(sent);
    expect(hintFor(err)).toBe(`rerunning the same command is safe: it reuses idempotency key ${sent} (see \`carrental pending\`)`);
    expect(err.cause).toBe(ctrlC);
  });

  it('the answer in hand but the journal cannot record it: a warning, and the answer still returned', async () => {
    const real = journal();
    const failing = Object.assign(Object.create(Object.getPrototypeOf(real)) as Journal, real, {
      complete: async () => {
        throw new Error('disk on fire');
      },
    });
    const result = await setup({ journal: failing }).run(create, async () => 'uuid-1');
    expect(result).toBe('uuid-1');
    expect(stderr.text()).toBe('warning: could not record the finished reserve in the journal (disk on fire); a rerun replays the same key\n');
    expect((await journal().list())[0].state).toBe('pending');
  });

  it('409 operation_in_progress without Retry-After waits 2 s', async () => {
    const slept: number[] = [];
    const w = setup();
    (w as unknown as { ctx: Context }).ctx.sleep = async (ms) => void slept.push(ms);
    let calls = 0;
    await w.run(create, async () => {
      if (calls++ === 0) throw new CliError('conflict', 'busy', { api: { status: 409, error_code: 'operation_in_progress' } });
      return 'uuid-1';
    });
    expect(slept).toEqual([2000]);
    expect((await journal().list())[0].attempts).toBe(2);
  });

  it('a whole number with spaces around it is accepted for the hidden bounds', async () => {
    let maxAttempts = 0;
    await setup({ env: { CARRENTAL_WRITE_RETRIES: ' 3 ' } }).run(create, async (_k, retry) => {
      maxAttempts = retry.maxAttempts;
      return 'x';
    });
    expect(maxAttempts).toBe(4);
  });

  it('a target without a key journals under the fingerprint of the empty key', async () => {
    await setup({ apiKey: null }).run(create, async () => 'x');
    expect((await journal().list())[0].credential).toBe(credentialFingerprint(''));
  });
});
