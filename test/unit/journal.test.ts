import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import {
  canonicalJson,
  commandId,
  credentialFingerprint,
  DEFAULT_REPLAY_WINDOW_MS,
  DEFAULT_TTL_MS,
  Journal,
  type JournalEntry,
  type JournalOperation,
} from '../../src/store/journal.js';
import { configDir, dataDir, stateDir } from '../../src/store/paths.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BASE = 'https://api.example.test/v1';
const DANA = credentialFingerprint('svc_dana_booking_write_key_0001');
const ERIN = credentialFingerprint('svc_erin_booking_write_key_0002');
const posixOnly = process.platform === 'win32' ? it.skip : it;

function reserveCmd(overrides: Partial<{ profile: string; baseUrl: string; credential: string; request: unknown; key: string; fresh: boolean }> = {}) {
  return {
    profile: overrides.profile ?? 'default',
    baseUrl: overrides.baseUrl ?? BASE,
    credential: overrides.credential ?? DANA,
    ...(overrides.fresh === undefined ? {} : { fresh: overrides.fresh }),
    operation: 'createReservation' as JournalOperation,
    target: 'tesla-model-3-la',
    request: overrides.request ?? {
      alias: 'tesla-model-3-la',
      from: '2026-12-01T10:00',
      to: '2026-12-03T10:00',
      options: { protection: 'standard', extras: ['child_seat'] },
    },
    ...(overrides.key === undefined ? {} : { key: overrides.key }),
  };
}

function cancelCmd(uuid: string, profile = 'default', baseUrl = BASE, credential = DANA) {
  return { profile, baseUrl, credential, operation: 'cancelReservation' as JournalOperation, target: uuid, request: { uuid } };
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and emits no whitespace', () => {
    const a = { b: 1, a: { d: [1, { y: 2, x: 1 }], c: 's p' } };
    const b = { a: { c: 's p', d: [1, { x: 1, y: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":"s p","d":[1,{"x":1,"y":2}]},"b":1}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
  });

  it('drops undefined members, keeps array positions, and follows JSON for odd values', () => {
    expect(canonicalJson({ a: undefined, b: null, c: [undefined, 1] })).toBe('{"b":null,"c":[null,1]}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ n: Number.NaN, d: new Date('2026-01-02T03:04:05.000Z') })).toBe(
      '{"d":"2026-01-02T03:04:05.000Z","n":null}',
    );
  });

  it('accepts a shared reference but rejects cycles and BigInt', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });
});

describe('commandId', () => {
  const req = { alias: 'x', from: '2026-12-01T10:00', to: '2026-12-02T10:00', options: { mileage: 'limited' } };
  const id = (over: Partial<{ baseUrl: string; credential: string; operation: JournalOperation; request: unknown }> = {}) =>
    commandId({ baseUrl: BASE, credential: DANA, operation: 'createReservation', request: req, ...over });

  it('is a sha256 hex digest that ignores key order', () => {
    expect(id()).toMatch(/^[0-9a-f]{64}$/);
    const reordered = { options: { mileage: 'limited' }, to: '2026-12-02T10:00', from: '2026-12-01T10:00', alias: 'x' };
    expect(id({ request: reordered })).toBe(id());
  });

  it('differs when the base URL, the credential, the operation or the request differs', () => {
    const others = [
      id({ request: { ...req, to: '2026-12-03T10:00' } }),
      id({ request: { ...req, options: { mileage: 'unlimited' } } }),
      id({ credential: ERIN }),
      id({ baseUrl: 'https://other.example.test/v1' }),
      id({ operation: 'cancelReservation' }),
    ];
    expect(new Set([id(), ...others]).size).toBe(others.length + 1);
  });

  it('treats a trailing slash on the base URL as the same API', () => {
    expect(id({ baseUrl: `${BASE}/` })).toBe(id());
  });
});

