// The sidecar index of the state file (src/sandbox/state-index.ts): an open without `verify`
// (an embedded `--sandbox` command) goes through it and reads only what it asks for; an
// index that does not describe the log is ignored, and the answers are always the log's.
import nodeFs, { existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { describe, expect, vi } from 'vitest';
import { type SandboxState, readTagged } from '../../src/sandbox/state.js';
import { StateIndex, buildIndex, writeMergedIndex } from '../../src/sandbox/state-index.js';
import { StateFileError, openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, dirTest } from './harness.js';

const test = dirTest;

const now = () => FIXED_NOW;
/** The commit the index on disk covers (undefined: none usable); the index is closed again. */
function indexedEnd(statePath: string) {
  const index = StateIndex.read(statePath);
  index?.close();
  return index?.header.end;
}
const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const PAD = 'x'.repeat(600);
const reservation = (i: number, status = 'new') => ({ uuid: uuid(i), customer_id: `c${i % 3}`, status, car_id: i % 50, pad: PAD });
const invoice = (i: number, k: number) => ({ id: `inv-${i}-${k}`, reservation_uuid: uuid(i), pad: PAD });

/**
 * A log of about 3 MB: 1500 reservations with two invoices each, in one write (enough appended
 * for the index to be written again after it), then a few lines after the index's commit that
 * change, delete and add records.
 */
async function history(statePath: string) {
  const store = await openStore({ statePath, now });
  await store.transact((s) => {
    for (let i = 0; i < 1500; i++) {
      s.reservations[uuid(i)] = reservation(i) as never;
      s.invoices[`inv-${i}-0`] = invoice(i, 0) as never;
      s.invoices[`inv-${i}-1`] = invoice(i, 1) as never;
    }
  });
  const indexed = indexedEnd(statePath);
  expect(indexed, 'the index was written after 1 MB of appends').toBe(statSync(statePath).size);
  // after the index's commit: a reservation cancelled (loses its n: tag), one deleted with its
  // invoices, one added, an invoice moved to another reservation
  await store.transact((s) => {
    s.reservations[uuid(7)] = reservation(7, 'cancelled') as never;
    delete s.reservations[uuid(8)];
    delete s.invoices['inv-8-0'];
    delete s.invoices['inv-8-1'];
    s.reservations[uuid(5000)] = reservation(5000) as never;
    s.invoices['inv-9-1'] = { ...invoice(9, 1), reservation_uuid: uuid(5000) } as never;
  });
  await store.close();
  expect(indexedEnd(statePath)).toBe(indexed);
}

/** What the tests compare: records by key and by tag, as the read paths look them up. */
function answers(state: SandboxState) {
  const keys = (rs: { uuid?: string; id?: string }[]) => rs.map((r) => r.uuid ?? r.id).sort();
  return {
    some: [1, 7, 8, 9, 1499, 5000].map((i) => state.reservations[uuid(i)] ?? null),
    has8: uuid(8) in state.reservations,
    newOfC1: keys(readTagged(state, 'reservations', 'n:c1').filter((r) => r.status === 'new' && r.customer_id === 'c1')),
    newOnCar7: keys(readTagged(state, 'reservations', 'nc:7').filter((r) => r.status === 'new' && r.car_id === 7)),
    invoicesOf: [8, 9, 5000].map((i) => keys(readTagged(state, 'invoices', `r:${uuid(i)}`).filter((v) => v.reservation_uuid === uuid(i)))),
  };
}

async function answersOf(statePath: string, verify: boolean) {
  const store = await openStore({ statePath, now, verify });
  try {
    return answers(store.read());
  } finally {
    await store.close();
  }
}

/** Bytes read from the log (not its index) while `fn` runs, and whether it was read whole. */
async function logReads<T>(statePath: string, fn: () => Promise<T>) {
  const realOpen = nodeFs.openSync;
  const realRead = nodeFs.readSync;
  const realReadFile = nodeFs.readFileSync;
  const logFds = new Set<number>();
  let bytes = 0;
  let whole = false;
  const open = vi.spyOn(nodeFs, 'openSync').mockImplementation(((file: unknown, ...rest: unknown[]) => {
    const fd = (realOpen as (...a: unknown[]) => number)(file, ...rest);
    if (file === statePath) logFds.add(fd);
    else logFds.delete(fd);
    return fd;
  }) as typeof nodeFs.openSync);
  const read = vi.spyOn(nodeFs, 'readSync').mockImplementation(((...args: Parameters<typeof nodeFs.readSync>) => {
    const n = (realRead as (...a: unknown[]) => number)(...args);
    if (logFds.has(args[0])) bytes += n;
    return n;
  }) as typeof nodeFs.readSync);
  const readFile = vi.spyOn(nodeFs, 'readFileSync').mockImplementation(((file: unknown, ...rest: unknown[]) => {
    if (file === statePath || (typeof file === 'number' && logFds.has(file))) whole = true;
    return (realReadFile as (...a: unknown[]) => unknown)(file, ...rest);
  }) as typeof nodeFs.readFileSync);
  syncBuiltinESMExports();
  try {
    const result = await fn();
    expect(logFds.size, 'the log was opened').toBeGreaterThan(0);
    return { result, bytes, whole };
  } finally {
    open.mockRestore();
    read.mockRestore();
    readFile.mockRestore();
    syncBuiltinESMExports();
  }
}

describe('the state file index', () => {
  test('lets an open without verify read only the records it asks for, with the answers of a full read', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const expected = await answersOf(statePath, true);
    expect(expected.newOfC1).not.toContain(uuid(7));
    expect(expected.has8).toBe(false);
    expect(expected.invoicesOf).toEqual([[], ['inv-9-0'], ['inv-9-1']]);

    const { result, bytes, whole } = await logReads(statePath, () => answersOf(statePath, false));
    expect(result).toEqual(expected);
    expect(whole, 'the log is not read whole').toBe(false);
    // the records asked for by key and a few hundred by tag, not the 4500 of the log
    expect(bytes).toBeLessThan(statSync(statePath).size / 3);
  });

  test('keeps writes through an index-opened store: changed, deleted and added records, and a compaction', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const before = await openStore({ statePath, now, verify: true });
    const counts = [Object.keys(before.read().reservations).length, Object.keys(before.read().invoices).length];
    await before.close();
    const store = await openStore({ statePath, now });
    await store.transact((s) => {
      s.reservations[uuid(1)] = reservation(1, 'cancelled') as never;
      delete s.reservations[uuid(2)];
      s.reservations[uuid(6000)] = reservation(6000) as never;
    });
    // rewriting one record until the log is compacted (the index's records are then all read)
    const ino = statSync(statePath).ino;
    for (let i = 0; statSync(statePath).ino === ino; i++) {
      expect(i, 'a compaction happens').toBeLessThan(300);
      await store.transact((s) => {
        s.usedPromos.big = [String(i).padEnd(40_000, '.')];
      });
    }
    await store.close();
    const full = await openStore({ statePath, now, verify: true });
    const s = full.read();
    expect(s.reservations[uuid(1)]).toMatchObject({ status: 'cancelled' });
    expect(s.reservations[uuid(2)]).toBeUndefined();
    expect(s.reservations[uuid(6000)]).toMatchObject({ status: 'new' });
    // one deleted, one added
    expect(Object.keys(s.reservations)).toHaveLength(counts[0]);
    expect(Object.keys(s.invoices)).toHaveLength(counts[1]);
    await full.close();
    expect(await answersOf(statePath, false)).toEqual(await answersOf(statePath, true));
  });

  test('is ignored when it does not describe the log: another snapshot, damaged, or past the end of a truncated log', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const expected = await answersOf(statePath, true);
    const indexPath = `${statePath}.idx`;
    const good = readFileSync(indexPath);

    // the index of another log (another snapshot id, the same shape)
    const other = join(dir, 'other.json');
    await history(other);
    writeFileSync(indexPath, readFileSync(`${other}.idx`));
    expect(await answersOf(statePath, false)).toEqual(expected);

    // one byte of a position changed: its own hash no longer matches
    const text = good.toString('latin1');
    const at = text.indexOf(`R\treservations\t${uuid(9)}\t`) + `R\treservations\t${uuid(9)}\t`.length;
    const damaged = Buffer.from(good);
    damaged[at] = damaged[at] === 0x31 ? 0x32 : 0x31;
    writeFileSync(indexPath, damaged);
    expect(StateIndex.read(statePath)).toBeNull();
    expect(await answersOf(statePath, false)).toEqual(expected);

    // cut, and empty
    writeFileSync(indexPath, good.subarray(0, good.length >> 1));
    expect(await answersOf(statePath, false)).toEqual(expected);
    writeFileSync(indexPath, '');
    expect(await answersOf(statePath, false)).toEqual(expected);

    // the log cut inside the group the index ends with: the index is ignored and the torn group dropped, as without one
    writeFileSync(indexPath, good);
    const end = indexedEnd(statePath)!;
    truncateSync(statePath, end - 100);
    const cut = await answersOf(statePath, true);
    expect(cut.some).toEqual([null, null, null, null, null, null]); // only the seeded world is left
    expect(await answersOf(statePath, false)).toEqual(cut);
  });

  test('that names the log but points at other lines is reported, never trusted', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const index = StateIndex.read(statePath)!;
    const records = [...index.records()];
    index.close();
    // the same header (it matches the log), every reservation pointing at its neighbour's line
    const shifted = records.map((r, i) => (r.coll === 'reservations' && records[i + 1]?.coll === 'reservations' ? { ...records[i + 1], coll: r.coll, key: r.key, tags: r.tags } : r));
    const { body: _, ...header } = index.header;
    const byColl = new Map<string, Map<string, (typeof shifted)[number]>>();
    for (const r of shifted) byColl.set(r.coll, (byColl.get(r.coll) ?? new Map()).set(r.key, r));
    writeFileSync(`${statePath}.idx`, buildIndex(header, byColl));
    const store = await openStore({ statePath, now });
    expect(() => store.read().reservations[uuid(1)]).toThrow(StateFileError);
    expect(() => store.read().reservations[uuid(1)]).toThrow(/not the one its index names/);
    await store.close();
  });

  test('is written again by a process that reads the whole log, when missing or behind', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    rmSync(`${statePath}.idx`);
    const expected = await answersOf(statePath, true);
    expect(indexedEnd(statePath)).toBe(statSync(statePath).size);
    const size = statSync(statePath).size;
    const { result, bytes } = await logReads(statePath, () => answersOf(statePath, false));
    expect(bytes).toBeLessThan(size / 3);
    expect(result).toEqual(expected);
    // an embedded command that found none scans the log once and leaves one too
    rmSync(`${statePath}.idx`);
    expect((await logReads(statePath, () => answersOf(statePath, false))).bytes).toBeGreaterThan(size * 0.9);
    expect(existsSync(`${statePath}.idx`)).toBe(true);
    expect((await logReads(statePath, () => answersOf(statePath, false))).bytes).toBeLessThan(size / 3);
  });
});

