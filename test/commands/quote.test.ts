// `carrental quote` in-process against a loopback sandbox: every QuoteRequest option, the
// breakdown with the deposit apart, anonymous versus keyed, and every error path.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Car, CarsPage, Quote } from '../../src/api/schemas.js';
import { sandboxExtraCredentials } from '../../src/sandbox/index.js';
import { formatCents } from '../../src/render/money.js';
/** Money as a pipe prints it: dollars, two decimals, no `$`. */
const dollars = (cents: number) => (cents / 100).toFixed(2);
import { runCommand, type TestHome } from '../helpers/cli.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

const FROM = '2026-12-01T10:00';
const TO = '2026-12-08T10:00';
let sb: TestSandbox;
let home: TestHome;
let car: Car;
/** A car and dates overlapping one of its blocked ranges. */
let blocked: { alias: string; from: string; to: string };

sandboxPerTest((s) => (sb = s), (h) => (home = h), { config: { catalogRateLimitPerMinute: 100_000 } });
beforeAll(async () => {
  const page = await sb.api<CarsPage>(`/cars?city=la&limit=200&date_from=${FROM}&date_to=${TO}`);
  car = await sb.api<Car>(`/cars/${page.cars.find((c) => c.is_available && c.prices.extras!.length > 0)!.car_alias}`);
  for (const c of page.cars.filter((x) => x.is_available === false)) {
    const detail = await sb.api<Car>(`/cars/${c.car_alias}`);
    const range = detail.blocked_ranges!.find((b) => b.to !== null && b.from! > '2026-11-03');
    if (range) {
      // a day inside the range, at 10:00 (operating hours)
      const day = range.from!.slice(0, 10);
      blocked = { alias: c.car_alias, from: `${day}T10:00`, to: range.to! };
      const d = new Date(`${day}T00:00Z`);
      d.setUTCDate(d.getUTCDate() + 2);
      blocked.to = `${d.toISOString().slice(0, 10)}T10:00`;
      break;
    }
  }
  expect(blocked).toBeDefined();
});

interface Opts {
  tty?: boolean;
  key?: string;
  sleep?: (ms: number) => Promise<void>;
}
const quote = (args: string[], opts: Opts = {}) =>
  runCommand(['--base-url', sb.baseUrl, 'quote', ...args], {
    env: home.env(opts.key ? { CARRENTAL_API_KEY: opts.key } : {}),
    tty: opts.tty,
    // the sandbox's clock: its blocked ranges and the past are measured against it
    now: () => SANDBOX_NOW,
    sleep: opts.sleep ?? (async () => {}),
  });
const dates = ['--from', FROM, '--to', TO];
const quotes = async () => (await sb.requests()).filter((r) => r.operation === 'quote');