describe('credentialFingerprint', () => {
  it('is 32 hex digits, stable, different per key, and contains nothing of the key', () => {
    const key = 'svc_dana_booking_write_key_0001';
    expect(DANA).toMatch(/^[0-9a-f]{32}$/);
    expect(credentialFingerprint(key)).toBe(DANA);
    expect(ERIN).not.toBe(DANA);
    // not a plain hash of the key that some other system might also store
    expect(createHash('sha256').update(key).digest('hex')).not.toContain(DANA);
    expect(DANA).not.toContain('dana');
  });
});

describe('paths', () => {
  it('honours the CARRENTAL_*_DIR overrides and ignores empty ones', () => {
    const env = { CARRENTAL_STATE_DIR: '/x/state', CARRENTAL_DATA_DIR: '/x/data', CARRENTAL_CONFIG_DIR: '/x/config' };
    expect(stateDir(env)).toBe(path.resolve('/x/state'));
    expect(dataDir(env)).toBe(path.resolve('/x/data'));
    expect(configDir(env)).toBe(path.resolve('/x/config'));
    expect(Journal.defaultPath(env)).toBe(path.join(path.resolve('/x/state'), 'journal.json'));
    const empty = { CARRENTAL_STATE_DIR: '' };
    expect(stateDir(empty)).not.toBe('');
    expect(path.basename(stateDir(empty))).toMatch(/carrental/i);
    expect(path.isAbsolute(stateDir(empty))).toBe(true);
  });
});

