// Journal behaviour that mutation testing found unpinned (docs/mutation-testing.md, "Mutation
// testing"): which calls write the file and which leave it alone, what touch, complete and
// settle do with an absent entry, clear's filters, the messages people read, the option
// checks, and the stable credential fingerprint.
import * as fs from 'node:fs';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AtomicFs } from '../../src/store/atomic-file.js';
import { commandId, credentialFingerprint, Journal, unfinishedCommandError, type JournalEntry, type JournalOperation } from '../../src/store/journal.js';

const BASE = 'https://api.example.test/v1';
const DANA = credentialFingerprint('svc_dana_booking_write_key_0001');
const ERIN = credentialFingerprint('svc_erin_booking_write_key_0002');

let dir: string;
let file: string;
let clock: number;
let warnings: string[];
let renames: number;
const now = () => new Date(clock);
/** Every journal write ends in one rename (atomic-file.ts); counting them tells whether a call wrote. */
const countingFs: AtomicFs = {
  ...fs,
  renameSync: (from, to) => {
    renames++;
    fs.renameSync(from, to);
  },
};
const open = (extra: Partial<ConstructorParameters<typeof Journal>[0]> = {}) =>
  new Journal({ path: file, now, onWarning: (m) => warnings.push(m), fs: countingFs, ...extra });
const onDisk = () => JSON.parse(readFileSync(file, 'utf8')) as { version: number; entries: JournalEntry[] };

const cancelCmd = (uuid: string, credential = DANA, profile = 'default') => ({
  profile,
  baseUrl: BASE,
  credential,
  operation: 'cancelReservation' as JournalOperation,
  target: uuid,
  request: { uuid },
});

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'carrental-journal-edges-'));
  file = path.join(dir, 'state', 'journal.json');
  clock = Date.parse('2026-11-01T12:00:00.000Z');
  warnings = [];
  renames = 0;
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe('what writes the file', () => {
  it('touch, complete and settle of an absent entry write nothing when nothing expired', async () => {
    const j = open();
    await j.begin(cancelCmd('u-1'));
    const before = readFileSync(file, 'utf8');
    renames = 0;
    const absent = '9'.repeat(64);
    await j.touch(absent);
    expect(await j.complete(absent, 'OK')).toEqual({});
    await j.settle(absent);
    expect(renames).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(warnings).toEqual([`idempotency journal entry ${absent.slice(0, 12)} is gone (cleared or expired); rerunning this command will send a new idempotency key`]);
  });

  it('touch, complete and settle of an absent entry prune what expired', async () => {
    for (const call of [(j: Journal) => j.touch('9'.repeat(64)), (j: Journal) => j.complete('9'.repeat(64), null), (j: Journal) => j.settle('9'.repeat(64))]) {
      clock = Date.parse('2026-11-01T12:00:00.000Z');
      fs.rmSync(file, { force: true });
      const j = open();
      await j.begin(cancelCmd('u-old'));
      clock += 25 * 60 * 60 * 1000; // past the 24 h TTL
      renames = 0;
      await call(j);
      expect(renames).toBe(1);
      expect(onDisk().entries).toEqual([]);
    }
  });

  it('complete of an entry done already returns when, writes nothing, and prunes what expired', async () => {
    const j = open();
    const { entry } = await j.begin(cancelCmd('u-1'));
    await j.complete(entry.id, 'OK');
    const doneAt = onDisk().entries[0].doneAt;
    renames = 0;
    expect(await j.complete(entry.id, 'OK')).toEqual({ doneBefore: doneAt });
    expect(renames).toBe(0);

    await j.begin(cancelCmd('u-old'));
    clock += 24 * 60 * 60 * 1000 - 60_000;
    const fresh = await j.begin(cancelCmd('u-3'));
    await j.complete(fresh.entry.id, 'OK');
    const freshDoneAt = onDisk().entries.find((e) => e.id === fresh.entry.id)!.doneAt;
    clock += 2 * 60_000; // u-old is past its 24 h; u-3 is within its 10 min replay window
    renames = 0;
    expect(await j.complete(fresh.entry.id, 'OK')).toEqual({ doneBefore: freshDoneAt });
    expect(renames).toBe(1);
    expect(onDisk().entries.map((e) => e.target)).toEqual(['u-3']);
  });

  it('settle leaves a done entry, and writes nothing then', async () => {
    const j = open();
    const { entry } = await j.begin(cancelCmd('u-1'));
    await j.complete(entry.id, 'OK');
    renames = 0;
    await j.settle(entry.id);
    expect(renames).toBe(0);
    expect(onDisk().entries).toHaveLength(1);
  });

  it('clear that matches nothing writes nothing', async () => {
    const j = open();
    await j.begin(cancelCmd('u-1'));
    renames = 0;
    expect(await j.clear({ credential: ERIN })).toBe(0);
    expect(renames).toBe(0);
  });

  it('touch of a journal that does not exist warns and creates nothing', async () => {
    await open().touch('a'.repeat(64));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`entry ${'a'.repeat(12)} is gone`);
    expect(fs.existsSync(path.dirname(file))).toBe(false);
    expect(await open().complete('a'.repeat(64), 'x')).toEqual({});
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });
});