describe('the index read in place', () => {
  // keys of every length around the block size, and one tag whose line is longer than a block
  const records = () => {
    const m = new Map<string, { pos: number; len: number; lineLen: number; tags: string[] }>();
    for (let i = 0; i < 3000; i++) m.set(`k${String(i).padStart(5, '0')}${'-'.repeat(i % 97)}`, { pos: i * 10, len: i, lineLen: i + 40, tags: [i % 2 ? 'odd' : 'even', `t${i % 7}`] });
    return m;
  };
  const header = { snapshot: 'snap', end: 1, tail: 'tail', live: 2 };

  test('finds every record and tag, read in place a block at a time, and nothing that is not there', ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const m = records();
    writeFileSync(`${statePath}.idx`, buildIndex(header, [['reservations', m]]));
    const index = StateIndex.read(statePath)!;
    try {
      for (const [key, r] of m) expect(index.record('reservations', key)).toEqual({ coll: 'reservations', key, ...r });
      expect(index.record('reservations', 'k')).toBeNull(); // before the first
      expect(index.record('reservations', 'k00001x')).toBeNull(); // between two
      expect(index.record('reservations', 'z')).toBeNull(); // after the last
      expect(index.record('invoices', 'k00001')).toBeNull();
      expect(index.tagged('reservations', 'odd')).toHaveLength(1500);
      expect(index.tagged('reservations', 't3')).toEqual([...m.keys()].filter((_, i) => i % 7 === 3).sort());
      expect(index.tagged('reservations', 'none')).toEqual([]);
      expect([...index.records()].map((r) => r.key)).toEqual([...m.keys()].sort());
    } finally {
      index.close();
    }
  });

  test('merged with changes, answers as one built from the changed records', ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const m = records();
    writeFileSync(`${statePath}.idx`, buildIndex(header, [['reservations', m]]));
    const before = StateIndex.read(statePath)!;
    const keys = [...m.keys()];
    const changes = new Map<string, { pos: number; len: number; lineLen: number; tags: string[] } | null>([
      [keys[5], { pos: 1, len: 2, lineLen: 3, tags: ['even', 'new-tag'] }], // odd -> even, t5 dropped
      [keys[10], null], // deleted
      ['a-first', { pos: 4, len: 5, lineLen: 6, tags: ['odd'] }], // added before the first
      ['zz-last', { pos: 7, len: 8, lineLen: 9, tags: [] }], // added after the last
      ['never-there', null],
    ]);
    writeMergedIndex(`${statePath}.idx`, before, { ...header, end: 99 }, new Map([['reservations', changes]]));
    before.close();
    for (const [k, v] of changes) {
      if (v === null) m.delete(k);
      else m.set(k, v);
    }
    const merged = StateIndex.read(statePath)!;
    const built = join(dir, 'built.json');
    writeFileSync(`${built}.idx`, buildIndex({ ...header, end: 99 }, [['reservations', m]]));
    const expected = StateIndex.read(built)!;
    try {
      expect(merged.header).toMatchObject({ ...header, end: 99 });
      expect([...merged.records()]).toEqual([...expected.records()]);
      for (const tag of ['odd', 'even', 'new-tag', 't5', 't3']) expect(merged.tagged('reservations', tag)).toEqual(expected.tagged('reservations', tag));
      expect(merged.tagged('reservations', 'odd')).toContain('a-first');
      expect(merged.tagged('reservations', 'odd')).not.toContain(keys[5]);
    } finally {
      merged.close();
      expected.close();
    }
  });
});

