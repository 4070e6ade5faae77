// A check-in in the past is refused before any request (exit 2) by cars, quote, reserve
// and extend-link, measured against the server's clock when it is the embedded sandbox's
// (moved with `sandbox clock`), and relative dates read against that same clock. The hint
// gives a date that works, never the one that failed.
import { describe, expect, it } from 'vitest';
import { addLocalDays, localNow } from '../../src/render/dates.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest(
  (s) => (sb = s),
  (h) => (home = h),
);

// the served sandbox and the command agree: 2026-11-01 19:00 UTC, 11:00 in LA, 14:00 in Miami
const cli = (args: string[]) =>
  runCommand(['--base-url', sb.baseUrl, ...args], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }), now: () => SANDBOX_NOW, sleep: async () => {} });
const PAST = ['--from', '2020-01-01 10:00', '--days', '2'];
const anAlias = async () => (await sb.api<{ cars: Array<{ car_alias: string }> }>('/cars?city=la&limit=1')).cars[0].car_alias;

describe('a past check-in: exit 2, nothing sent', () => {
  it('cars, quote, reserve and extend-link', async () => {
    const alias = await anAlias();
    await sb.clearRequests();
    for (const args of [['cars', ...PAST], ['cars', '--city', 'la', ...PAST], ['quote', alias, ...PAST], ['reserve', alias, ...PAST, '-y']]) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('error: --from 2020-01-01 10:00 is in the past: it is 2026-11-01 11:00 in America/Los_Angeles now');
      expect(r.stderr).toContain('hint: give a later --from, for example --from "2026-11-02 10:00"');
    }
    const ext = await cli(['extend-link', '6f1c1d7e-1111-4222-8333-444455556666', '--to', '2026-10-01']);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toContain('error: --to 2026-10-01 10:00 is in the past');
    expect(await sb.requests()).toEqual([]);
  });

  it('in the car zone once it is known: 10:30 today is past in LA (11:00 there), not before', async () => {
    const alias = await anAlias();
    const la = await cli(['cars', '--city', 'la', '--from', '2026-11-01 10:30', '--days', '1']);
    expect(la.code).toBe(2);
    expect(la.stderr).toContain('it is 2026-11-01 11:00 in America/Los_Angeles now');
    // 12:00 is past in Miami (14:00) but not in LA: without a city it goes to the server
    const anywhere = await cli(['cars', '--from', '2026-11-01 12:00', '--days', '1', '--json']);
    expect(anywhere.code, anywhere.stderr).toBe(0);
    const r = await cli(['reserve', alias, '--from', 'today 9am', '--days', '1', '-y']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --from 2026-11-01 09:00 is in the past');
  });
});

describe('the embedded sandbox: its own clock', () => {
  const embedded = (args: string[]) => runCommand(['--sandbox', ...args], { env: home.env(), sleep: async () => {} });
  const LA = 'America/Los_Angeles';

  it('relative dates and the past check follow `sandbox clock advance`', async () => {
    const moved = await embedded(['sandbox', 'clock', 'advance', '40d']);
    expect(moved.code, moved.stderr).toBe(0);
    const before = new Date(Date.now() + 40 * 86_400_000);
    const r = await embedded(['cars', '--city', 'la', '--from', 'tomorrow 10:00', '--days', '2', '--limit', '1', '--json']);
    const after = new Date(Date.now() + 40 * 86_400_000);
    expect(r.code, r.stderr).toBe(0);
    const expected = [before, after].map((t) => `dates: ${addLocalDays(`${localNow(LA, t).slice(0, 10)}T10:00`, 1).replace('T', ' ')}`);
    expect(expected.some((line) => r.stderr.includes(line)), r.stderr).toBe(true);
    // ten days from this machine's now is the sandbox's past
    const machine = addLocalDays(`${localNow(LA, new Date()).slice(0, 10)}T10:00`, 10);
    const alias = JSON.parse(r.stdout).cars[0].car_alias;
    const q = await embedded(['quote', alias, '--from', machine, '--days', '2']);
    expect(q.code).toBe(2);
    expect(q.stderr).toContain(`error: --from ${machine.replace('T', ' ')} is in the past`);
  });
});