describe('which entry', () => {
  it('touch moves only the entry it names', async () => {
    const j = open();
    const a = await j.begin(cancelCmd('u-a'));
    const b = await j.begin(cancelCmd('u-b'));
    await j.touch(b.entry.id);
    const byId = Object.fromEntries((await j.list()).map((e) => [e.id, e.attempts]));
    expect(byId).toEqual({ [a.entry.id]: 1, [b.entry.id]: 2 });
  });

  it('the warning for a vanished entry shows the first 12 characters of its id only', async () => {
    const j = open();
    await j.begin(cancelCmd('u-1'));
    const id = 'abcdef0123456789'.repeat(4);
    await j.touch(id);
    expect(warnings[0]).toContain(`entry abcdef012345 is gone`);
  });

  it('lists entries oldest first, however the file orders them', async () => {
    const j = open();
    const a = await j.begin(cancelCmd('u-a'));
    clock += 1000;
    const b = await j.begin(cancelCmd('u-b'));
    clock += 1000;
    const c = await j.begin(cancelCmd('u-c'));
    const disk = onDisk();
    writeFileSync(file, JSON.stringify({ version: 2, entries: [disk.entries[1], disk.entries[2], disk.entries[0]] }));
    expect((await j.list()).map((e) => e.id)).toEqual([a.entry.id, b.entry.id, c.entry.id]);
  });

  it('a trailing slash or two on the base URL is the same API', () => {
    const id = (baseUrl: string) => commandId({ baseUrl, credential: DANA, operation: 'cancelReservation', request: { uuid: 'u' } });
    expect(id(`${BASE}//`)).toBe(id(BASE));
  });
});

describe('clear', () => {
  it('needs a credential, a profile or all, and takes any one of them', async () => {
    await expect(open().clear({})).rejects.toThrow('Journal.clear needs a credential, a profile or all: true');
    await expect(open().clear({ all: false })).rejects.toThrow(TypeError);
    expect(await open().clear({ credential: DANA })).toBe(0);
    expect(await open().clear({ profile: 'default' })).toBe(0);
  });

  it("drops format-1 entries of the profile, not another profile's, alongside the credential's own", async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const v1 = (id: string, profile: string) => ({
      id,
      key: `0b5b3a52-8d7e-4a43-9d7c-2f3b1f6d2a1${id.slice(0, 1)}`,
      profile,
      baseUrl: BASE,
      operation: 'cancelReservation',
      target: 'u',
      request: { uuid: 'u' },
      createdAt: '2026-11-01T11:59:00.000Z',
      updatedAt: '2026-11-01T11:59:00.000Z',
      attempts: 1,
    });
    writeFileSync(file, JSON.stringify({ version: 1, entries: [v1('a'.repeat(64), 'default'), v1('b'.repeat(64), 'work')] }));
    await open().begin(cancelCmd('u-mine'));
    await open().begin(cancelCmd('u-erin', ERIN, 'default'));
    expect(await open().clear({ credential: DANA, profile: 'default' })).toBe(2);
    expect((await open().list()).map((e) => e.profile === 'work' || e.credential === ERIN)).toEqual([true, true]);
  });
});

describe('options', () => {
  it('refuses a TTL that is not positive and a negative replay window, naming the value', () => {
    expect(() => open({ ttlMs: 0 })).toThrow('Journal ttlMs must be a positive number, got 0');
    expect(() => open({ ttlMs: Number.NaN })).toThrow('Journal ttlMs must be a positive number, got NaN');
    expect(() => open({ replayWindowMs: -1 })).toThrow('Journal replayWindowMs must be >= 0, got -1');
    expect(() => open({ ttlMs: 1, replayWindowMs: 0 })).not.toThrow();
  });

  it('refuses an unknown operation and an invalid key before touching anything', async () => {
    await expect(open().begin({ ...cancelCmd('u'), operation: 'deleteCar' as JournalOperation })).rejects.toThrow('unknown journal operation deleteCar');
    await expect(open().begin({ ...cancelCmd('u'), key: 'short' })).rejects.toThrow(
      'the idempotency key must be 16 to 128 printable ASCII characters, without leading or trailing spaces',
    );
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });

  it('says which key it replaces when a script supplies another one', async () => {
    const j = open();
    const first = await j.begin(cancelCmd('u-1'));
    await j.begin({ ...cancelCmd('u-1'), key: 'script-key-000000000001' });
    expect(warnings).toEqual([
      `replacing the journaled idempotency key ${first.entry.key} of this cancelReservation (u-1) with the given key script-key-000000000001; the server treats it as a new command`,
    ]);
  });

  it('without a clock, stamps entries with the current time', async () => {
    const before = Date.now();
    const { entry } = await new Journal({ path: file, onWarning: () => undefined }).begin(cancelCmd('u-1'));
    expect(Date.parse(entry.createdAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(entry.createdAt)).toBeLessThanOrEqual(Date.now());
  });

  it('without a warning sink, warns on stderr', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await new Journal({ path: file, now }).touch('c'.repeat(64));
    expect(write).toHaveBeenCalledWith(`warning: idempotency journal entry ${'c'.repeat(12)} is gone (cleared or expired); rerunning this command will send a new idempotency key\n`);
  });
});