describe('a server holds what changed since the index, not the state', () => {
  test('opens, reads, writes and compacts with a few hundred records in memory out of thousands', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const store = await openStore({ statePath, now, verify: true, memoryLimits: { resident: 300, hot: 100 } });
    try {
      const total = store.stats().records;
      expect(total).toBeGreaterThan(4500);
      // only the lines after the index's commit
      expect(store.stats().resident).toBeLessThan(20);
      const before = answers(store.read());
      // a read of every reservation, 50 a turn: what is held is trimmed past 300 records
      await new Promise((r) => setImmediate(r));
      store.read();
      let most = 0;
      for (let i = 0; i < 1500; i += 50) {
        for (let k = i; k < i + 50; k++) void store.read().reservations[uuid(k)];
        most = Math.max(most, store.stats().resident);
        await new Promise((r) => setImmediate(r));
      }
      expect(most).toBeLessThanOrEqual(300 + 50 + 20);
      // writes past the due size, then a pause: the index is merged, memory is back to little
      const endBefore = indexedEnd(statePath)!;
      for (let i = 0; i < 30; i++) {
        await store.transact((s) => {
          s.usedPromos[`big${i}`] = ['y'.repeat(100_000)];
          s.reservations[uuid(10_000 + i)] = reservation(10_000 + i, 'cancelled') as never;
        });
      }
      await new Promise((r) => setTimeout(r, 600));
      expect(indexedEnd(statePath)).toBeGreaterThan(endBefore);
      store.read();
      await new Promise((r) => setImmediate(r));
      expect(answers(store.read())).toEqual(before);
      // a compaction: rewriting one record until the log is mostly history
      const ino = statSync(statePath).ino;
      for (let i = 0; statSync(statePath).ino === ino; i++) {
        expect(i, 'a compaction happens').toBeLessThan(400);
        await store.transact((s) => {
          s.usedPromos.big = [String(i).padEnd(100_000, '.')];
        });
      }
      expect(store.stats().resident, 'after a compaction').toBeLessThan(20);
      expect(store.stats().records).toBe(total + 30 + 30 + 1);
      expect(answers(store.read())).toEqual(before);
      expect(store.read().reservations[uuid(10_029)]).toMatchObject({ status: 'cancelled' });
    } finally {
      await store.close();
    }
    expect(await answersOf(statePath, false)).toEqual(await answersOf(statePath, true));
  });
});

