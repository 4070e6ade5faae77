// Node 20's `carrental sandbox serve` at the JSON store's bound (issue 35): on a history one
// short of MAX_RESERVATIONS its memory stays under 300 MB and a create over HTTP costs
// at most 50 ms of CPU in the server (read from /proc, with headroom for a loaded machine);
// the create past the bound is refused (409 sandbox_state_full). Needs the build; runs only
// where there is no node:sqlite (the CLI chooses the JSON store by its Node) and on Linux.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RESERVATIONS } from '../../src/sandbox/json-store.js';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { openStore } from '../../src/sandbox/store.js';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { FIXED_NOW, newKey, tempDir, tripBody } from './harness.js';
import { grow } from './json-history.js';

/** CPU (user + system, ms, 10 ms ticks) and peak RSS (MB) of a process. */
const cpuOf = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

describe.skipIf(loadSqlite() !== null || !existsSync('/proc/self/stat'))("Node 20's sandbox serve at the bound", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterEach(() => cleanup());

  it(`one short of ${MAX_RESERVATIONS} reservations: creates cost at most 50 ms of CPU, the server stays under 300 MB, the create past the bound is refused`, async () => {
    assertBuilt();
    const statePath = join(dir, 'state.json');
    const store = await openStore({ statePath, now: () => FIXED_NOW, kind: 'json' });
    const creates = 5;
    await grow(store, MAX_RESERVATIONS - creates);
    await store.close();

    const home = join(dir, 'home');
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--state', statePath, '--port', '0', '--no-rate-limit', '--no-log', '--json'], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        CARRENTAL_CONFIG_DIR: join(home, 'c'),
        CARRENTAL_STATE_DIR: join(home, 's'),
        CARRENTAL_DATA_DIR: join(home, 'd'),
        CARRENTAL_SANDBOX_NOW: FIXED_NOW.toISOString(),
        CARRENTAL_SANDBOX_CONFIG: JSON.stringify({ maxActiveReservations: 100 }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const first = await new Promise<string>((done, fail) => {
        createInterface({ input: child.stdout }).once('line', done);
        child.once('exit', (code) => fail(new Error(`sandbox serve exited with ${code}`)));
      });
      const { base_url: base, keys } = JSON.parse(first) as { base_url: string; keys: Record<string, string> };
      const auth = { Authorization: `Bearer ${keys.booking_write}` };
      const day = (d: number) => new Date(FIXED_NOW.getTime() + d * 86_400_000).toISOString().slice(0, 10);
      const create = async (n: number) => {
        const from = `${day(200 + 3 * n)}T10:00`;
        const to = `${day(202 + 3 * n)}T10:00`;
        const list = (await fetch(`${base}/cars?limit=200&date_from=${from}&date_to=${to}`).then((r) => r.json())) as any;
        const alias = list.data.cars.find((c: any) => c.is_available).car_alias;
        const before = cpuOf(child.pid as number);
        const res = await fetch(`${base}/my/reservation`, {
          method: 'POST',
          headers: { ...auth, 'Idempotency-Key': newKey(), 'Content-Type': 'application/json' },
          body: JSON.stringify(tripBody(alias, from, to)),
        });
        const body = (await res.json()) as any;
        return { status: res.status, body, cpu: cpuOf(child.pid as number) - before };
      };
      const cpu: number[] = [];
      for (let n = 0; n < creates; n++) {
        const made = await create(n);
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        cpu.push(made.cpu);
      }
      const refused = await create(creates);
      expect(refused.status).toBe(409);
      expect(refused.body.error_code).toBe('sandbox_state_full');
      const rss = peakRssMb(child.pid as number);
      const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
      console.log(`sandbox serve at ${MAX_RESERVATIONS}: CPU per create ${cpu.join(', ')} ms (10 ms ticks), peak RSS ${rss.toFixed(0)} MB`);
      // 50 ms on a quiet machine; 3x for a machine shared by a dozen test runs
      expect(mean, `CPU per create (ms): ${cpu.join(', ')}`).toBeLessThan(150);
      expect(rss).toBeLessThan(300);
    } finally {
      child.kill('SIGTERM');
    }
  }, 180_000);
});