describe('the breakdown', () => {
  it('defaults: rent, discount, protection, trip fee, TOTAL; deposit apart; dates with the zone', async () => {
    const r = await quote([car.car_alias, ...dates]);
    expect(r.code).toBe(0);
    const q = JSON.parse((await quote([car.car_alias, ...dates, '--json'])).stdout) as Quote;
    expect(r.stdout).toBe(
      // a pipe: one bare value per field, the price lines as `item` records; no heading, no prose
      [
        `car alias\t${car.car_alias}`,
        'check-in\t2026-12-01 10:00',
        'check-out\t2026-12-08 10:00',
        'zone\tAmerica/Los_Angeles',
        'days\t7',
        `day rate\t${dollars(q.discounted_day_rate)}`,
        `day rate before discount\t${dollars(q.blended_day_rate)}`,
        `item\tRent subtotal\t${dollars(q.rent_subtotal)}`,
        `item\tDuration discount\t${dollars(-q.rent_discount_amount)}`,
        `item\tProtection (minimum)\t${dollars(q.protection_total)}`,
        `item\tTrip fee\t${dollars(q.trip_fee_total)}`,
        `total\t${dollars(q.final_total)}`,
        `deposit\t${dollars(q.deposit_cents)}`,
        '',
      ].join('\n'),
    );
    expect(q.rent_discount_amount).toBeGreaterThan(0);
    expect(r.stderr).toContain('a quote holds nothing, neither the car nor the price');
  });

  it('every option: protection, mileage, delivery address, repeated extras, promo', async () => {
    const extras = car.prices.extras!.map((e) => e.item_type!);
    const args = [car.car_alias, ...dates, '--protection', 'standard', '--mileage', 'unlimited', '--delivery-address', '1 Ocean Ave, Santa Monica', '--promo', 'SAVE50', ...extras.flatMap((e) => ['--extra', e])];
    const q = JSON.parse((await quote([...args, '--json'])).stdout) as Quote;
    expect(q.delivery_total).toBe(car.prices.car!.price_delivery);
    expect(q.promo_discount_amount).toBe(5000);
    expect(q.unlimited_mileage_total).toBe(car.prices.car!.price_unlimited_mileage! * 7);
    expect(q.extras_total).toBe(car.prices.extras!.reduce((s, e) => s + e.price_day! * 7, 0));
    expect(q.protection_total).toBe(car.prices.protection!.standard * 7);
    expect(q.final_total).toBe(
      q.rent_subtotal - q.rent_discount_amount + q.protection_total + q.extras_total! + q.delivery_total! + q.unlimited_mileage_total! - q.promo_discount_amount! + q.trip_fee_total,
    );
    const r = await quote(args!!!);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`item\tProtection (standard)\t${dollars(q.protection_total)}`);
    expect(lines).toContain(`item\tExtras (${car.prices.extras!.map((e) => e.title).join(', ')})\t${dollars(q.extras_total!)}`);
    expect(lines).toContain(`item\tDelivery\t${dollars(q.delivery_total!)}`);
    expect(lines).toContain(`item\tUnlimited mileage\t${dollars(q.unlimited_mileage_total!)}`);
    expect(lines).toContain('item\tPromo discount (SAVE50)\t-50.00');
    expect(lines).toContain(`total\t${dollars(q.final_total)}`);
    // the request carried every option
    const sent = await quotes();
    expect(sent.every((s) => s.status === 200)).toBe(true);
  });

  it('a terminal gets a borderless breakdown with amounts right-aligned', async () => {
    const r = await quote([car.car_alias, ...dates, '--promo', 'SAVE50'], { tty: true });
    expect(r.code).toBe(0);
    const total = r.stdout.split('\n').find((l) => l.includes('TOTAL') && l.includes('$'))!;
    const promo = r.stdout.split('\n').find((l) => l.startsWith('Promo discount (SAVE50)'))!;
    expect(total).toMatch(/TOTAL +\$[\d,]+\.\d\d$/);
    expect(promo).toMatch(/^Promo discount \(SAVE50\) +-\$50\.00$/);
    // right-aligned: the amounts end in the same column
    expect(total.length).toBe(promo.length);
    expect(r.stdout).toContain('not included in the total');
  });

  it('--json prints the API payload exactly and asks for nothing else', async () => {
    const r = await quote([car.car_alias, ...dates, '--json']);
    const q = JSON.parse(r.stdout) as Quote;
    expect(q.display_mode).toBe('trip_total');
    expect(q.final_total).toBe(q.display_total);
    expect(r.stderr).toBe('');
    expect((await sb.requests()).map((x) => x.operation)).toEqual(['quote']);
  });
});