describe('a transaction that fails', () => {
  test('after deleting, or deleting and creating again, a record changed since the index: the record keeps its place and the index is still written', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const store = await openStore({ statePath, now, verify: true });
    try {
      await store.transact((s) => {
        s.reservations[uuid(20)] = reservation(20, 'cancelled') as never; // changed since the index
      });
      for (const again of [false, true]) {
        await expect(
          store.transact((s) => {
            delete s.reservations[uuid(20)];
            if (again) s.reservations[uuid(20)] = reservation(20) as never;
            throw new Error('no');
          }),
        ).rejects.toThrow('no');
      }
      expect(store.read().reservations[uuid(20)]).toMatchObject({ status: 'cancelled' });
      // enough appended for the index to be due, then a pause: it is written
      for (let i = 0; i < 14; i++) {
        await store.transact((s) => {
          s.usedPromos[`big${i}`] = ['y'.repeat(100_000)];
        });
      }
      await new Promise((r) => setTimeout(r, 600));
      expect(indexedEnd(statePath), 'the index covers the log').toBe(statSync(statePath).size);
    } finally {
      await store.close();
    }
    expect(await answersOf(statePath, false)).toEqual(await answersOf(statePath, true));
  });
});

describe('the live bytes', () => {
  test('count a record deleted, or deleted and created again, by this process as a read of the whole log does', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const store = await openStore({ statePath, now, verify: true });
    try {
      await store.transact((s) => {
        for (let i = 100; i < 200; i++) delete s.reservations[uuid(i)];
        for (let i = 200; i < 250; i++) {
          delete s.reservations[uuid(i)];
          s.reservations[uuid(i)] = reservation(i, 'cancelled') as never;
        }
      });
      const live = store.stats().live_bytes;
      rmSync(`${statePath}.idx`);
      const full = await openStore({ statePath, now, verify: true });
      expect(live).toBe(full.stats().live_bytes);
      await full.close();
    } finally {
      await store.close();
    }
  });
});

