import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import nodeFs, { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, vi } from 'vitest';
import { StateFileError, startSandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/sandbox/store.js';
import { FIXED_NOW, dirTest, newKey, tripBody } from './harness.js';

const test = dirTest;

const now = () => FIXED_NOW;

/** The whole state in a file, every record parsed (and so checked). */
async function readState(statePath: string) {
  const store = await openStore({ statePath, now, verify: true });
  const s = store.read();
  const plain = JSON.parse(JSON.stringify({ ...s, ...Object.fromEntries(['reservations', 'invoices', 'refunds', 'idempotency', 'usedPromos', 'agentFlows'].map((c) => [c, { ...(s as any)[c] }])) }));
  await store.close();
  return plain;
}
const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

describe('state file', () => {
  test('is created from the seed when missing, in a directory created on the way', async ({ dir }) => {
    const statePath = join(dir, 'nested', 'deeper', 'state.json');
    const sb = await startSandbox({ statePath, now, quiet: true });
    await sb.close();
    expect(readFileSync(statePath, 'utf8').split('\n')[0]).toBe('carrental-sandbox-state-log 2');
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    const state = await readState(statePath);
    expect(state).toMatchObject({ format: 'carrental-sandbox-state', seed: 1, fleetSize: 300, anchor: FIXED_NOW.toISOString() });
  });

  test('refuses a corrupt file with an error naming it, and leaves it untouched', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const good = join(dir, 'good.json');
    await (await openStore({ statePath: good, now })).close();
    const log = readFileSync(good, 'utf8');
    const firstRecord = log.indexOf('\n') + 1;
    const damaged = [
      // cut inside the first group: no complete snapshot
      log.slice(0, 4096),
      // a commit line that does not match its group
      log.replace(/#\t(\d+)\t/, (_, n) => `#\t${Number(n) + 1}\t`),
      // a record line without its fields
      `${log.slice(0, firstRecord)}garbage\n${log.slice(firstRecord)}`,
      'carrental-sandbox-state-log 3\n',
    ];
    for (const content of ['{"format": "carrental-sandbox-st', '{"hello": "world"}', '[]', '', ...damaged]) {
      writeFileSync(statePath, content);
      const err = await startSandbox({ statePath, now, quiet: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateFileError);
      expect((err as Error).message).toContain(statePath);
      expect(readFileSync(statePath, 'utf8')).toBe(content);
    }
  });

  test('re-seeds a corrupt or existing file only with reset', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    writeFileSync(statePath, 'garbage');
    const sb = await startSandbox({ statePath, now, reset: true, quiet: true });
    await sb.close();
    expect(readFileSync(statePath, 'utf8')).toMatch(/^carrental-sandbox-state-log 2\n/);
  });

  test('reports a record whose bytes changed when it is read, and on open when asked to verify', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await (await openStore({ statePath, now })).close();
    const log = readFileSync(statePath, 'utf8');
    // a bit flip inside a reservation's JSON (same length, so only the hash can tell)
    const at = log.indexOf('"status":"new"');
    writeFileSync(statePath, `${log.slice(0, at)}"status":"nex"${log.slice(at + 14)}`);
    await expect(openStore({ statePath, now, verify: true })).rejects.toThrow(/does not match its hash/);
    const lazy = await openStore({ statePath, now });
    expect(() => Object.values(lazy.read().reservations)).toThrow(StateFileError);
    await lazy.close();
  });

  test('drops an append that never finished (a writer killed mid-write) and cuts it off at the next write', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const a = await openStore({ statePath, now });
    await a.transact((s) => {
      s.usedPromos.kept = ['x'];
    });
    await a.close();
    const whole = readFileSync(statePath, 'utf8');
    appendFileSync(statePath, '0123456789abcdef\tusedPromos\ttorn\t\t["never acknowl');
    const b = await openStore({ statePath, now });
    expect(b.read().usedPromos.kept).toEqual(['x']);
    expect(b.read().usedPromos.torn).toBeUndefined();
    await b.transact((s) => {
      s.usedPromos.after = ['y'];
    });
    await b.close();
    expect(readFileSync(statePath, 'utf8').startsWith(whole)).toBe(true);
    expect(readFileSync(statePath, 'utf8')).not.toContain('never acknowl');
    expect((await readState(statePath)).usedPromos).toMatchObject({ kept: ['x'], after: ['y'] });
  });

  test('reads a version 1 file (one JSON document) and rewrites it as a log, keeping everything', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const mem = await openStore({ now });
    const v1 = { ...mem.read(), reservations: { ...mem.read().reservations }, invoices: { ...mem.read().invoices }, refunds: {}, idempotency: {}, usedPromos: { cus_x: ['FIRSTRIDE'] }, agentFlows: {}, version: 1 };
    writeFileSync(statePath, JSON.stringify(v1));
    const state = await readState(statePath);
    expect(Object.keys(state.reservations).sort()).toEqual(Object.keys(v1.reservations).sort());
    expect(state.usedPromos).toEqual({ cus_x: ['FIRSTRIDE'] });
    expect(readFileSync(statePath, 'utf8')).toMatch(/^carrental-sandbox-state-log 2\n/);
  });

  test('appends only what a write changed, and compacts when the log is mostly history', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const store = await openStore({ statePath, now });
    const size0 = statSync(statePath).size;
    await store.transact((s) => {
      s.usedPromos.one = ['A'];
    });
    const grown = statSync(statePath).size - size0;
    expect(grown).toBeLessThan(200);
    // rewriting one 4 KB record over and over: the file stays near its live size
    for (let i = 0; i < 400; i++) {
      await store.transact((s) => {
        s.usedPromos.big = [String(i).padEnd(4000, '.')];
      });
    }
    const { file_bytes, live_bytes } = store.stats();
    expect(file_bytes).toBeLessThanOrEqual(2 * live_bytes + (1 << 20) + 5000);
    expect(statSync(statePath).size).toBe(file_bytes);
    await store.close();
    expect((await readState(statePath)).usedPromos.big[0]).toMatch(/^399\./);
  });

  test('refuses a write whose append came out short, cuts the file back, and keeps going', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const store = await openStore({ statePath, now });
    await store.transact((s) => {
      s.usedPromos.before = ['x'];
    });
    const good = readFileSync(statePath);
    // the next write() writes half of what it was given, then none: a disk that fills up
    const real = nodeFs.writeSync;
    let calls = 0;
    const spy = vi.spyOn(nodeFs, 'writeSync').mockImplementation(((fd: number, buf: Uint8Array, off: number, len: number, pos: number) => {
      calls++;
      return calls === 1 ? real(fd, buf, off, Math.floor(len / 2), pos) : 0;
    }) as typeof nodeFs.writeSync);
    syncBuiltinESMExports();
    try {
      const err = await store.transact((s) => {
        s.usedPromos.refused = ['y'.repeat(5000)];
      }).catch((e: unknown) => e);
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      spy.mockRestore();
      syncBuiltinESMExports();
    }
    expect(calls).toBe(2);
    expect(readFileSync(statePath).equals(good)).toBe(true);
    expect(store.read().usedPromos.refused).toBeUndefined();
    await store.transact((s) => {
      s.usedPromos.after = ['z'];
    });
    await store.close();
    const state = await readState(statePath);
    expect(state.usedPromos).toMatchObject({ before: ['x'], after: ['z'] });
    expect(state.usedPromos.refused).toBeUndefined();
  });

  test('keeps the old file and answers with the error when the disk is full', async ({ dir }) => {
    // A real small filesystem (tmpfs) where the test can mount one.
    const mnt = join(dir, 'small');
    mkdirSync(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=400k', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      return; // not root: the injected short write of test/store covers the writer
    }
    try {
      const statePath = join(mnt, 'state.json');
      const store = await openStore({ statePath, now });
      const before = readFileSync(statePath);
      const index = existsSync(`${statePath}.idx`) ? statSync(`${statePath}.idx`).size : 0;
      writeFileSync(join(mnt, 'filler'), Buffer.alloc(400 * 1024 - before.length - index - 8192));
      let failed: unknown = null;
      for (let i = 0; i < 20 && !failed; i++) {
        await store
          .transact((s) => {
            s.usedPromos[`p${i}`] = ['x'.repeat(3000)];
          })
          .catch((err: unknown) => (failed = err));
      }
      expect((failed as NodeJS.ErrnoException).code).toBe('ENOSPC');
      await store.close();
      rmSync(join(mnt, 'filler'));
      // every acknowledged write is there, the refused one is not, and the file loads
      const state = await readState(statePath);
      const written = Object.keys(state.usedPromos).filter((k) => k.startsWith('p'));
      for (const k of written) expect(state.usedPromos[k]).toEqual(['x'.repeat(3000)]);
      expect(written.length).toBeLessThan(20);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });

  test('refuses an explicit seed or fleet size that differs from the file', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    await (await startSandbox({ statePath, now, quiet: true })).close();
    await expect(startSandbox({ statePath, now, seed: 2, quiet: true })).rejects.toThrow(/seed 1, not 2/);
    await expect(startSandbox({ statePath, now, fleetSize: 50, quiet: true })).rejects.toThrow(/300 cars, not 50/);
    const again = await startSandbox({ statePath, now, seed: 1, quiet: true });
    expect(again.keys.booking_write).toMatch(/^svc_/);
    await again.close();
  });

  test('keeps the clock offset set through the admin endpoint', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const a = await startSandbox({ statePath, now, quiet: true });
    await fetch(`${a.adminUrl}/clock`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ advance_seconds: 3600 }) });
    await a.close();
    const b = await startSandbox({ statePath, now, quiet: true });
    const clock = await fetch(`${b.adminUrl}/clock`).then((r) => r.json() as Promise<any>);
    expect(clock).toMatchObject({ now: '2026-03-10T19:00:00.000Z', offset_ms: 3_600_000, local: { la: '2026-03-10T12:00', miami: '2026-03-10T15:00' } });
    await b.close();
  });
});