describe('what people read', () => {
  const entry = (operation: JournalOperation, createdAt: string): JournalEntry => ({
    id: 'a'.repeat(64),
    key: 'k-0123456789abcdef',
    profile: 'default',
    baseUrl: BASE,
    credential: DANA,
    operation,
    target: 't',
    request: {},
    createdAt,
    updatedAt: createdAt,
    attempts: 1,
    state: 'pending',
  });

  it('reserve --new over an unfinished one says what, how long ago and which key, and what to do', () => {
    const at = new Date('2026-11-01T12:00:00.000Z');
    const reserve = unfinishedCommandError(entry('createReservation', '2026-11-01T11:59:15.000Z'), at);
    expect(reserve.message).toBe('an identical reserve begun 45 s ago has not finished (idempotency key k-0123456789abcdef); --new could book twice');
    expect(reserve.hint).toBe('rerun without --new to finish it (it may still be running in another terminal); `carrental pending` lists it');
    expect(reserve.exitCode).toBe(2);
    const cancel = unfinishedCommandError(entry('cancelReservation', '2026-11-01T11:57:00.000Z'), at);
    expect(cancel.message).toMatch(/^an identical cancel begun 3 min ago /);
    expect(unfinishedCommandError(entry('cancelReservation', '2026-11-01T11:58:31.000Z'), at).message).toContain('begun 89 s ago');
    expect(unfinishedCommandError(entry('cancelReservation', '2026-11-01T11:58:30.000Z'), at).message).toContain('begun 2 min ago');
    expect(unfinishedCommandError(entry('cancelReservation', '2026-11-01T12:00:05.000Z'), at).message).toContain('begun 0 s ago');
  });
});

describe('the credential fingerprint', () => {
  it('is HMAC-SHA256 under a fixed key, so that entries written by earlier versions still match', () => {
    expect(credentialFingerprint('svc_example_key_123456')).toBe('f5e0daf71bfbe4c1ffdb8e2054ad8326');
  });
});

describe('the temp-file sweep', () => {
  it('deletes only <journal>.<digits> and this format of temp file, not a same-length name or digits with a suffix', async () => {
    const j = open();
    await j.begin(cancelCmd('u-1'));
    const d = path.dirname(file);
    const keep = ['journal.jsox.1234', 'journal.json.123abc', 'journal.json.12.tmp.bak'];
    for (const name of keep) writeFileSync(path.join(d, name), 'keep');
    writeFileSync(path.join(d, 'journal.json.987'), 'litter');
    await j.begin(cancelCmd('u-2'));
    expect(readdirSync(d).sort()).toEqual(['journal.json', ...keep].sort());
  });
});

describe('format checks', () => {
  it('a pending entry with a done stamp but an unknown state is still malformed; a number as a stamp is too', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const good = { ...(await open().begin(cancelCmd('u-1'))).entry };
    for (const bad of [{ ...good, state: 'sent', doneAt: '2026-11-01T12:00:00.000Z' }, { ...good, createdAt: 2026 }, { ...good, state: 'done', doneAt: 2026 }]) {
      writeFileSync(file, JSON.stringify({ version: 2, entries: [bad] }));
      warnings = [];
      expect(await open().list()).toEqual([]);
      expect(warnings[0]).toContain('(entry 0 is malformed)');
    }
  });
});

describe('setting a corrupt journal aside', () => {
  it('when the set-aside name cannot be looked at (too long), it fails naming the journal and leaves the file as it was', async () => {
    // 230 characters: the journal and its lock fit a file name, `.corrupt-<stamp>` does not
    const long = path.join(dir, 'state', `${'j'.repeat(225)}.json`);
    mkdirSync(path.dirname(long), { recursive: true });
    writeFileSync(long, '{"version":2,');
    const err = await open({ path: long })
      .list()
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(`cannot set aside the idempotency journal ${long} (ENAMETOOLONG)`);
    expect(readFileSync(long, 'utf8')).toBe('{"version":2,');
    expect(warnings).toEqual([]);
  });
});

describe('versions', () => {
  it('a newer format is refused with what to do, and the file is left for that version', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ version: 3, entries: [] }));
    const err = (await open()
      .list()
      .catch((e: unknown) => e)) as import('../../src/errors.js').CliError;
    expect(err.message).toBe('the idempotency journal was written by a newer carrental (format 3)');
    expect(err.hint).toBe('upgrade carrental, or use CARRENTAL_STATE_DIR to point this version elsewhere');
    expect(err.kind).toBe('api');
  });

  it('a version that is not a number is corrupt, not newer: set aside', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ version: '3', entries: [] }));
    expect(await open().list()).toEqual([]);
    expect(warnings[0]).toContain('(unknown format version "3")');
  });
});
