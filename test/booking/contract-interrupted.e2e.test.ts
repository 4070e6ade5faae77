// Issue 35: `doctor --contract --write` killed between its create and its cancel, rerun
// after the replay window and on another day (so its new request differs from the first):
// the rerun finds the reservation the first run left, cancels it, says so, and leaves no
// reservation of its own active. The built CLI on the embedded sandbox, killed in exactly
// that window through CARRENTAL_TEST_PAUSE_AFTER_ANSWER.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { TestHome } from '../helpers/home.js';

interface Trip {
  uuid: string;
  status: string;
  date_checkin: string;
}

let home: TestHome;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const until = async (ok: () => boolean, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('doctor --contract --write, interrupted', () => {
  it('killed between create and cancel, rerun after the replay window: the first reservation is cancelled and said so; nothing stays active', { timeout: 90_000 }, async () => {
    const env = home.env({ CARRENTAL_REPLAY_WINDOW: '0' });
    const marker = join(home.dir, 'answered');
    const first = spawn(process.execPath, [BIN, '--sandbox', 'doctor', '--contract', '--write', '-y'], {
      env: { ...env, CARRENTAL_TEST_PAUSE_AFTER_ANSWER: marker },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => first.on('close', resolve));
    await until(() => existsSync(marker));
    first.kill('SIGKILL');
    await exited;
    // the check books about 300 days ahead: nothing else of the demo customer is that far out
    const contractTrips = async () => {
      const r = await runBin(['--sandbox', 'trips', '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      const trips = JSON.parse(r.stdout) as { active?: Trip[]; history?: Trip[] };
      return [...(trips.active ?? []), ...(trips.history ?? [])].filter((t) => t.date_checkin >= '2027-06-01');
    };
    const left = await contractTrips();
    expect(left.map((t) => t.status)).toEqual(['new']);

    // another day: the rerun's own request (dates from the API's clock) is not the first one's
    const clock = await runBin(['--sandbox', 'sandbox', 'clock', 'advance', '2d'], { env });
    expect(clock.code, clock.stderr).toBe(0);
    const rerun = await runBin(['--sandbox', 'doctor', '--contract', '--write', '-y'], { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/an interrupted contract check .*left reservation [0-9a-f-]{36} active: cancelled it/);

    const after = await contractTrips();
    expect(after).toHaveLength(2);
    expect(after.map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
    expect(rerun.stderr).toContain(`left reservation ${left[0].uuid} active: cancelled it`);
  });
});
