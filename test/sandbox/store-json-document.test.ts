// The Node 20 store's file, one record per line (src/sandbox/json-document.ts, issue 35):
// any JSON reader reads it; a transaction parses only the records it reads and a write
// stringifies only the records it changed; a re-read after another process's write parses
// only the lines that differ; a file in another layout is read whole and written in lines.
// Runs on any Node (the JSON store is forced).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readTagged, reservationsOf, type SandboxState } from '../../src/sandbox/state.js';
import { StateFileError, type Store, openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, tempDir } from './harness.js';

const now = () => FIXED_NOW;
const COLLS = ['reservations', 'invoices', 'refunds', 'idempotency', 'usedPromos', 'agentFlows'] as const;
/** The state as plain data. */
const plain = (s: SandboxState) => JSON.parse(JSON.stringify({ ...s, ...Object.fromEntries(COLLS.map((c) => [c, { ...s[c] }])) }));

/** Grows the seed's history by copies of its reservations (with their invoices) to about `count`. */
async function grow(store: Store, count: number) {
  await store.transact((d) => {
    const models = Object.values(d.reservations);
    const invoices = Object.values(d.invoices);
    for (let n = 0; Object.keys(d.reservations).length < count; n++) {
      const r = models[n % models.length];
      const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      d.reservations[uuid] = { ...structuredClone(r), uuid };
      for (const inv of invoices.filter((i) => i.reservation_uuid === r.uuid)) d.invoices[`${inv.id}-${n}`] = { ...structuredClone(inv), id: `${inv.id}-${n}`, reservation_uuid: uuid };
      d.idempotency[`${r.customer_id}:key-${n}`] = { operation: 'createReservation', fingerprint: `f${n}`, status: 200, body: JSON.stringify({ data: uuid }), created_at: FIXED_NOW.toISOString() };
    }
  });
}

/** Characters JSON.parse read, JSON.stringify wrote and Buffer.from encoded while `task` ran. */
async function jsonWork(task: () => unknown): Promise<{ parsed: number; stringified: number; encoded: number }> {
  const parse = vi.spyOn(JSON, 'parse');
  const stringify = vi.spyOn(JSON, 'stringify');
  const from = vi.spyOn(Buffer, 'from');
  try {
    await task();
    const parsed = parse.mock.calls.reduce((n, [text]) => n + String(text).length, 0);
    const stringified = stringify.mock.results.reduce((n, r) => n + (typeof r.value === 'string' ? r.value.length : 0), 0);
    const encoded = from.mock.calls.reduce((n, [data]) => n + (typeof data === 'string' ? data.length : 0), 0);
    return { parsed, stringified, encoded };
  } finally {
    parse.mockRestore();
    stringify.mockRestore();
    from.mockRestore();
  }
}

