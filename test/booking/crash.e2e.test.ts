// The built CLI as a real process against a sandbox served from this test process:
// (b) SIGKILL after the request left and before the answer, then a rerun; (e) two
// identical commands started at once (see also concurrency.e2e.test.ts). Needs `npm run build` (npm test runs it first).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, test as base, describe, expect } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { Journal } from '../../src/store/journal.js';
import { assertBuilt, BIN } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { FROM, SANDBOX_NOW, TO, admin, faults, freeCars, requests, reservations } from './sandbox.js';


interface Proc {
  pid: number;
  kill(signal: NodeJS.Signals): void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * One test's world: its own sandbox (on SANDBOX_NOW), home, free car and CLI processes, so
 * that the four tests run at once (each waits seconds on a latency fault it injected).
 */
class World {
  private readonly running: Proc[] = [];

  private constructor(
    readonly sb: RunningSandbox,
    readonly home: TestHome,
    readonly alias: string,
  ) {}

  static async start(): Promise<World> {
    const sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true });
    const [alias] = await freeCars(sb, 1);
    await admin(sb, 'DELETE', '/requests');
    return new World(sb, new TestHome(), alias);
  }

  async stop(): Promise<void> {
    for (const p of this.running.splice(0)) {
      p.kill('SIGKILL');
      await p.done;
    }
    this.home.cleanup();
    await this.sb.close();
  }

  carrental(args: string[]): Proc {
    const child = spawn(process.execPath, [BIN, '--base-url', this.sb.baseUrl, ...args], {
      env: this.home.env({ CARRENTAL_API_KEY: this.sb.keys.booking_write, NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
    );
    const proc = { pid: child.pid!, kill: (s: NodeJS.Signals) => child.kill(s), done };
    this.running.push(proc);
    return proc;
  }

  private get stateDir() {
    return join(this.home.dir, 'state');
  }

  /** Entries whose outcome is unknown (done ones are kept for the replay window). */
  async unfinished() {
    return (await new Journal({ path: join(this.stateDir, 'journal.json') }).list()).filter((e) => e.state === 'pending');
  }

  async inFlight() {
    return (await admin<{ in_flight: number }>(this.sb, 'GET', '/stats')).in_flight;
  }

  /**
   * The journal is a complete JSON document with nothing left unfinished (the finished
   * command stays, done, for the replay window) and nothing else is left in the state dir
   * (no lock, no temp file).
   */
  expectCleanJournal(done = 1) {
    const disk = JSON.parse(readFileSync(join(this.stateDir, 'journal.json'), 'utf8')) as { version: number; entries: Array<{ state: string }> };
    expect(disk.version).toBe(2);
    expect(disk.entries.map((e) => e.state)).toEqual(Array(done).fill('done'));
    expect(readdirSync(this.stateDir)).toEqual(['journal.json']);
  }

  reserveArgs() {
    return ['reserve', this.alias, '--from', FROM, '--to', TO, '-y'];
  }

  async reserveOne(): Promise<string> {
    const r = await this.carrental(this.reserveArgs()).done;
    expect(r.code, r.stderr).toBe(0);
    await admin(this.sb, 'DELETE', '/requests');
    return r.stdout.trim();
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const test = base.extend('w', async ({}, { onCleanup }) => {
  const w = await World.start();
  onCleanup(() => w.stop());
  return w;
});

beforeAll(() => assertBuilt());

describe.concurrent('(b) the CLI process killed with SIGKILL while its request is in flight', () => {
  test('reserve: the journal keeps the key, the rerun returns the same uuid, one reservation', async ({ w }) => {
    // the server holds the request before committing; it commits after the client is gone
    await faults(w.sb, { kind: 'latency', operation: 'createReservation', ms: 2000, when: 'before_commit', times: 1 });
    const first = w.carrental(w.reserveArgs());
    await until('the create to reach the server', async () => (await w.inFlight()) === 1);
    first.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('');

    const [entry] = await w.unfinished();
    expect(entry).toMatchObject({ operation: 'createReservation', target: w.alias });

    const again = await w.carrental(w.reserveArgs()).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming a pending reserve from \d+ s ago with the same idempotency key/);
    const created = await reservations(w.sb, w.alias);
    expect(created).toHaveLength(1);
    expect(again.stdout.trim()).toBe(created[0].uuid);
    const log = await requests(w.sb, 'createReservation');
    expect(new Set(log.map((q) => q.idempotency_key))).toEqual(new Set([entry.key]));
    expect(log.at(-1)).toMatchObject({ status: 200, replayed: true });
    w.expectCleanJournal();
  });

  test('cancel: killed while the committed answer is held back, the rerun finishes with the same key', async ({ w }) => {
    const uuid = await w.reserveOne();
    // held back long enough for the rerun (a Node start) to be answered first: 3 s was once
    // too short in the alone lanes, and the held-back answer ended before the replay
    await faults(w.sb, { kind: 'latency', operation: 'cancelReservation', ms: 5000, when: 'after_commit', times: 1 });
    const first = w.carrental(['cancel', uuid, '-y']);
    await until('the cancel to commit', async () => (await reservations(w.sb, w.alias, 'cancelled')).length === 1);
    first.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');

    const [entry] = await w.unfinished();
    expect(entry).toMatchObject({ operation: 'cancelReservation', target: uuid });

    // the reservation already reads cancelled; the rerun must still replay the DELETE
    const again = await w.carrental(['cancel', uuid, '-y']).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming a pending cancel');
    expect(again.stdout).toMatch(/status\tcancelled/);
    // the killed attempt, held back on the server, ends later; the rerun was a replay
    await until('the held-back attempt to end', async () => (await w.inFlight()) === 0);
    const log = await requests(w.sb, 'cancelReservation');
    expect(log.map((q) => [q.status, q.replayed, q.idempotency_key])).toEqual([
      [200, true, entry.key],
      [200, false, entry.key],
    ]);
    expect(await reservations(w.sb, w.alias, 'cancelled')).toHaveLength(1);
    w.expectCleanJournal(2) // the reserve and the cancel;
  });
});

describe.concurrent('(e) two identical commands started at once', () => {
  test('reserve: one reservation, the same uuid for both, an uncorrupted journal', async ({ w }) => {
    await faults(w.sb, { kind: 'latency', operation: 'createReservation', ms: 3000, when: 'before_commit', times: 1 });
    const [a, b] = await Promise.all([w.carrental(w.reserveArgs()).done, w.carrental(w.reserveArgs()).done]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const created = await reservations(w.sb, w.alias);
    expect(created).toHaveLength(1);
    expect(a.stdout.trim()).toBe(created[0].uuid);
    expect(new Set((await requests(w.sb, 'createReservation')).map((q) => q.idempotency_key)).size).toBe(1);
    w.expectCleanJournal();
  }, 30_000);

  test('cancel: both succeed, one cancellation, an uncorrupted journal', async ({ w }) => {
    const uuid = await w.reserveOne();
    await faults(w.sb, { kind: 'latency', operation: 'cancelReservation', ms: 3000, when: 'before_commit', times: 1 });
    const [a, b] = await Promise.all([w.carrental(['cancel', uuid, '-y']).done, w.carrental(['cancel', uuid, '-y']).done]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(await reservations(w.sb, w.alias, 'cancelled')).toHaveLength(1);
    const log = await requests(w.sb, 'cancelReservation');
    expect(log.filter((q) => q.status === 200 && !q.replayed), JSON.stringify({ log, a: a.stderr, b: b.stderr }, null, 1)).toHaveLength(1);
    expect(new Set(log.map((q) => q.idempotency_key)).size).toBe(1);
    w.expectCleanJournal(2) // the reserve and the cancel;
  }, 30_000);
});