describe('credentials', () => {
  it('anonymous when no key is configured', async () => {
    expect((await quote([car.car_alias, ...dates])).code).toBe(0);
    expect((await quotes()).map((q) => q.credentials)).toEqual(['none']);
  });

  it('the configured key when there is one, none with --anonymous', async () => {
    expect((await quote([car.car_alias, ...dates], { key: sb.keys.read_only })).code).toBe(0);
    expect((await quote([car.car_alias, ...dates, '--anonymous'], { key: sb.keys.read_only })).code).toBe(0);
    expect((await quotes()).map((q) => q.credentials)).toEqual(['authorization', 'none']);
  });

  it('a stored profile key works the same way', async () => {
    const login = await runCommand(['--base-url', sb.baseUrl, 'auth', 'login', '--with-key'], { env: home.env(), stdin: sb.keys.read_only });
    expect(login.code).toBe(0);
    await sb.clearRequests();
    expect((await quote([car.car_alias, ...dates])).code).toBe(0);
    expect((await quotes()).map((q) => q.credentials)).toEqual(['authorization']);
  });

  it('a bad key is 401, exit 3, and never falls back to an anonymous quote', async () => {
    const r = await quote([car.car_alias, ...dates], { key: 'svc_00000000000000000000000000000000' });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .+ \(invalid_credentials, request req_[0-9a-f]+\)\nhint: run `carrental auth login` with a current key/);
    expect(r.stderr).not.toContain('svc_00000000000000000000000000000000');
    expect(await quotes()).toHaveLength(1);
  });

  it('a revoked key is 401 too; --anonymous still quotes', async () => {
    const revoked = sandboxExtraCredentials(1).revoked;
    expect((await quote([car.car_alias, ...dates], { key: revoked })).code).toBe(3);
    expect((await quote([car.car_alias, ...dates, '--anonymous'], { key: revoked })).code).toBe(0);
  });

  it('a 403 on the key is exit 3', async () => {
    await sb.fault({ kind: 'operation_not_enabled', operation: 'quote', times: 1 });
    const r = await quote([car.car_alias, ...dates], { key: sb.keys.read_only });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('(api_key_operation_not_enabled');
    expect(r.stderr).toContain('hint: `carrental doctor` shows which operations this deployment opens to API keys');
  });
});