describe("the Node 20 store's file, one record per line", () => {
  let dir: string;
  let cleanup: () => void;
  let statePath: string;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    statePath = join(dir, 'state.json');
  });
  afterEach(() => cleanup());
  const open = (path = statePath) => openStore({ statePath: path, now, kind: 'json' });

  it('is the version 1 document any JSON reader reads, one record per line', async () => {
    const store = await open();
    await grow(store, 40);
    const text = readFileSync(statePath, 'utf8');
    expect(JSON.parse(text)).toEqual(plain(store.read()));
    const lines = text.split('\n');
    const records = COLLS.reduce((n, c) => n + Object.keys(store.read()[c]).length, 0);
    // the first line, a line opening and one closing each collection, the records, the final newline
    expect(lines).toHaveLength(1 + 2 * COLLS.length + records + 1);
    expect(lines[0]).toMatch(/^\{"format":"carrental-sandbox-state","version":1,"seed":1,.*"customers":\[.*\],$/);
    expect(lines[1]).toBe('"reservations":{');
    expect(lines.at(-2)).toBe('}}');
    await store.close();
  });

  it('a transaction parses only the records it reads, and its write stringifies and encodes only those it changed', async () => {
    const store = await open();
    await grow(store, 300);
    const size = readFileSync(statePath, 'utf8').length;
    const [uuid, other] = Object.keys(store.read().reservations);
    const untouched = store.read().reservations[other];
    const work = await jsonWork(() =>
      store.transact((d) => {
        d.reservations[uuid].manual_adjustment = true;
        d.usedPromos.somebody = ['X'];
      }),
    );
    expect(store.read().reservations[uuid].manual_adjustment).toBe(true);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).reservations[uuid].manual_adjustment).toBe(true);
    // a few records' worth, not the document (which the store parsed and stringified whole before)
    expect(work.parsed, `parsed ${work.parsed} of ${size} characters`).toBeLessThan(size / 20);
    expect(work.stringified, `stringified ${work.stringified} of ${size} characters`).toBeLessThan(size / 20);
    // the kept chunks' bytes go to the file as they are: what is encoded is the chunks the change touched
    expect(work.encoded, `encoded ${work.encoded} of ${size} characters`).toBeLessThan(size / 5);
    // a record the transaction did not change is the same object: nothing was read again
    expect(store.read().reservations[other]).toBe(untouched);
    await store.close();
  });

  it('a re-read after another process wrote parses only the lines that differ', async () => {
    const a = await open();
    await grow(a, 300);
    const b = await open();
    const [uuid, other] = Object.keys(a.read().reservations);
    const untouched = a.read().reservations[other];
    await b.transact((d) => {
      d.reservations[uuid].manual_adjustment = true;
    });
    const size = readFileSync(statePath, 'utf8').length;
    await new Promise((r) => setImmediate(r)); // a.read() looks at the file once per event-loop turn
    let seen!: SandboxState;
    const work = await jsonWork(() => {
      seen = a.read();
    });
    expect(seen.reservations[uuid].manual_adjustment).toBe(true);
    expect(work.parsed, `parsed ${work.parsed} of ${size} characters`).toBeLessThan(size / 20);
    expect(seen.reservations[other]).toBe(untouched);
    // what it holds is what the file says
    expect(plain(seen)).toEqual(JSON.parse(readFileSync(statePath, 'utf8')));
    // and what it writes from the chunks it took from that file: a change, a removal and an addition among them
    const keys = Object.keys(seen.invoices);
    await a.transact((d) => {
      d.invoices[keys[100]].description = 'changed in the middle of a chunk';
      delete d.invoices[keys[200]];
      d.usedPromos.added = ['1'];
    });
    const written = readFileSync(statePath, 'utf8');
    expect(JSON.parse(written)).toEqual(plain(a.read()));
    expect(JSON.parse(written).invoices[keys[100]].description).toBe('changed in the middle of a chunk');
    expect(keys[200] in JSON.parse(written).invoices).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(plain(b.read())).toEqual(JSON.parse(written));
    await a.close();
    await b.close();
  });

  it('two stores taking turns with additions, changes, removals and a reset: each reads back exactly the file the other wrote', async () => {
    const a = await open();
    await grow(a, 200);
    const b = await open();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 40; round++) {
      const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
      if (round === 25) await writer.reseed();
      else {
        await writer.transact((d) => {
          for (let op = 0; op < 1 + random(4); op++) {
            const coll = COLLS[random(4) === 0 ? 3 : random(2)];
            const keys = Object.keys(d[coll]);
            const kind = random(5);
            if (kind === 0 && keys.length > 0) delete d[coll][keys[random(keys.length)]];
            else if (kind === 1 && keys.length > 0) (d[coll][keys[random(keys.length)]] as any).changed = `${round}:${op}`;
            else if (kind === 2) d.clockOffsetMs = round;
            else (d[coll] as any)[`added-${round}-${op}`] = { ...(d[coll][keys[0]] ?? {}), customer_id: 'somebody', reservation_uuid: 'x' };
          }
        });
      }
      await new Promise((r) => setImmediate(r));
      const file = JSON.parse(readFileSync(statePath, 'utf8'));
      expect(plain(reader.read()), `round ${round}`).toEqual(file);
      expect(plain(writer.read()), `round ${round}`).toEqual(file);
      // the tag lookups follow: a customer's reservations are those the file lists for them
      const customer = Object.values(file.reservations as Record<string, any>)[0]?.customer_id;
      if (customer !== undefined) {
        const want = Object.values(file.reservations as Record<string, any>).filter((r) => r.customer_id === customer).map((r) => r.uuid).sort();
        expect(reservationsOf(reader.read(), customer).map((r) => r.uuid).sort(), `round ${round}`).toEqual(want);
      }
    }
    await a.close();
    await b.close();
  });

  it('a file in another layout (compact, as an earlier build wrote it, or pretty) is read whole and written in lines by the next write', async () => {
    const seeded = await open();
    await grow(seeded, 30);
    const state = plain(seeded.read());
    await seeded.close();
    for (const text of [JSON.stringify(state), JSON.stringify(state, null, 2)]) {
      writeFileSync(statePath, text, { mode: 0o600 });
      const store = await open();
      expect(plain(store.read())).toEqual(state);
      await store.transact((d) => {
        d.usedPromos.after = ['1'];
      });
      const written = readFileSync(statePath, 'utf8');
      expect(written.split('\n')[1]).toBe('"reservations":{');
      expect(JSON.parse(written)).toEqual({ ...state, usedPromos: { ...state.usedPromos, after: ['1'] } });
      await store.close();
      // and what it wrote reads back the same in another process
      const again = await open();
      expect(plain(again.read())).toEqual(JSON.parse(written));
      await again.close();
    }
  });

  it('keys with quotes, backslashes, non-ASCII and line separators go through a re-read', async () => {
    const a = await open();
    const b = await open();
    const keys = ['cus_1:a"b\\c', 'cus_1:ünï\u2028\u2029x', 'cus_1:\u0001ctl', 'cus_1:"},'];
    await b.transact((d) => {
      for (const k of keys) d.idempotency[k] = { operation: 'createReservation', fingerprint: k, status: 200, body: `{"data":"${k.length}"}\n`, created_at: 'x' };
    });
    await new Promise((r) => setImmediate(r));
    for (const k of keys) expect(a.read().idempotency[k]?.fingerprint, k).toBe(k);
    expect(plain(a.read())).toEqual(JSON.parse(readFileSync(statePath, 'utf8')));
    await a.close();
    await b.close();
  });

  it('a line that looks like a record but is damaged is reported as the whole document would be, naming the file', async () => {
    const store = await open();
    await grow(store, 30);
    await store.close();
    const lines = readFileSync(statePath, 'utf8').split('\n');
    lines[3] = lines[3].slice(0, 40);
    writeFileSync(statePath, lines.join('\n'));
    const err = await open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateFileError);
    expect((err as Error).message).toMatch(new RegExp(`^sandbox state file ${statePath}: not valid JSON \\(`));
  });

  it('the draft: keys, membership and tag lookups see what the transaction added, changed and removed; the committed state is untouched until the write', async () => {
    const store = await open();
    const before = plain(store.read());
    const [first, second] = Object.keys(store.read().reservations);
    const customer = store.read().reservations[first].customer_id;
    await store.transact((d) => {
      const copy = { ...d.reservations[first], uuid: 'added' };
      d.reservations.added = copy;
      copy.days = 99; // changed after it was set: written as it is at the end
      delete d.reservations[second];
      expect('added' in d.reservations).toBe(true);
      expect(second in d.reservations).toBe(false);
      expect(Object.keys(d.reservations)).toContain('added');
      expect(Object.keys(d.reservations)).not.toContain(second);
      expect(reservationsOf(d, customer).map((r) => r.uuid)).toContain('added');
      expect(readTagged(d, 'reservations', `c:${customer}`).map((r) => r.uuid)).not.toContain(second);
      d.reservations[first].status = 'cancelled';
      // the committed state still holds what the file says
      expect(plain(store.read())).toEqual(before);
    });
    const after = store.read();
    expect(after.reservations.added.days).toBe(99);
    expect(after.reservations[second]).toBeUndefined();
    expect(after.reservations[first].status).toBe('cancelled');
    expect(readTagged(after, 'reservations', `n:${customer}`).map((r) => r.uuid)).not.toContain(first);
    expect(readTagged(after, 'reservations', `c:${customer}`).map((r) => r.uuid)).toContain('added');
    expect(plain(after)).toEqual(JSON.parse(readFileSync(statePath, 'utf8')));
    await store.close();
  });
});
