// Issue 35, fencing: a `reserve` stopped (SIGSTOP) for longer than the lock's stale time
// while it holds the journal lock has that lock taken over by another command. When it is
// continued, it must not write the journal it read before: that erased the other
// command's entry, whose rerun then booked twice. Here the stopped process stops itself
// inside the lock (a test-only hook), both before sending (in `begin`) and after the
// answer (in `complete`), with the built CLI and real SIGSTOP/SIGCONT, several times.
// Every round has its own home (journal and lock) and its own two cars, so the rounds and
// the two steps run at once: most of a round is the 2 s the other command waits out.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';
import { FROM, SANDBOX_NOW, TO, freeCars, reservations } from '../booking/sandbox.js';

const ROUNDS = Number(process.env.FENCING_ROUNDS ?? 2);
/** proper-lockfile's smallest stale time: the takeover comes 2 s after the stop. */
const STALE = { CARRENTAL_TEST_LOCK_STALE_SECONDS: '2' };

const until = async (what: string, ok: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

let sb: RunningSandbox;
/** Free cars for FROM..TO, two taken by each round. */
let cars: string[] = [];
beforeAll(async () => {
  // the rounds' reservations are all active at once: more than the demo customer's usual limit
  sb = await startSandbox({ now: () => SANDBOX_NOW, quiet: true, config: { maxActiveReservations: 50 } });
  cars = await freeCars(sb, 4 * ROUNDS);
  if (cars.length < 4 * ROUNDS) throw new Error(`${4 * ROUNDS} free cars needed, ${cars.length} found`);
});
afterAll(() => sb?.close());

async function stoppedInsideTheLock(step: 'begin' | 'complete') {
  const [first, second] = cars.splice(0, 2);
  const home = new TestHome();
  try {
    const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, ...STALE });
    const reserve = (alias: string) => ['--base-url', sb.baseUrl, 'reserve', alias, '--from', FROM, '--to', TO, '-y'];
    const marker = join(home.dir, 'stopped');
    const a = spawn(process.execPath, [BIN, ...reserve(first)], { env: { ...env, CARRENTAL_TEST_STOP_IN_JOURNAL_LOCK: `${step}:${marker}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let aOut = '';
    let aErr = '';
    a.stdout.setEncoding('utf8').on('data', (d: string) => (aOut += d));
    a.stderr.setEncoding('utf8').on('data', (d: string) => (aErr += d));
    const aExit = new Promise<number | null>((resolve) => a.on('close', (code) => resolve(code)));
    try {
      await until('the first reserve to stop inside the journal lock', () => existsSync(marker));
      // another command waits out the stale time, takes the lock over and finishes
      const b = await runBin(reserve(second), { env });
      expect(b.code, b.stderr).toBe(0);
      const bUuid = b.stdout.trim();
      a.kill('SIGCONT');
      expect(await aExit, aErr).toBe(0);
      expect(aOut.trim()).toMatch(/^[0-9a-f-]{36}$/);

      // nothing of the other command was erased: both entries are done
      const journal = JSON.parse(readFileSync(join(home.dir, 'state', 'journal.json'), 'utf8')) as { entries: Array<{ target: string; state: string; result?: string }> };
      expect(journal.entries.map((e) => [e.target, e.state]).sort()).toEqual([
        [first, 'done'],
        [second, 'done'],
      ].sort());
      expect(journal.entries.find((e) => e.target === second)?.result).toBe(bUuid);
      // so the other command's rerun replays it instead of booking twice
      const again = await runBin(reserve(second), { env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe(bUuid);
      expect(await reservations(sb, second)).toHaveLength(1);
      expect(await reservations(sb, first)).toHaveLength(1);
      // and the stale lock left nothing behind
      expect(existsSync(join(home.dir, 'state', 'journal.json.lock'))).toBe(false);
    } finally {
      a.kill('SIGKILL');
      a.kill('SIGCONT');
    }
  } finally {
    home.cleanup();
  }
}

const rounds = (step: 'begin' | 'complete') => Promise.all(Array.from({ length: ROUNDS }, () => stoppedInsideTheLock(step)));

describe.concurrent('a process that lost the journal lock never writes what it read before', () => {
  it(`stopped before sending (inside begin), ${ROUNDS} times`, { timeout: 60_000 + ROUNDS * 20_000 }, () => rounds('begin'));

  it(`stopped after the answer (inside complete), ${ROUNDS} times`, { timeout: 60_000 + ROUNDS * 20_000 }, () => rounds('complete'));
});