describe('two sandboxes on one state file', () => {
  test('see each other\'s writes and lose none under concurrent creates', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const config = { maxActiveReservations: 1000 };
    const a = await startSandbox({ statePath, now, quiet: true, config });
    const b = await startSandbox({ statePath, now, quiet: true, config });
    try {
      const list = await fetch(`${a.baseUrl}/cars?limit=200&date_from=${FROM}&date_to=${TO}`).then((r) => r.json() as Promise<any>);
      const alias = list.data.cars.find((c: any) => c.is_available).car_alias;
      const create = (base: string) =>
        fetch(`${base}/my/reservation`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${a.keys.booking_write}`, 'Idempotency-Key': newKey(), 'Content-Type': 'application/json' },
          body: JSON.stringify(tripBody(alias, FROM, TO)),
        }).then((r) => r.json() as Promise<any>);
      const N = 15;
      const created = await Promise.all(Array.from({ length: 2 * N }, (_, i) => create(i % 2 ? a.baseUrl : b.baseUrl)));
      const uuids = created.map((c) => c.data as string);
      expect(new Set(uuids).size).toBe(2 * N);

      const file = await readState(statePath);
      for (const u of uuids) expect(file.reservations[u]).toBeDefined();
      for (const sb of [a, b]) {
        const listed = await fetch(`${sb.adminUrl}/reservations?customer=dana`).then((r) => r.json() as Promise<any>);
        expect(listed.uuids).toEqual(expect.arrayContaining(uuids));
        const one = await fetch(`${sb.baseUrl}/my/reservation/${uuids[0]}`, { headers: { 'X-API-Key': a.keys.booking_write } });
        expect(one.status).toBe(200);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('a file replaced under another process', () => {
  test('by a compaction or a reset: the other process reloads it and keeps writing', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const a = await openStore({ statePath, now });
    const b = await openStore({ statePath, now });
    await b.transact((s) => {
      s.usedPromos.fromB = ['1'];
    });
    const inode = statSync(statePath).ino;
    for (let i = 0; statSync(statePath).ino === inode; i++) {
      expect(i, 'a compaction happens').toBeLessThan(1000);
      await a.transact((s) => {
        s.usedPromos.big = [String(i).padEnd(4000, '.')];
      });
    }
    const last = a.read().usedPromos.big[0];
    await new Promise((r) => setImmediate(r));
    expect(b.read().usedPromos.big[0]).toBe(last);
    expect(b.read().usedPromos.fromB).toEqual(['1']);
    await b.transact((s) => {
      s.usedPromos.afterCompaction = ['2'];
    });
    await new Promise((r) => setImmediate(r));
    expect(a.read().usedPromos.afterCompaction).toEqual(['2']);
    // a reset by another process: both see the fresh world
    await b.reseed();
    await new Promise((r) => setImmediate(r));
    expect(a.read().usedPromos.big).toBeUndefined();
    await a.transact((s) => {
      s.usedPromos.afterReset = ['3'];
    });
    await a.close();
    await b.close();
    expect((await readState(statePath)).usedPromos).toMatchObject({ afterReset: ['3'] });
  });
});

describe('a writer killed with SIGKILL', () => {
  test('never leaves a file that fails to load, nor loses an acknowledged write', async ({ dir }) => {
    const statePath = join(dir, 'state.json');
    const script = join(dir, 'hammer.mjs');
    const entry = join(dir, 'hammer.ts');
    writeFileSync(
      entry,
      `import { openStore } from ${JSON.stringify(resolve('src/sandbox/store.ts'))};
const store = await openStore({ statePath: process.argv[2], now: () => new Date(${JSON.stringify(FIXED_NOW.toISOString())}), lockStaleMs: 2000 });
const tag = process.argv[3];
for (let i = 0; ; i++) {
  const id = tag + '-' + i;
  // A few kilobytes per write, so the kill often lands mid-write.
  await store.transact((s) => { s.usedPromos[id] = [id.padEnd(4000, '.')]; });
  process.stdout.write(id + '\\n');
}
`,
    );
    await build({
      entryPoints: [entry],
      outfile: script,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      // CJS dependencies (proper-lockfile, write-file-atomic) use require and __filename.
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url);",
      },
    });
    const parent = await openStore({ statePath, now, lockStaleMs: 2000 });
    const acknowledged: string[] = [];

    for (const [round, killAfter] of [[0, 5], [1, 23], [2, 41]] as const) {
      const child = spawn(process.execPath, [script, statePath, `child${round}`], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise((r) => child.once('exit', r));
      let buffered = '';
      let seen = 0;
      let parentWrite: Promise<void> | null = null;
      await new Promise<void>((done, fail) => {
        const early = (code: number | null) => fail(new Error(`the writer exited early (${code})`));
        child.once('exit', early);
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          acknowledged.push(...lines);
          seen += lines.length;
          // The parent competes for the lock while the child hammers.
          if (!parentWrite && seen >= killAfter / 2) {
            const id = `parent-${round}`;
            parentWrite = parent.transact((st) => {
              st.usedPromos[id] = ['x'];
            }).then(() => {
              acknowledged.push(id);
            });
          }
          if (seen >= killAfter) {
            // Right after an acknowledgement the child is already in its next write.
            child.kill('SIGKILL');
            child.off('exit', early);
            done();
          }
        });
      });
      await exited;
      await parentWrite;

      const reopened = await openStore({ statePath, now, lockStaleMs: 2000 });
      const state = reopened.read();
      for (const ack of acknowledged) expect(state.usedPromos[ack], ack).toBeDefined();
      await reopened.close();
    }
    // After the kills the parent still writes (a stale lock expires).
    await parent.transact((s) => {
      s.usedPromos.final = ['x'];
    });
    expect((await readState(statePath)).usedPromos.final).toEqual(['x']);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
    await parent.close();
  }, 60_000);
});
