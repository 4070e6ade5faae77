// The embedded sandbox of a command reads its clock, config and faults from the command's
// environment (what runCli was given), not from the process's: a command run in-process
// with CARRENTAL_SANDBOX_NOW, _CONFIG or _FAULTS in its env gets them, and one without
// them is not touched by what the process happens to hold.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';

let home: TestHome;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const NOW = '2030-01-01T00:00:00Z';

describe("the embedded sandbox takes the command's environment", () => {
  it('CARRENTAL_SANDBOX_NOW in the command env sets the clock, whatever process.env holds', async () => {
    expect(process.env.CARRENTAL_SANDBOX_NOW).toBeUndefined();
    const r = await runCommand(['sandbox', 'clock', '--json'], { env: home.env({ CARRENTAL_SANDBOX_NOW: NOW }) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).now.slice(0, 10)).toBe('2030-01-01');
    const q = await runCommand(['--sandbox', 'quote', 'toyota-camry-1001', '--from', '+1d 10:00', '--to', '+3d 10:00'], { env: home.env({ CARRENTAL_SANDBOX_NOW: NOW }) });
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout + q.stderr).toContain('2030-01-01 10:00');
  });

  it('CARRENTAL_SANDBOX_FAULTS in the command env is applied; in process.env alone it is not', async () => {
    const faults = JSON.stringify([{ kind: 'malformed', operation: 'listCars' }]);
    const failing = await runCommand(['--sandbox', 'cars', '--json'], { env: home.env({ CARRENTAL_SANDBOX_FAULTS: faults }) });
    expect(failing.code).not.toBe(0);
    expect(failing.stderr).toMatch(/JSON|invalid|unexpected/i);
    process.env.CARRENTAL_SANDBOX_FAULTS = faults;
    try {
      const clean = await runCommand(['--sandbox', 'cars', '--json'], { env: home.env() });
      expect(clean.code, clean.stderr).toBe(0);
    } finally {
      delete process.env.CARRENTAL_SANDBOX_FAULTS;
    }
  });
});