describe('API errors', () => {
  it.each([
    ['NOPE', 'promo_code_not_found', 'hint: check the spelling of --promo, or leave --promo out'],
    ['SPRING20', 'promo_code_invalid', undefined],
  ])('promo %s -> 400 %s, exit 1', async (code, errorCode, hint) => {
    const r = await quote([car.car_alias, ...dates, '--promo', code]);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^error: .+ \\(${errorCode}, request req_[0-9a-f]+\\)$`));
    if (hint) expect(r.stderr).toContain(hint);
  });

  it('a one-time promo the key’s customer used: promo_already_used (anonymous cannot know)', async () => {
    const keyed = await quote([car.car_alias, ...dates, '--promo', 'FIRSTRIDE'], { key: sb.keys.booking_write });
    expect(keyed.code).toBe(1);
    expect(keyed.stderr).toContain('(promo_already_used');
    expect(keyed.stderr).toContain('hint: leave --promo out, or give another code');
    const anonymous = await quote([car.car_alias, ...dates, '--promo', 'FIRSTRIDE', '--anonymous']);
    expect(anonymous.code).toBe(0);
    expect(anonymous.stderr).toContain('personal promo eligibility is checked again when you reserve');
  });

  it('promo codes switched off: promo_codes_disabled', async () => {
    await sb.admin('PATCH', '/config', { promoCodesEnabled: false });
    try {
      const r = await quote([car.car_alias, ...dates, '--promo', 'SAVE50']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('(promo_codes_disabled');
    } finally {
      await sb.admin('PATCH', '/config', { promoCodesEnabled: true });
    }
  });

  it('an extra the car does not offer, a time outside opening hours: 400, exit 1; a date in the past: exit 2 before any request', async () => {
    expect((await quote([car.car_alias, ...dates, '--extra', 'jetpack'])).code).toBe(1);
    expect((await quote([car.car_alias, '--from', '2026-12-01T03:00', '--to', TO])).stderr).toContain('(outside_operating_hours');
    await sb.clearRequests();
    const past = await quote([car.car_alias, '--from', '2026-10-01T10:00', '--to', '2026-10-03T10:00']);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('error: --from 2026-10-01 10:00 is in the past');
    expect(await sb.requests()).toEqual([]);
  });

  it('an unknown car is 404, exit 4', async () => {
    const r = await quote(['no-such-car-9999', ...dates]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('(car_not_found');
  });

  it('dates the car is blocked: 409, exit 5', async () => {
    const r = await quote([blocked.alias, '--from', blocked.from, '--to', blocked.to]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('(car_not_available');
  });

  it('429 then success', async () => {
    await sb.admin('PATCH', '/config', { catalogRateLimitPerMinute: 0 });
    // 58 s into the sandbox's minute, so Retry-After (2 s) is within the retry budget
    await sb.admin('POST', '/clock', { advance_seconds: 58 });
    const waits: number[] = [];
    try {
      const r = await quote([car.car_alias, ...dates, '--json'], {
        sleep: async (ms) => {
          waits.push(ms);
          await sb.admin('PATCH', '/config', { catalogRateLimitPerMinute: 100_000 });
        },
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).final_total).toBeGreaterThan(0);
      expect((await quotes()).map((q) => q.status)).toEqual([429, 200]);
      expect(waits).toEqual([2000]);
    } finally {
      await sb.admin('POST', '/clock', { offset_ms: 0 });
      await sb.admin('PATCH', '/config', { catalogRateLimitPerMinute: 100_000 });
    }
  });

  it('503 after every retry: exit 6, safe to rerun', async () => {
    await sb.fault({ kind: 'error', operation: 'quote', code: 'authentication_unavailable' });
    const r = await quote([car.car_alias, ...dates], { key: sb.keys.read_only });
    expect(r.code).toBe(6);
    expect(await quotes()).toHaveLength(4);
  });
});

describe('validation before any request', () => {
  it.each([
    [['CAR', '--from', FROM], 'error: --from needs --to or --days'],
    [['CAR'], 'error: --from and --to (or --days) are required'],
    [['CAR', '--from', '12/01/2026', '--to', TO], 'error: --from must be a car-local date and time (YYYY-MM-DD HH:MM, 2026-12-01, tomorrow 3pm, fri 10:00, +3d), got "12/01/2026"'],
    [['CAR', '--from', TO, '--to', FROM], 'error: --to (2026-12-01 10:00) must be after --from (2026-12-08 10:00)'],
    [['CAR', ...dates, '--protection', 'gold'], "error: option '--protection <plan>' argument 'gold' is invalid. Allowed choices are minimum, standard."],
    [['CAR', ...dates, '--mileage', 'lots'], "error: option '--mileage <type>' argument 'lots' is invalid. Allowed choices are limited, unlimited."],
    [['CAR', ...dates, '--delivery-address', ''], 'error: --delivery-address must not be empty'],
    [['CAR', ...dates, '--promo', ' '], 'error: --promo must not be empty'],
    [['bad alias', ...dates], 'error: "bad alias" is not a car alias'],
  ])('%j', async (args, message) => {
    const r = await quote(args.map((a) => (a === 'CAR' ? car.car_alias : a)));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(message);
    expect(await sb.requests()).toEqual([]);
  });
});

describe('relative dates, read in the car zone', () => {
  // the sandbox's clock: 2026-11-01 19:00 UTC is 11:00 in Los Angeles
  const at = (args: string[]) =>
    runCommand(['--base-url', sb.baseUrl, 'quote', car.car_alias, ...args], { env: home.env(), now: () => SANDBOX_NOW, sleep: async () => {} });

  it('tomorrow 10:00 and --days 3 are quoted, and shown back as absolute car-local times', async () => {
    const r = await at(['--from', 'tomorrow 10:00', '--days', '3']);
    expect(r.stderr).toContain('dates: 2026-11-02 10:00 to 2026-11-05 10:00 America/Los_Angeles');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('check-in\t2026-11-02 10:00\ncheck-out\t2026-11-05 10:00\nzone\tAmerica/Los_Angeles\n');
    expect(r.stdout).toContain('days\t3\n');
  });

  it('+3d 10:00 with --to +5d 10:00', async () => {
    const r = await at(['--from', '+3d 10:00', '--to', '+5d 10:00']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('check-in\t2026-11-04 10:00\ncheck-out\t2026-11-06 10:00\nzone\tAmerica/Los_Angeles\n');
  });

  it.each([
    [['--from', 'tomorrow 10:00', '--to', '+3d', '--days', '2'], 'error: give --to or --days, not both'],
    [['--days', '2'], 'error: --days needs --from'],
    [['--from', 'tomorrow 25:00', '--days', '2'], 'error: --from has no such time of day: "tomorrow 25:00"'],
    [['--from', 'tomorrow', '--days', '0'], 'error: --days must be a whole number of days 1..366, got "0"'],
  ])('%j is a usage error before any request', async (args, message) => {
    const r = await at(args);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(message);
    expect(await sb.requests()).toEqual([]);
  });
});
