// What the journal accepts from disk, how it names a command, and which read errors it
// refuses to mistake for "no journal yet". Each of these was a change to journal.ts that
// no test caught (mutation testing, docs/mutation-testing.md "Mutation testing").
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { canonicalJson, commandId, credentialFingerprint, Journal, type JournalOperation } from '../../src/store/journal.js';

const BASE = 'https://api.example.test/v1';
const DANA = credentialFingerprint('svc_dana_booking_write_key_0001');
const posixOnly = process.platform === 'win32' ? it.skip : it;

describe('canonicalJson: two different requests never share a text', () => {
  it('encodes booleans as true and false, never like an empty object', () => {
    expect(canonicalJson({ a: true, b: false, c: {} })).toBe('{"a":true,"b":false,"c":{}}');
    const id = (request: unknown) => commandId({ baseUrl: BASE, credential: DANA, operation: 'createReservation', request });
    const ids = [{ x: true }, { x: false }, { x: {} }, { x: 'true' }, { x: 1 }, { x: null }, { x: [] }].map(id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('unwraps boxed primitives, drops functions and symbols, and writes Infinity as null', () => {
    // eslint-disable-next-line no-new-wrappers
    expect(canonicalJson([new Boolean(false), new Number(2), new String('s')])).toBe('[false,2,"s"]');
    expect(canonicalJson({ f: () => 1, s: Symbol('x'), i: Number.POSITIVE_INFINITY, k: 'v' })).toBe('{"i":null,"k":"v"}');
    expect(canonicalJson([() => 1, Symbol('x')])).toBe('[null,null]');
    expect(canonicalJson({ toJSON: () => ({ b: 2, a: 1 }) })).toBe('{"a":1,"b":2}');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson({ 'k"ey': 1 })).toBe('{"k\\"ey":1}');
  });

  it('names the problem in its TypeErrors', () => {
    expect(() => canonicalJson(1n)).toThrow('canonicalJson: a BigInt has no JSON form');
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(() => canonicalJson(cyclic)).toThrow('canonicalJson: circular structure');
  });
});

describe('Journal: what it accepts from disk', () => {
  let dir: string;
  let file: string;
  let warnings: string[];
  const clock = Date.parse('2026-11-01T12:00:00.000Z');
  const open = () => new Journal({ path: file, now: () => new Date(clock), onWarning: (m) => warnings.push(m) });

  const pending = (over: Record<string, unknown> = {}) => ({
    id: 'a'.repeat(64),
    key: '0b5b3a52-8d7e-4a43-9d7c-2f3b1f6d2a11',
    profile: 'default',
    baseUrl: BASE,
    credential: DANA,
    operation: 'createReservation',
    target: 'tesla-model-3-la',
    request: { alias: 'tesla-model-3-la' },
    createdAt: '2026-11-01T11:59:00.000Z',
    updatedAt: '2026-11-01T11:59:30.000Z',
    attempts: 1,
    state: 'pending',
    ...over,
  });
  const done = (over: Record<string, unknown> = {}) => pending({ state: 'done', doneAt: '2026-11-01T11:59:40.000Z', result: 'uuid-1', ...over });
  const without = (entry: Record<string, unknown>, field: string) => {
    const copy = { ...entry };
    delete copy[field];
    return copy;
  };

  /** Writes `content` as the journal and lists it: the entries kept, and the warning if it was set aside. */
  async function load(content: unknown): Promise<{ ids: string[]; warning?: string }> {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    warnings = [];
    const ids = (await open().list()).map((e) => e.id);
    expect(warnings.length).toBeLessThanOrEqual(1);
    return { ids, warning: warnings[0] };
  }

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'carrental-journal-format-'));
    file = path.join(dir, 'state', 'journal.json');
    warnings = [];
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps well-formed entries: pending or done, a null or absent result, a null credential, no attempts yet', async () => {
    const entries = [
      pending(),
      done({ id: 'b'.repeat(64) }),
      done({ id: 'c'.repeat(64), result: null }),
      without(done({ id: 'd'.repeat(64) }), 'result'),
      pending({ id: 'e'.repeat(64), credential: null, attempts: 0 }),
      pending({ id: 'f'.repeat(64), operation: 'cancelReservation' }),
    ];
    const { ids, warning } = await load({ version: 2, entries });
    expect(warning).toBeUndefined();
    expect(ids.sort()).toEqual(entries.map((e) => e.id as string).sort());
  });

  it.each([
    ['not JSON', 'not valid JSON: ', '{"version":2,'],
    ['null', 'not a JSON object', 'null'],
    ['a number', 'not a JSON object', '7'],
    ['an array', 'not a JSON object', '[]'],
    ['no version', 'unknown format version undefined', { entries: [] }],
    ['version 0', 'unknown format version 0', { version: 0, entries: [] }],
    ['version "2"', 'unknown format version "2"', { version: '2', entries: [] }],
    ['entries an object', '"entries" is not an array', { version: 2, entries: {} }],
    ['entries missing', '"entries" is not an array', { version: 2 }],
  ])('sets aside a file that is %s, saying why', async (_what, reason, content) => {
    const { ids, warning } = await load(content);
    expect(ids).toEqual([]);
    expect(warning).toContain(`is corrupt (${reason}`);
    expect(readdirSync(path.dirname(file)).filter((n) => n.includes('.corrupt-'))).toHaveLength(1);
  });

  it('sets aside a journal that repeats an id: two entries could not both be the command', async () => {
    const { warning } = await load({ version: 2, entries: [pending(), done({ id: 'b'.repeat(64) }), pending({ key: 'another-key-0000000001' })] });
    expect(warning).toContain(`(entry 2 repeats id ${'a'.repeat(64)})`);
  });

  const malformed: Array<[string, unknown]> = [
    ['null', null],
    ['a string', 'entry'],
    ['an array', [pending()]],
    ...(['id', 'key', 'profile', 'baseUrl', 'target'] as const).flatMap((f): Array<[string, unknown]> => [
      [`without ${f}`, without(pending(), f)],
      [`with a numeric ${f}`, pending({ [f]: 1 })],
    ]),
    ['without request', without(pending(), 'request')],
    ['with an unknown operation', pending({ operation: 'deleteCar' })],
    ['without operation', without(pending(), 'operation')],
    ['with a createdAt that is no date', pending({ createdAt: 'yesterday' })],
    ['with a numeric createdAt', pending({ createdAt: Date.parse('2026-11-01T11:59:00.000Z') })],
    ['with an updatedAt that is no date', pending({ updatedAt: 'later' })],
    ['without attempts', without(pending(), 'attempts')],
    ['with negative attempts', pending({ attempts: -1 })],
    ['with fractional attempts', pending({ attempts: 1.5 })],
    ['without credential', without(pending(), 'credential')],
    ['with a numeric credential', pending({ credential: 7 })],
    ['without state', without(pending(), 'state')],
    ['with an unknown state', pending({ state: 'sent' })],
    ['done without doneAt', without(done(), 'doneAt')],
    ['done with a doneAt that is no date', done({ doneAt: 'soon' })],
    ['done with a numeric result', done({ result: 42 })],
  ];

  it.each(malformed)('sets aside a format-2 journal with an entry %s, naming the entry', async (_what, bad) => {
    const { ids, warning } = await load({ version: 2, entries: [pending({ id: 'b'.repeat(64) }), bad] });
    expect(ids).toEqual([]);
    expect(warning).toContain('(entry 1 is malformed)');
    expect(warning).toContain('check `carrental trips` before rerunning them');
  });

  it('reads a format-1 entry without credential or state (they came with format 2), and still checks its format-1 fields', async () => {
    const v1 = without(without(pending(), 'credential'), 'state');
    expect(await load({ version: 1, entries: [v1] })).toEqual({ ids: [v1.id], warning: undefined });
    const listed = await open().list();
    expect(listed[0]).toMatchObject({ credential: null, state: 'pending' });
    const bad = await load({ version: 1, entries: [{ ...v1, attempts: -1 }] });
    expect(bad.warning).toContain('(entry 0 is malformed)');
  });

  it('a file it cannot read (a directory in its place) is an error naming the file, not an empty journal', async () => {
    mkdirSync(file, { recursive: true });
    for (const call of [() => open().list(), () => open().begin(cmd()), () => open().lookup(cmd())]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).message).toBe(`cannot read the idempotency journal ${file} (EISDIR)`);
    }
    expect(warnings).toEqual([]);
    expect(readdirSync(path.dirname(file))).toEqual(['journal.json']);
  });

  posixOnly('a path it cannot even look at (a symlink loop) is an error naming the file, not "no journal yet"', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    symlinkSync(file, file);
    for (const call of [() => open().list(), () => open().touch('a'.repeat(64)), () => open().complete('a'.repeat(64), 'x'), () => open().settle('a'), () => open().clear({ all: true })]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).message).toBe(`cannot read the idempotency journal ${file} (ELOOP)`);
    }
    expect(warnings).toEqual([]);
  });

  it('a file where the state directory should be: nothing to list, and begin says it cannot create the directory', async () => {
    writeFileSync(path.join(dir, 'state'), 'not a directory');
    expect(await open().list()).toEqual([]);
    expect(await open().lookup(cmd())).toBeUndefined();
    const err = await open().begin(cmd()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toMatch(new RegExp(`^cannot create the directory of the idempotency journal ${file.replace(/[.]/g, '\\.')} \\((EEXIST|ENOTDIR)\\)$`));
    expect(readFileSync(path.join(dir, 'state'), 'utf8')).toBe('not a directory');
  });

  function cmd() {
    return { profile: 'default', baseUrl: BASE, credential: DANA, operation: 'createReservation' as JournalOperation, target: 'x', request: { alias: 'x' } };
  }
});