describe('Journal', () => {
  let dir: string;
  let file: string;
  let clock: number;
  let warnings: string[];
  const now = () => new Date(clock);
  const open = (extra: Partial<ConstructorParameters<typeof Journal>[0]> = {}) =>
    new Journal({ path: file, now, onWarning: (m) => warnings.push(m), ...extra });
  const onDisk = () => JSON.parse(readFileSync(file, 'utf8')) as { version: number; entries: JournalEntry[] };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'carrental-journal-'));
    // A directory that does not exist yet: the journal must create it.
    file = path.join(dir, 'state', 'journal.json');
    clock = Date.parse('2026-11-01T12:00:00.000Z');
    warnings = [];
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates an entry with a fresh UUID v4 key, durable on disk when begin resolves', async () => {
    const { entry, reused } = await open().begin(reserveCmd());
    expect(reused).toBe(false);
    expect(entry.key).toMatch(UUID_V4);
    expect(entry).toMatchObject({
      id: commandId({ baseUrl: BASE, credential: DANA, operation: 'createReservation', request: reserveCmd().request }),
      profile: 'default',
      baseUrl: BASE,
      credential: DANA,
      state: 'pending',
      operation: 'createReservation',
      target: 'tesla-model-3-la',
      createdAt: '2026-11-01T12:00:00.000Z',
      updatedAt: '2026-11-01T12:00:00.000Z',
      attempts: 1,
    });
    const disk = onDisk();
    expect(disk.version).toBe(2);
    expect(disk.entries).toEqual([entry]);
    expect(warnings).toEqual([]);
  });

  it('reuses the key for the same command (any key order, fresh instance) and refreshes updatedAt', async () => {
    const first = await open().begin(reserveCmd());
    clock += 60_000;
    const again = await open().begin(
      reserveCmd({
        request: {
          options: { extras: ['child_seat'], protection: 'standard' },
          to: '2026-12-03T10:00',
          from: '2026-12-01T10:00',
          alias: 'tesla-model-3-la',
        },
      }),
    );
    expect(again.reused).toBe(true);
    expect(again.entry.key).toBe(first.entry.key);
    expect(again.entry.createdAt).toBe(first.entry.createdAt);
    expect(again.entry.updatedAt).toBe('2026-11-01T12:01:00.000Z');
    expect(onDisk().entries).toHaveLength(1);
  });

  it('gives different commands different entries and keys', async () => {
    const journal = open();
    const a = await journal.begin(reserveCmd());
    const b = await journal.begin(reserveCmd({ request: { alias: 'tesla-model-3-la', from: '2026-12-05T10:00', to: '2026-12-06T10:00' } }));
    const c = await journal.begin(reserveCmd({ credential: ERIN }));
    const d = await journal.begin(cancelCmd('7f3c2a8e-1111-4000-8000-000000000001'));
    const keys = [a, b, c, d].map((r) => r.entry.key);
    expect(new Set(keys).size).toBe(4);
    expect([a, b, c, d].every((r) => !r.reused)).toBe(true);
    expect((await journal.list()).map((e) => e.key).sort()).toEqual([...keys].sort());
    // The profile is not part of the identity: the same key through another profile is the same customer.
    expect((await journal.begin(reserveCmd({ profile: 'work' }))).entry.key).toBe(a.entry.key);
  });

  it('settle removes a pending entry (a definitive refusal), so the same command later gets a new key', async () => {
    const journal = open();
    const first = await journal.begin(reserveCmd());
    const other = await journal.begin(cancelCmd('u-1'));
    await journal.settle(first.entry.id);
    expect(onDisk().entries.map((e) => e.id)).toEqual([other.entry.id]);
    // Settling twice (or an id never journaled) changes nothing.
    await journal.settle(first.entry.id);
    await journal.settle('0'.repeat(64));
    expect(onDisk().entries.map((e) => e.id)).toEqual([other.entry.id]);

    const next = await journal.begin(reserveCmd());
    expect(next.reused).toBe(false);
    expect(next.entry.id).toBe(first.entry.id);
    expect(next.entry.key).not.toBe(first.entry.key);

    // A done entry is not removed by a later refusal of its replay.
    await journal.complete(other.entry.id, 'OK');
    await journal.settle(other.entry.id);
    expect(onDisk().entries.find((e) => e.id === other.entry.id)?.state).toBe('done');
  });

  it('complete keeps the entry, done with its result: the same command replays the key for the replay window, then gets a new one', async () => {
    const journal = open();
    const first = await journal.begin(reserveCmd());
    clock += 2_000;
    expect(await journal.complete(first.entry.id, 'uuid-1')).toEqual({});
    expect(onDisk().entries).toEqual([
      expect.objectContaining({ id: first.entry.id, state: 'done', doneAt: '2026-11-01T12:00:02.000Z', result: 'uuid-1' }),
    ]);

    clock += DEFAULT_REPLAY_WINDOW_MS - 1;
    const replay = await journal.begin(reserveCmd());
    expect(replay).toMatchObject({ reused: true, entry: { key: first.entry.key, state: 'done', result: 'uuid-1' } });
    // Replaying does not stretch the window: it counts from the answer.
    clock += 1;
    const next = await journal.begin(reserveCmd());
    expect(next.reused).toBe(false);
    expect(next.entry.key).not.toBe(first.entry.key);
    expect(next.entry.state).toBe('pending');
  });

  it('complete says when another run finished the same command first, and leaves its result', async () => {
    const a = open();
    const b = open();
    const first = await a.begin(reserveCmd());
    const second = await b.begin(reserveCmd());
    expect(second.entry.key).toBe(first.entry.key);
    clock += 1000;
    expect(await a.complete(first.entry.id, 'uuid-1')).toEqual({});
    clock += 1000;
    expect(await b.complete(second.entry.id, 'uuid-1')).toEqual({ doneBefore: '2026-11-01T12:00:01.000Z' });
    expect(onDisk().entries[0]).toMatchObject({ state: 'done', doneAt: '2026-11-01T12:00:01.000Z' });
  });

  it('a replay window of 0 turns replays off', async () => {
    const journal = open({ replayWindowMs: 0 });
    const first = await journal.begin(reserveCmd());
    await journal.complete(first.entry.id, 'uuid-1');
    expect((await journal.begin(reserveCmd())).entry.key).not.toBe(first.entry.key);
  });

  it('fresh (reserve --new) replaces a done entry with a new key, and refuses an unfinished one', async () => {
    const journal = open();
    const first = await journal.begin(reserveCmd());
    const refused = await journal.begin(reserveCmd({ fresh: true })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as CliError).kind).toBe('usage');
    expect((refused as CliError).message).toMatch(/has not finished.*--new could book twice/);
    expect(onDisk().entries).toEqual([expect.objectContaining({ key: first.entry.key, attempts: 1 })]);

    await journal.complete(first.entry.id, 'uuid-1');
    const fresh = await journal.begin(reserveCmd({ fresh: true }));
    expect(fresh).toMatchObject({ reused: false, entry: { state: 'pending', attempts: 1 } });
    expect(fresh.entry.key).not.toBe(first.entry.key);
    expect(onDisk().entries).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it("another credential's run neither sees, reuses nor clears the entry", async () => {
    const journal = open();
    const dana = await journal.begin(reserveCmd());
    expect(await journal.lookup(reserveCmd({ credential: ERIN }))).toBeUndefined();
    const erin = await journal.begin(reserveCmd({ credential: ERIN }));
    expect(erin.reused).toBe(false);
    expect(erin.entry.key).not.toBe(dana.entry.key);

    expect(await journal.clear({ credential: ERIN, profile: 'default' })).toBe(1);
    expect(onDisk().entries).toEqual([dana.entry]);
    expect((await journal.lookup(reserveCmd()))?.key).toBe(dana.entry.key);
  });

  it('migrates a format-1 journal without losing a key: adopted by the first credential that resumes it', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const request = reserveCmd().request;
    const legacyId = createHash('sha256')
      .update(canonicalJson({ profile: 'default', baseUrl: BASE, operation: 'createReservation', request }))
      .digest('hex');
    const v1 = {
      id: legacyId,
      key: '0b5b3a52-8d7e-4a43-9d7c-2f3b1f6d2a11',
      profile: 'default',
      baseUrl: BASE,
      operation: 'createReservation',
      target: 'tesla-model-3-la',
      request: JSON.parse(canonicalJson(request)),
      createdAt: '2026-11-01T11:00:00.000Z',
      updatedAt: '2026-11-01T11:30:00.000Z',
      attempts: 3,
    };
    writeFileSync(file, JSON.stringify({ version: 1, entries: [v1] }));

    const listed = await open().list();
    expect(listed).toEqual([{ ...v1, credential: null, state: 'pending', expired: false }]);
    // Another profile does not match it (format 1 was per profile) ...
    expect(await open().lookup(reserveCmd({ profile: 'work' }))).toBeUndefined();
    // ... the same profile resumes it, and it is this credential's from then on.
    const resumed = await open().begin(reserveCmd());
    expect(resumed).toMatchObject({ reused: true, entry: { key: v1.key, credential: DANA, attempts: 4 } });
    expect(onDisk().version).toBe(2);
    expect(await open().lookup(reserveCmd({ credential: ERIN }))).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('touch counts attempts and moves updatedAt; touching a vanished entry warns', async () => {
    const journal = open();
    const { entry } = await journal.begin(reserveCmd());
    clock += 1000;
    await journal.touch(entry.id);
    clock += 1000;
    await journal.touch(entry.id);
    const [stored] = await journal.list();
    expect(stored.attempts).toBe(3); // begin counts the first send
    expect(stored.updatedAt).toBe('2026-11-01T12:00:02.000Z');
    expect(stored.createdAt).toBe('2026-11-01T12:00:00.000Z');
    expect(warnings).toEqual([]);

    await journal.clear({ all: true });
    await journal.touch(entry.id);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/new idempotency key/);
  });

  it('expires entries a TTL after their last use: listed as expired, ignored by begin, pruned on write', async () => {
    const journal = open();
    const first = await journal.begin(reserveCmd());
    const bystander = await journal.begin(cancelCmd('u-1'));

    clock += DEFAULT_TTL_MS - 1;
    await journal.touch(bystander.entry.id); // keeps the bystander alive past the first's expiry
    expect((await journal.begin(reserveCmd())).entry.key).toBe(first.entry.key); // still live; refreshed

    clock += DEFAULT_TTL_MS; // exactly a TTL after the last use of both
    const listed = await journal.list();
    expect(listed.map((e) => [e.id, e.expired])).toEqual([
      [first.entry.id, true],
      [bystander.entry.id, true],
    ]);
    // Listing does not prune.
    expect(onDisk().entries).toHaveLength(2);

    const fresh = await journal.begin(reserveCmd());
    expect(fresh.reused).toBe(false);
    expect(fresh.entry.key).not.toBe(first.entry.key);
    expect(fresh.entry.attempts).toBe(1);
    expect(onDisk().entries.map((e) => e.id)).toEqual([fresh.entry.id]); // bystander pruned too
  });

  it('honours a custom ttlMs', async () => {
    const journal = open({ ttlMs: 5_000 });
    const first = await journal.begin(reserveCmd());
    clock += 4_999;
    expect((await journal.begin(reserveCmd())).reused).toBe(true);
    clock += 5_000;
    const next = await journal.begin(reserveCmd());
    expect(next.reused).toBe(false);
    expect(next.entry.key).not.toBe(first.entry.key);
  });

  it('stores a script-supplied key, reuses it, and lets a different supplied key replace it', async () => {
    const journal = open();
    const scriptKey = 'ci-run-4711-reserve-tesla';
    const first = await journal.begin(reserveCmd({ key: scriptKey }));
    expect(first).toMatchObject({ reused: false, entry: { key: scriptKey } });

    // A plain rerun (no key given) reuses the script's key.
    const plain = await journal.begin(reserveCmd());
    expect(plain).toMatchObject({ reused: true, entry: { key: scriptKey } });
    // The same key again is a reuse, not a replacement.
    expect((await journal.begin(reserveCmd({ key: scriptKey }))).reused).toBe(true);
    expect(warnings).toEqual([]);

    clock += 1000;
    await journal.touch(first.entry.id);
    const replaced = await journal.begin(reserveCmd({ key: 'ci-run-4712-reserve-tesla' }));
    expect(replaced.reused).toBe(false);
    expect(replaced.entry).toMatchObject({ key: 'ci-run-4712-reserve-tesla', attempts: 1, createdAt: '2026-11-01T12:00:01.000Z' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(scriptKey);
    expect(onDisk().entries).toHaveLength(1);
  });

  it('rejects an invalid supplied key as a usage error without writing anything', async () => {
    for (const key of ['too-short', 'x'.repeat(129), 'tab\tinside-the-key-value', ' leading-space-key-value', 'non-ascii-ключ-1234567']) {
      const err = await open().begin(reserveCmd({ key })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).kind).toBe('usage');
    }
    expect(existsSync(path.dirname(file))).toBe(false);
    expect((await open().begin(reserveCmd({ key: 'x'.repeat(128) }))).entry.key).toBe('x'.repeat(128));
  });

  it("clear drops one credential's unfinished entries (and format-1 entries of the profile) by default, every unfinished one with all", async () => {
    const journal = open();
    const other = 'https://staging.example.test/v1';
    await journal.begin(cancelCmd('u-1', 'default', BASE));
    await journal.begin(cancelCmd('u-2', 'work', other));
    await journal.begin(cancelCmd('u-3', 'default', BASE, ERIN));
    const done = await journal.begin(cancelCmd('u-4', 'default', BASE));
    await journal.complete(done.entry.id, 'OK');

    // Finished entries stay for their replay window: they hold no unknown outcome.
    expect(await journal.clear({ credential: DANA, profile: 'default' })).toBe(2);
    expect((await journal.list()).map((e) => e.target)).toEqual(['u-3', 'u-4']);
    expect(await journal.clear({ credential: DANA, profile: 'default' })).toBe(0);
    expect(await journal.clear({ all: true })).toBe(1);
    expect((await journal.list()).map((e) => e.target)).toEqual(['u-4']);
    expect(onDisk().entries.map((e) => e.state)).toEqual(['done']);
    await expect(journal.clear({})).rejects.toThrow(TypeError);
  });

  it('reads nothing and creates nothing when there is no journal yet', async () => {
    const journal = open();
    expect(await journal.list()).toEqual([]);
    expect(await journal.clear({ all: true })).toBe(0);
    await journal.settle('0'.repeat(64));
    expect(existsSync(path.dirname(file))).toBe(false);
  });

  it('sets a corrupt file aside with a warning, keeping its content, and starts afresh', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const garbage = '{"version":1,"entries":[{"id":"abc","key":"trunc';
    writeFileSync(file, garbage);

    const { entry } = await open().begin(reserveCmd());

    expect(warnings).toHaveLength(1);
    const aside = readdirSync(path.dirname(file)).filter((n) => n.startsWith('journal.json.corrupt-'));
    expect(aside).toEqual(['journal.json.corrupt-2026-11-01T12-00-00-000Z']);
    const asidePath = path.join(path.dirname(file), aside[0]);
    expect(warnings[0]).toContain(asidePath);
    expect(warnings[0]).toMatch(/corrupt/);
    expect(readFileSync(asidePath, 'utf8')).toBe(garbage);
    expect(onDisk().entries).toEqual([entry]);
  });

  it('treats well-formed JSON of the wrong shape as corrupt too, and never overwrites an earlier set-aside file', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const first = JSON.stringify({ version: 1, entries: [{ id: 42 }] });
    writeFileSync(file, first);
    expect(await open().list()).toEqual([]);

    const second = '[]';
    writeFileSync(file, second); // corrupt again within the same millisecond
    expect(await open().list()).toEqual([]);

    const base = path.join(path.dirname(file), 'journal.json.corrupt-2026-11-01T12-00-00-000Z');
    expect(readFileSync(base, 'utf8')).toBe(first);
    expect(readFileSync(`${base}-1`, 'utf8')).toBe(second);
    expect(warnings).toHaveLength(2);
    expect(existsSync(file)).toBe(false);
  });

  it('the temp-file sweep removes abandoned temp files and never a set-aside corrupt file', async () => {
    const journal = open();
    await journal.begin(reserveCmd());
    const d = path.dirname(file);
    const keep = ['journal.json.corrupt-2026-11-01T12-00-00-000Z', 'journal.json.corrupt-2026-11-01T12-00-00-000Z-1', 'journal.json.bak', 'other.json.1.2.tmp'];
    for (const name of keep) writeFileSync(path.join(d, name), 'precious');
    // a killed writer's temp files: this format and write-file-atomic's of older versions
    writeFileSync(path.join(d, 'journal.json.4242.7.tmp'), '{"trunc');
    writeFileSync(path.join(d, 'journal.json.123456789'), '{"trunc');

    await journal.begin(cancelCmd('u-1'));
    expect(readdirSync(d).sort()).toEqual(['journal.json', ...keep].sort());
    for (const name of keep) expect(readFileSync(path.join(d, name), 'utf8')).toBe('precious');
  });

  it('a short write (disk full): begin fails naming the file, nothing to send, and the old journal stays whole', async () => {
    const journal = open();
    const { entry } = await journal.begin(cancelCmd('u-1'));
    const before = readFileSync(file, 'utf8');
    // Like write(2) on a nearly full disk: 100 bytes, then nothing.
    let calls = 0;
    const shortFs = {
      ...fs,
      writeSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) =>
        calls++ === 0 ? fs.writeSync(fd, buffer, offset, Math.min(length, 100), position) : 0,
    };
    const err = await open({ fs: shortFs }).begin(reserveCmd()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(1);
    expect((err as CliError).message).toBe(`cannot write the idempotency journal ${file} (ENOSPC)`);
    expect((err as CliError).hint).toBe('nothing was sent');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(path.dirname(file))).toEqual(['journal.json']);
    expect((await open().list()).map((e) => e.key)).toEqual([entry.key]);
  });

  it('EIO while syncing: begin fails naming the file and the old journal stays whole', async () => {
    await open().begin(cancelCmd('u-1'));
    const before = readFileSync(file, 'utf8');
    const eio = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    const failing = { ...fs, fsyncSync: () => { throw eio; } };
    const err = await open({ fs: failing }).begin(reserveCmd()).catch((e: unknown) => e);
    expect((err as CliError).message).toBe(`cannot write the idempotency journal ${file} (EIO)`);
    expect((err as CliError).hint).toBe('nothing was sent');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(path.dirname(file))).toEqual(['journal.json']);
  });

  it('refuses to touch a journal written by a newer format', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const newer = JSON.stringify({ version: 3, entries: {} });
    writeFileSync(file, newer);
    const err = await open().begin(reserveCmd()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toMatch(/newer carrental/);
    expect(readFileSync(file, 'utf8')).toBe(newer);
    expect(readdirSync(path.dirname(file))).toEqual(['journal.json']);
  });

  posixOnly('creates the directory 0700 and the file 0600, and tightens a looser existing file', async () => {
    await open().begin(reserveCmd());
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    chmodSync(file, 0o644);
    await open().begin(cancelCmd('u-1'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('waits for a lock held elsewhere and rereads the file inside it', async () => {
    // What another process writes while it holds the lock: an entry for our command.
    const otherFile = path.join(dir, 'other', 'journal.json');
    const theirs = await new Journal({ path: otherFile, now }).begin(reserveCmd());

    mkdirSync(path.dirname(file), { recursive: true });
    const release = await lockfile.lock(file, { realpath: false, lockfilePath: `${file}.lock` });
    let settled = false;
    const pending = open()
      .begin(reserveCmd())
      .finally(() => {
        settled = true;
      });
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    writeFileSync(file, readFileSync(otherFile));
    await release();

    const ours = await pending;
    expect(ours.reused).toBe(true);
    expect(ours.entry.key).toBe(theirs.entry.key);
  });

  it('gives up with a clear error when a live process keeps the lock', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    // Refreshed by proper-lockfile every second, so it never turns stale.
    const release = await lockfile.lock(file, { realpath: false, lockfilePath: `${file}.lock`, stale: 2_000 });
    try {
      const started = Date.now();
      const err = await open({ lockStaleMs: 2_000 })
        .begin(reserveCmd())
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).message).toMatch(/locked by another carrental process/);
      expect((err as CliError).hint).toContain(`${file}.lock`);
      // It waited past the stale time instead of failing at once.
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      expect(existsSync(file)).toBe(false);
    } finally {
      await release();
    }
  });

  it('takes over a lock abandoned by a killed process once it is stale', async () => {
    mkdirSync(`${file}.lock`, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    const started = Date.now();
    const { entry } = await open({ lockStaleMs: 2_000 }).begin(reserveCmd());
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(onDisk().entries).toEqual([entry]);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('keeps every entry when one process begins many commands at once', async () => {
    const a = open();
    const b = open(); // a second instance on the same file, as two modules of one run might have
    const results = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).begin(cancelCmd(`u-${i}`))),
      ...Array.from({ length: 4 }, (_, i) => (i % 2 ? a : b).begin(reserveCmd())),
    ]);
    const entries = onDisk().entries;
    expect(entries).toHaveLength(9);
    const shared = results.slice(8);
    expect(new Set(shared.map((r) => r.entry.key)).size).toBe(1);
    expect(shared.filter((r) => !r.reused)).toHaveLength(1);
  });
});
