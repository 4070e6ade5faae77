// What every sandbox store promises (src/sandbox/store.ts): the SQLite store
// (store-sqlite.test.ts, Node 22+) and the Node 20 JSON store (store-json.test.ts) both run it.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateFileError, startSandbox } from '../../src/sandbox/index.js';
import { type StoreKind, type StoreOptions, openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, newKey, tempDir, tripBody } from './harness.js';
import { seedAnchor } from '../../src/sandbox/fixtures.js';

const now = () => FIXED_NOW;
const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';
const COLLS = ['reservations', 'invoices', 'refunds', 'idempotency', 'usedPromos', 'agentFlows'] as const;

/** A state written by the build before the database (the append-only log), and what it holds. */
export const LOG_FIXTURE = resolve('test/fixtures/sandbox-state-log2.txt');
const LOG_FIXTURE_HOLDS = {
  paid: '9a4dc4ec-ab1f-41a6-8ee8-cb2c84bbfe94',
  cancelled: '805b931d-9e87-47be-94ee-b9ec82f7d280',
  unpaid: '5de9351e-d99b-43bf-a306-c5526adbcd27',
  counts: { reservations: 13, invoices: 31, refunds: 3, idempotency: 4 },
  clockOffsetMs: 3_600_000,
};

export function storeContract(kind: StoreKind) {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(() => cleanup());

  const open = (statePath: string, more: Partial<StoreOptions> = {}) => openStore({ statePath, now, kind, ...more });
  /** The whole state in a file, as plain objects. */
  const readState = async (statePath: string) => {
    const store = await open(statePath, { verify: true });
    const s = store.read() as any;
    const plain = JSON.parse(JSON.stringify({ ...s, ...Object.fromEntries(COLLS.map((c) => [c, { ...s[c] }])) }));
    await store.close();
    return plain;
  };

  describe(`the ${kind} store`, () => {
    it('is created from the seed when missing, 0600, in a directory created on the way', async () => {
      const statePath = join(dir, 'nested', 'deeper', 'state.json');
      const store = await open(statePath);
      expect(store.kind).toBe(kind);
      await store.transact((s) => {
        s.usedPromos.x = ['1'];
      });
      expect(statSync(statePath).mode & 0o777).toBe(0o600);
      // while it is open: the database's -wal and -shm too
      const files = readdirSync(join(dir, 'nested', 'deeper'));
      if (kind === 'sqlite') expect(files.sort()).toEqual(['state.json', 'state.json-shm', 'state.json-wal']);
      for (const f of files) expect(statSync(join(dir, 'nested', 'deeper', f)).mode & 0o777, f).toBe(0o600);
      await store.close();
      expect(await readState(statePath)).toMatchObject({ format: 'carrental-sandbox-state', seed: 1, fleetSize: 300, anchor: seedAnchor(FIXED_NOW).toISOString() });
    });

    it('commits a transaction whole, keeps nothing of one that throws, and another store sees the commit', async () => {
      const statePath = join(dir, 'state.json');
      const a = await open(statePath);
      const b = await open(statePath);
      await expect(
        a.transact((s) => {
          s.usedPromos.x = ['1'];
          s.clockOffsetMs = 99;
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(a.read().usedPromos.x).toBeUndefined();
      expect(a.read().clockOffsetMs).toBe(0);
      const got = await a.transact((s) => {
        s.usedPromos.x = ['1'];
        s.usedPromos.y = ['2'];
        delete s.usedPromos.y;
        s.clockOffsetMs = 5;
        return 'done';
      });
      expect(got).toBe('done');
      await new Promise((r) => setImmediate(r));
      expect(b.read().usedPromos.x).toEqual(['1']);
      expect('y' in b.read().usedPromos).toBe(false);
      expect(b.read().clockOffsetMs).toBe(5);
      // a record changed in place in the draft is written
      await b.transact((s) => {
        s.usedPromos.x.push('2');
      });
      await new Promise((r) => setImmediate(r));
      expect(a.read().usedPromos.x).toEqual(['1', '2']);
      // a reset by another process: both see the fresh world
      await b.reseed();
      await new Promise((r) => setImmediate(r));
      expect(a.read().usedPromos.x).toBeUndefined();
      await a.close();
      await b.close();
    });

    it('two sandboxes on one file see each other and lose no create under concurrent writes', async () => {
      const statePath = join(dir, 'state.json');
      const config = { maxActiveReservations: 1000 };
      const a = await startSandbox({ statePath, now, quiet: true, config, store: kind });
      const b = await startSandbox({ statePath, now, quiet: true, config, store: kind });
      try {
        const list = await fetch(`${a.baseUrl}/cars?limit=200&date_from=${FROM}&date_to=${TO}`).then((r) => r.json() as Promise<any>);
        const alias = list.data.cars.find((c: any) => c.is_available).car_alias;
        const create = (base: string) =>
          fetch(`${base}/my/reservation`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${a.keys.booking_write}`, 'Idempotency-Key': newKey(), 'Content-Type': 'application/json' },
            body: JSON.stringify(tripBody(alias, FROM, TO)),
          }).then((r) => r.json() as Promise<any>);
        const created = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 ? a.baseUrl : b.baseUrl)));
        const uuids = created.map((c) => c.data as string);
        expect(new Set(uuids).size).toBe(20);
        const file = await readState(statePath);
        for (const u of uuids) expect(file.reservations[u]).toBeDefined();
        for (const sb of [a, b]) {
          const one = await fetch(`${sb.baseUrl}/my/reservation/${uuids[0]}`, { headers: { 'X-API-Key': a.keys.booking_write } });
          expect(one.status).toBe(200);
        }
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('refuses an explicit seed or fleet size that differs from the file', async () => {
      const statePath = join(dir, 'state.json');
      await (await open(statePath)).close();
      await expect(open(statePath, { seed: 2 })).rejects.toThrow(/seed 1, not 2/);
      await expect(open(statePath, { fleetSize: 50 })).rejects.toThrow(/300 cars, not 50/);
      await (await open(statePath, { seed: 1 })).close();
    });

    it('imports a state file of the log build: every record and the clock kept, the old file beside it as .bak', async () => {
      const statePath = join(dir, 'state.json');
      const original = readFileSync(LOG_FIXTURE);
      writeFileSync(statePath, original, { mode: 0o600 });
      writeFileSync(`${statePath}.idx`, 'the log store index');
      const s = await readState(statePath);
      expect(readFileSync(`${statePath}.bak`)).toEqual(original);
      expect(existsSync(`${statePath}.idx`), 'the old index is removed').toBe(false);
      for (const [coll, n] of Object.entries(LOG_FIXTURE_HOLDS.counts)) expect(Object.keys(s[coll]).length, coll).toBe(n);
      expect(s.clockOffsetMs).toBe(LOG_FIXTURE_HOLDS.clockOffsetMs);
      expect(s.reservations[LOG_FIXTURE_HOLDS.cancelled].status).toBe('cancelled');
      const paid = Object.values(s.invoices as Record<string, any>).filter((i) => i.reservation_uuid === LOG_FIXTURE_HOLDS.paid);
      expect(paid.map((i) => `${i.type} ${i.billing_status}`).sort()).toEqual(['DEPOSIT HOLD', 'RENT PAID']);
      // the sandbox answers from it: the unpaid trip, and a replay of its create
      const sb = await startSandbox({ statePath, now, quiet: true, store: kind });
      const trip = await fetch(`${sb.baseUrl}/my/reservation/${LOG_FIXTURE_HOLDS.unpaid}`, { headers: { 'X-API-Key': sb.keys.booking_write } });
      expect(trip.status).toBe(200);
      await sb.close();
      // opened again: nothing imported twice
      await readState(statePath);
      expect(existsSync(`${statePath}.1.bak`)).toBe(false);
    });

    it('reports a damaged or foreign file naming it, never re-seeds it, and leaves it untouched', async () => {
      const statePath = join(dir, 'state.json');
      const log = readFileSync(LOG_FIXTURE, 'utf8');
      const contents = [
        '{"format": "carrental-sandbox-st',
        '{"hello": "world"}',
        '[]',
        'garbage that is no state',
        log.replace(/#\t(\d+)\t/, (_, n) => `#\t${Number(n) + 1}\t`),
        log.replace('"seed":1', '"seed":2'),
        `SQLite format 3\0${'x'.repeat(200)}`,
      ];
      for (const content of contents) {
        writeFileSync(statePath, content);
        const err = await open(statePath).catch((e: unknown) => e);
        expect(err, content.slice(0, 40)).toBeInstanceOf(StateFileError);
        expect((err as Error).message).toContain(statePath);
        expect(readFileSync(statePath, 'utf8')).toBe(content);
      }
    });

    it('re-seeds a damaged file with reset, through a symbolic link to its target', async () => {
      const target = join(dir, 'real-state.json');
      const link = join(dir, 'state.json');
      writeFileSync(target, 'garbage');
      symlinkSync(target, link);
      const store = await open(link, { reset: true });
      await store.transact((s) => {
        s.usedPromos.after = ['1'];
      });
      await store.close();
      expect(statSync(link, { throwIfNoEntry: true }).isFile()).toBe(true);
      expect(readdirSync(dir).filter((f) => f === 'state.json' || f === 'real-state.json').sort()).toEqual(['real-state.json', 'state.json']);
      expect((await readState(target)).usedPromos.after).toEqual(['1']);
      // the link is still a link
      expect(execFileSync('readlink', [link], { encoding: 'utf8' }).trim()).toBe(target);
    });

    it('a FIFO at the state path is an error within a second, never a hang', async () => {
      const statePath = join(dir, 'fifo');
      execFileSync('mkfifo', [statePath]);
      const started = Date.now();
      for (const reset of [false, true]) {
        const err = await open(statePath, { reset }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StateFileError);
        expect((err as Error).message).toMatch(/not a regular file \(a FIFO\)/);
      }
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('an acknowledged write survives kill -9 of its writer', async () => {
      const statePath = join(dir, 'state.json');
      const script = await writerScript(dir);
      const acknowledged: string[] = [];
      for (const [round, killAfter] of [[0, 5], [1, 23], [2, 41]] as const) {
        const child = spawn(process.execPath, [script, statePath, `child${round}`, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
        const exited = new Promise((r) => child.once('exit', r));
        let buffered = '';
        await new Promise<void>((done, fail) => {
          const early = (code: number | null) => fail(new Error(`the writer exited early (${code})`));
          child.once('exit', early);
          child.stdout.on('data', (chunk: Buffer) => {
            buffered += chunk.toString();
            const lines = buffered.split('\n');
            buffered = lines.pop() ?? '';
            acknowledged.push(...lines);
            if (acknowledged.length >= killAfter) {
              // right after an acknowledgement the child is already in its next write
              child.kill('SIGKILL');
              child.off('exit', early);
              done();
            }
          });
        });
        await exited;
        const state = await readState(statePath);
        for (const ack of acknowledged) expect(state.usedPromos[ack], ack).toBeDefined();
      }
    }, 60_000);
  });
}

/** A child that writes in a loop and prints each acknowledged write's id (bundled: there is no TS loader at run time). */
export async function writerScript(dir: string): Promise<string> {
  const script = join(dir, 'writer.mjs');
  const entry = join(dir, 'writer.ts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    entry,
    `import { openStore } from ${JSON.stringify(resolve('src/sandbox/store.ts'))};
const [statePath, tag, kind, count] = process.argv.slice(2);
const store = await openStore({ statePath, kind, now: () => new Date(${JSON.stringify(FIXED_NOW.toISOString())}) });
const n = count === undefined ? Infinity : Number(count);
for (let i = 0; i < n; i++) {
  const id = tag + '-' + i;
  try {
    await store.transact((s) => { s.usedPromos[id] = [id.padEnd(4000, '.')]; });
    process.stdout.write(id + '\\n');
  } catch (err) {
    process.stdout.write('error ' + err.name + ': ' + err.message + '\\n');
  }
}
await store.close();
`,
  );
  await build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url);",
    },
  });
  return script;
}