describe('a trim of what a server holds', () => {
  test('keeps the records read most recently: those read again and again are not read from the file', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const store = await openStore({ statePath, now, verify: true, memoryLimits: { resident: 300, hot: 400 } });
    // (history() deleted reservation 8)
    const hot = (k: number) => store.read().reservations[uuid(10 + k)];
    const realRead = nodeFs.readSync;
    let bytes = 0;
    let counting = false;
    const read = vi.spyOn(nodeFs, 'readSync').mockImplementation(((...args: Parameters<typeof nodeFs.readSync>) => {
      const n = (realRead as (...a: unknown[]) => number)(...args);
      if (counting) bytes += n;
      return n;
    }) as typeof nodeFs.readSync);
    syncBuiltinESMExports();
    try {
      for (let k = 0; k < 80; k++) void hot(k);
      // each turn: the same 80 records, then 50 never read before (trims happen on the way)
      for (let turn = 0; turn < 20; turn++) {
        await new Promise((r) => setImmediate(r));
        counting = true;
        for (let k = 0; k < 80; k++) expect(hot(k)).toMatchObject({ uuid: uuid(10 + k) });
        counting = false;
        for (let k = 0; k < 50; k++) void store.read().reservations[uuid(100 + turn * 50 + k)];
      }
      expect(store.stats().resident, 'trimmed on the way').toBeLessThan(100 + 20 * 50);
    } finally {
      read.mockRestore();
      syncBuiltinESMExports();
      await store.close();
    }
    expect(bytes, 'neither the log nor the index is read for them').toBe(0);
  });
});

