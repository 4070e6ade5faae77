// Relative dates on the command line (`tomorrow 10:00`, `+3d 10:00`, `--days N`) for
// cars, reserve and extend-link, read in the car's zone against the sandbox's clock
// (2026-11-01 19:00 UTC: 11:00 in Los Angeles, 14:00 in Miami), shown back absolute.
import { describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write, ...env }), now: () => SANDBOX_NOW, sleep: async () => {} });

describe('cars', () => {
  it('--from tomorrow --days 2 is read in the --city zone and shown back', async () => {
    const r = await cli(['cars', '--city', 'miami', '--from', 'tomorrow', '--days', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('dates: 2026-11-02 10:00 to 2026-11-04 10:00 America/New_York');
    const page = JSON.parse(r.stdout) as { cars: Array<{ is_available?: boolean }> };
    expect(page.cars.some((c) => typeof c.is_available === 'boolean')).toBe(true);
  });

  it('without a city, a relative date says how to give one (no request)', async () => {
    const r = await cli(['cars', '--from', 'tomorrow 10:00', '--to', '+3d 10:00']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: relative dates are read in the city's zone: give --city");
  });
});

describe('reserve and extend-link', () => {
  it('reserve --from "tomorrow 10:00" --days 3 -y books the absolute dates; extend-link --to "+6d 10:00" previews them', async () => {
    const page = JSON.parse((await cli(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '3', '--json'])).stdout) as { cars: Array<{ car_alias: string; is_available?: boolean }> };
    const alias = page.cars.find((c) => c.is_available)!.car_alias;
    const booked = await cli(['reserve', alias, '--from', 'tomorrow 10:00', '--days', '3', '-y']);
    expect(booked.code, booked.stderr).toBe(0);
    expect(booked.stderr).toContain('dates: 2026-11-02 10:00 to 2026-11-05 10:00 America/Los_Angeles');
    const uuid = booked.stdout.trim();
    const trip = JSON.parse((await cli(['trips', uuid, '--json'])).stdout) as { date_checkin: string; date_checkout: string };
    expect(trip).toMatchObject({ date_checkin: '2026-11-02T10:00', date_checkout: '2026-11-05T10:00' });

    const ext = await cli(['extend-link', uuid, '--to', '+6d 10:00']);
    expect(ext.code, ext.stderr).toBe(0);
    expect(ext.stderr).toMatch(/new check-out\s+2026-11-07 10:00 America\/Los_Angeles/);
  });

  it('an extension outside opening hours shows the server reason, and a hint that does not contradict it', async () => {
    const page = JSON.parse((await cli(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '3', '--json'])).stdout) as { cars: Array<{ car_alias: string; is_available?: boolean }> };
    const alias = page.cars.find((c) => c.is_available)!.car_alias;
    const uuid = (await cli(['reserve', alias, '--from', 'tomorrow 10:00', '--days', '3', '-y'])).stdout.trim();
    const ext = await cli(['extend-link', uuid, '--to', '+6d 23:30']);
    expect(ext.code).toBe(1);
    expect(ext.stderr).toMatch(/^error: 2026-11-07 23:30 is not a valid new check-out for reservation [0-9a-f-]+: .*between 07:00 and 22:00/);
    expect(ext.stderr).not.toContain('--wait');
    expect(ext.stderr).not.toMatch(/hint: .*in the future/);
  });

  it('reserve with a relative date and no --to nor --days is a usage error off a terminal', async () => {
    const r = await cli(['reserve', 'any-car', '--from', 'tomorrow 10:00', '-y']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: missing --to');
  });
});
