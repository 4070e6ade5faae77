// A real `carrental sandbox serve` process (the built CLI) killed with SIGKILL in the middle
// of a stream of writes never leaves a state file that fails to load, nor loses a write it
// had acknowledged. store.test.ts proves it for the store alone; this proves it for the
// server: HTTP answers are sent only after the commit is on disk.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/sandbox/store.js';
import { BIN, assertBuilt } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';

let home: TestHome;
let child: ChildProcess | null = null;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  home.cleanup();
});

interface Info {
  base_url: string;
  keys: { booking_write: string; read_only: string };
}

async function serve(statePath: string): Promise<Info> {
  assertBuilt();
  child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--json', '--no-rate-limit', '--state', statePath], {
    env: home.env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child!.stdout! }).once('line', resolve);
    child!.once('exit', (code) => reject(new Error(`sandbox serve exited with ${code}: ${stderr}`)));
  });
  return JSON.parse(line);
}

const exited = (c: ChildProcess) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)));

describe('sandbox serve killed with SIGKILL during writes', () => {
  it('leaves a state file that loads, holding every acknowledged write', async () => {
    const statePath = join(home.dir, 'sandbox-state.json');
    const flows: string[] = [];
    const reservations: string[] = [];

    for (const killAfter of [7, 31, 60]) {
      const info = await serve(statePath);
      const headers = { Authorization: `Bearer ${info.keys.booking_write}`, 'Content-Type': 'application/json' };
      const trips = (await (await fetch(`${info.base_url}/my/trips`, { headers })).json()) as { data: { active: { uuid: string; balance_cents: number }[] } };
      const unpaid = trips.data.active.find((t) => t.balance_cents > 0)!;
      const cars = ((await (await fetch(`${info.base_url}/cars?city=miami&limit=200`)).json()) as { data: { cars: { car_alias: string }[] } }).data.cars;
      const proc = child!;
      let acked = 0;
      let killed = false;

      // Writers in parallel: link flows (one small transaction each) and reservations
      // (created, some cancelled), until the server dies under them.
      const writer = async (n: number) => {
        for (let i = 0; !killed; i++) {
          try {
            if ((n + i) % 3 === 0) {
              // the server runs on the real clock: trips a few weeks ahead of it
              const day = Date.now() + (30 + ((n * 7 + i) % 40)) * 86_400_000;
              const from = new Date(day).toISOString().slice(0, 10);
              const to = new Date(day + 2 * 86_400_000).toISOString().slice(0, 10);
              const res = await fetch(`${info.base_url}/my/reservation`, {
                method: 'POST',
                headers: { ...headers, 'Idempotency-Key': randomUUID() },
                body: JSON.stringify({ car_alias: cars[(n * 13 + i) % cars.length].car_alias, date_checkin: `${from}T10:00`, date_checkout: `${to}T10:00`, options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' } }),
              });
              const body = (await res.json()) as { data: string };
              if (res.status === 200) reservations.push(body.data);
            } else {
              const res = await fetch(`${info.base_url}/my/reservation/${unpaid.uuid}/payment-link`, { method: 'POST', headers, body: JSON.stringify({ payment_type: 'rent' }) });
              const body = (await res.json()) as { data: { agent_flow_id: string } };
              if (res.status === 200) flows.push(body.data.agent_flow_id);
            }
            acked++;
            if (acked >= killAfter && !killed) {
              killed = true;
              proc.kill('SIGKILL');
            }
          } catch {
            // the connection died with the server: that write was never acknowledged
            if (killed) return;
            throw new Error('a request failed before the kill');
          }
        }
      };
      await Promise.all(Array.from({ length: 6 }, (_, n) => writer(n)));
      await exited(proc);
      expect(proc.signalCode).toBe('SIGKILL');
      // every record of the file, checked against its hash
      await (await openStore({ statePath, now: () => new Date(), verify: true })).close();
    }

    // The last survivor: the file loads (after the killed holder's lock goes stale) and
    // holds everything that was acknowledged.
    const sb = await startSandbox({ statePath, quiet: true });
    try {
      const admin = (await (await fetch(`${sb.adminUrl}/agent-flows?customer=dana`)).json()) as { flows: { id: string }[] };
      const recorded = new Set(admin.flows.map((f) => f.id));
      expect(flows.length).toBeGreaterThan(20);
      for (const id of flows) expect(recorded.has(id), id).toBe(true);
      const listed = (await (await fetch(`${sb.adminUrl}/reservations?customer=dana`)).json()) as { uuids: string[] };
      for (const uuid of reservations) expect(listed.uuids, uuid).toContain(uuid);
    } finally {
      await sb.close();
    }
  }, 120_000);
});