describe('a store opened through the index', () => {
  test('writes a new index once enough was appended, so that what the next command scans stays small', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const before = indexedEnd(statePath);
    const store = await openStore({ statePath, now });
    for (let i = 0; indexedEnd(statePath) === before; i++) {
      expect(i, 'the index is written again').toBeLessThan(40);
      await store.transact((s) => {
        s.usedPromos[`big${i}`] = ['y'.repeat(100_000)];
      });
    }
    expect(indexedEnd(statePath)).toBe(statSync(statePath).size);
    await store.close();
    const { result, whole } = await logReads(statePath, () => answersOf(statePath, false));
    expect(whole).toBe(false);
    expect(result).toEqual(await answersOf(statePath, true));
  });
});

describe('a server (a store that reads every record)', () => {
  test('writes the index again when its writes pause, not right after a write', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await history(statePath);
    const before = indexedEnd(statePath);
    const store = await openStore({ statePath, now, verify: true });
    try {
      // past the due size (1 MiB + 1/32 of the live bytes), within four times it
      await Promise.all(
        Array.from({ length: 14 }, (_, i) =>
          store.transact((s) => {
            s.usedPromos[`big${i}`] = ['y'.repeat(100_000)];
          }),
        ),
      );
      expect(indexedEnd(statePath), 'not right after a write').toBe(before);
      await new Promise((r) => setTimeout(r, 600));
      expect(indexedEnd(statePath), 'once they pause').toBe(statSync(statePath).size);
    } finally {
      await store.close();
    }
    expect(await answersOf(statePath, false)).toEqual(await answersOf(statePath, true));
  });
});

describe('opening an existing state file', () => {
  test('takes no lock: it reads while another process holds it, and its writes still wait for it', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await (await openStore({ statePath, now })).close();
    const release = await lockfile.lock(statePath, { realpath: false });
    let store: Awaited<ReturnType<typeof openStore>> | undefined;
    try {
      const opened = Date.now();
      store = await openStore({ statePath, now, lockStaleMs: 2000 });
      expect(Date.now() - opened).toBeLessThan(1000);
      expect(store.read().customers.length).toBeGreaterThan(0);
      let written = false;
      const write = store.transact((s) => {
        s.usedPromos.afterLock = ['x'];
      });
      void write.then(() => (written = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(written, 'a write waits for the lock').toBe(false);
      await release();
      await write;
      expect(written).toBe(true);
    } finally {
      await release().catch(() => undefined);
      await store?.close();
    }
    const check = await openStore({ statePath, now, verify: true });
    expect(check.read().usedPromos.afterLock).toEqual(['x']);
    await check.close();
  });
});
