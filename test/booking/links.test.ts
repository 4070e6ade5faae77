// pay-link and extend-link in-process against the stateful fake: the ManualAction output,
// the request bodies (payment_type; checkout), plain explanations of the 409/400 codes,
// --open, and --wait driven by an injected sleep.
import { describe, expect } from 'vitest';
import { CliError } from '../../src/errors.js';
import { runCommand } from '../helpers/cli.js';
import { FAKE_NOW, KEYS, test as fakeTest } from './fake-api.js';

const test = fakeTest.extend('cli', async ({ fake, home }) => (args: string[], opts: { env?: NodeJS.ProcessEnv; sleep?: (ms: number) => Promise<void> } = {}) =>
  runCommand(['--base-url', fake.baseUrl, ...args], {
    env: home.env({ CARRENTAL_API_KEY: KEYS.write, ...opts.env }),
    now: FAKE_NOW,
    sleep: opts.sleep ?? (async () => {}),
  }),
);

describe('pay-link', () => {
  test('prints the url alone on the first stdout line, the flow id, and the reminder on stderr', async ({ fake, cli }) => {
    const r = fake.seed();
    const res = await cli(['pay-link', r.uuid]);
    expect(res.code, res.stderr).toBe(0);
    // a pipe asked for one value: the url alone; the flow id goes to stderr
    const url = res.stdout.trimEnd();
    expect(url).toMatch(new RegExp(`^https://app\\.example\\.test/trips/${r.uuid}\\?intent=pay&payment_type=reservation&agent_flow_id=[0-9a-f-]{36}$`));
    expect(res.stderr).toMatch(/^agent_flow_id: [0-9a-f-]{36}$/m);
    expect(res.stderr).toContain('not completion');
    expect(res.stderr).toContain(`carrental trips ${r.uuid}`);
    const [req] = fake.requestsOf('paymentLink');
    expect(JSON.parse(req.body)).toEqual({ payment_type: 'rent' });
    expect(req.headers['x-agent-client']).toMatch(/^carrental\/\S+$/);
  });

  test('--type deposit and --json print the payload as received', async ({ fake, cli }) => {
    const r = fake.seed();
    const res = await cli(['pay-link', r.uuid, '--type', 'deposit', '--json']);
    expect(res.code).toBe(0);
    const payload = JSON.parse(res.stdout);
    expect(payload).toMatchObject({ action: 'pay_reservation', status: 'requires_user_action' });
    expect(payload.url).toContain('payment_type=deposit');
    expect(JSON.parse(fake.requestsOf('paymentLink')[0].body)).toEqual({ payment_type: 'deposit' });
  });

  test('nothing_to_pay and reservation_cancelled are exit 5 with a plain explanation', async ({ fake, cli }) => {
    const settled = fake.seed();
    settled.paymentStatus = { type: 'settled' };
    const a = await cli(['pay-link', settled.uuid]);
    expect(a.code).toBe(5);
    expect(a.stderr).toContain(`error: nothing to pay: reservation ${settled.uuid} has no unpaid rent invoice (nothing_to_pay`);
    expect(a.stderr).toContain('--type deposit');
    const cancelled = fake.seed('cancelled');
    const b = await cli(['pay-link', cancelled.uuid]);
    expect(b.code).toBe(5);
    expect(b.stderr).toContain(`is cancelled: there is nothing to pay (reservation_cancelled`);
    expect(a.stdout + b.stdout).toBe('');
  });

  test('--open uses $BROWSER; with no browser at all it only prints', async ({ fake, cli }) => {
    const r = fake.seed();
    const opened = await cli(['pay-link', r.uuid, '--open'], { env: { BROWSER: 'true' } });
    expect(opened.code).toBe(0);
    expect(opened.stderr).toContain('Opened in your browser');
    const headless = await cli(['pay-link', r.uuid, '--open']);
    expect(headless.code).toBe(0);
    if (process.platform === 'linux') expect(headless.stderr).toMatch(/Not opened \(no graphical session/);
    expect(headless.stdout).toContain(`/trips/${r.uuid}?intent=pay`);
  });

  test('--wait re-reads every 5 s until settled, then exits 0', async ({ fake, cli }) => {
    const r = fake.seed();
    fake.paymentStatuses.push({ type: 'to_pay', amount: 34099 }, { type: 'to_pay', amount: 34099 }, { type: 'settled' });
    const sleeps: number[] = [];
    const res = await cli(['pay-link', r.uuid, '--wait'], { sleep: async (ms) => void sleeps.push(ms) });
    expect(res.code, res.stderr).toBe(0);
    expect(sleeps).toEqual([5000, 5000, 5000]);
    expect(fake.requestsOf('reservation')).toHaveLength(3);
    expect(res.stderr).toContain(`settled: reservation ${r.uuid} has nothing left to pay`);
  });

  test('--wait-timeout gives up with exit 6 (no read faster than 5 s)', async ({ fake, cli }) => {
    const r = fake.seed();
    const sleeps: number[] = [];
    const res = await cli(['pay-link', r.uuid, '--wait', '--wait-timeout', '12'], { sleep: async (ms) => void sleeps.push(ms) });
    expect(res.code).toBe(6);
    expect(sleeps).toEqual([5000, 5000, 2000]);
    expect(res.stderr).toMatch(/error: not settled after 12 s of waiting/);
    expect(res.stderr).toContain('the link stays valid');
  });

  test('Ctrl-C while waiting is exit 130 and says the link stays valid', async ({ fake, cli }) => {
    const r = fake.seed();
    let calls = 0;
    const res = await cli(['pay-link', r.uuid, '--wait'], {
      sleep: async () => {
        if (++calls === 2) throw new CliError('interrupted', 'interrupted');
      },
    });
    expect(res.code).toBe(130);
    expect(res.stderr).toContain('stopped waiting; the link stays valid');
  });

  test('validates before sending', async ({ fake, cli }) => {
    const a = await cli(['pay-link', 'not-a-uuid']);
    const b = await cli(['pay-link', '6f1c1d7e-1111-4222-8333-444455556666', '--wait-timeout', '30']);
    const c = await cli(['pay-link', '6f1c1d7e-1111-4222-8333-444455556666', '--type', 'tip']);
    expect([a.code, b.code, c.code]).toEqual([2, 2, 2]);
    expect(b.stderr).toContain('--wait-timeout goes with --wait');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('extend-link', () => {
  test('with --to: previews the price, then asks for the link with the target named `checkout`', async ({ fake, cli }) => {
    const r = fake.seed();
    const res = await cli(['extend-link', r.uuid, '--to', '2026-12-06 10:00']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(fake.requestsOf('extensionPrice')[0].body)).toEqual({ modification_type: 'extend', new_checkout_date_time_local: '2026-12-06T10:00' });
    const [link] = fake.requestsOf('extensionLink');
    expect(JSON.parse(link.body)).toEqual({ checkout: '2026-12-06T10:00' });
    expect(link.headers['x-agent-client']).toMatch(/^carrental\//);
    expect(res.stderr).toMatch(/additional days\s+2/);
    expect(res.stderr).toMatch(/extension total\s+\$210\.00/);
    expect(res.stderr).toContain('new check-out\t2026-12-06 10:00 America/Los_Angeles');
    expect(res.stdout.split('\n')[0]).toMatch(/\/modify\?checkout=2026-12-06T10%3A00&agent_flow_id=/);
  });

  test('without --to: no preview, an empty body', async ({ fake, cli }) => {
    const r = fake.seed();
    const res = await cli(['extend-link', r.uuid, '--json']);
    expect(res.code).toBe(0);
    expect(fake.requestsOf('extensionPrice')).toHaveLength(0);
    expect(JSON.parse(fake.requestsOf('extensionLink')[0].body)).toEqual({});
    expect(JSON.parse(res.stdout)).toMatchObject({ action: 'extend_reservation' });
  });

  test('explains invalid_checkout with the current check-out, and reservation_not_active', async ({ fake, cli }) => {
    const r = fake.seed();
    const bad = await cli(['extend-link', r.uuid, '--to', '2026-12-03T10:00']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`error: 2026-12-03 10:00 is not a valid new check-out for reservation ${r.uuid} (invalid_checkout`);
    expect(bad.stderr).toContain('later than the current check-out 2026-12-04 10:00 America/Los_Angeles');
    expect(fake.requestsOf('extensionLink')).toHaveLength(0);

    const done = fake.seed('cancelled');
    const inactive = await cli(['extend-link', done.uuid, '--to', '2026-12-08T10:00']);
    expect(inactive.code).toBe(1);
    expect(inactive.stderr).toContain('cannot be extended (it is cancelled): only a reservation in status new can (reservation_not_active');
  });

  test('--dry-run: the price preview (a read) on stderr, the link request on stdout, no link asked for; --json carries the price as received', async ({ fake, cli }) => {
    const r = fake.seed();
    const res = await cli(['extend-link', r.uuid, '--to', '2026-12-06T10:00', '--dry-run']);
    expect(res.code, res.stderr).toBe(0);
    expect(fake.requestsOf('extensionPrice')).toHaveLength(1);
    expect(fake.requestsOf('extensionLink')).toHaveLength(0);
    expect(res.stderr).toMatch(/additional days\s+2/);
    expect(res.stderr).toMatch(/extension total\s+\$210\.00/);
    expect(res.stdout).toContain(`POST ${fake.baseUrl}/my/reservation/${r.uuid}/extension-link`);
    expect(res.stdout).toContain('"checkout": "2026-12-06T10:00"');
    expect(res.stderr).toContain('dry run: nothing was sent and nothing was written');

    const json = await cli(['extend-link', r.uuid, '--to', '2026-12-06T10:00', '--dry-run', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ dry_run: true, extension_price: { additional_days: 2, total_amount: 21000, currency: 'USD' } });
    expect(fake.requestsOf('extensionLink')).toHaveLength(0);
  });

  test('--dry-run without --to prints the bare link request; with --open it is a usage error before any request', async ({ fake, cli }) => {
    const r = fake.seed();
    const open = await cli(['extend-link', r.uuid, '--to', '2026-12-06T10:00', '--dry-run', '--open']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('--dry-run creates no link');
    expect(fake.requests).toHaveLength(0);
    const noTo = await cli(['extend-link', r.uuid, '--dry-run']);
    expect(noTo.code, noTo.stderr).toBe(0);
    expect(noTo.stdout).toContain(`/my/reservation/${r.uuid}/extension-link`);
    expect(fake.requests).toHaveLength(0);
  });

  test('a malformed --to is a usage error before any request', async ({ fake, cli }) => {
    const res = await cli(['extend-link', '6f1c1d7e-1111-4222-8333-444455556666', '--to', '6 dec']);
    expect(res.code).toBe(2);
    expect(fake.requests).toHaveLength(0);
  });
});
