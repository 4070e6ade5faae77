// `carrental cars` in-process against a loopback sandbox: every filter, pagination, --all,
// output forms, validation before any request, and the retry path.
import { describe, expect, it } from 'vitest';
import type { Car, CarsPage } from '../../src/api/schemas.js';
import { formatCents } from '../../src/render/money.js';
/** Money as a pipe prints it: dollars, two decimals, no `$`. */
const dollars = (cents: number) => (cents / 100).toFixed(2);
import { runCommand, type TestHome } from '../helpers/cli.js';
import { SANDBOX_NOW, sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;

sandboxPerTest((s) => (sb = s), (h) => (home = h), { config: { catalogRateLimitPerMinute: 100_000 } });

interface Opts {
  tty?: boolean;
  env?: NodeJS.ProcessEnv;
  sleep?: (ms: number) => Promise<void>;
}
const cars = (args: string[], opts: Opts = {}) =>
  runCommand(['--base-url', sb.baseUrl, 'cars', ...args], { env: home.env(opts.env), tty: opts.tty, now: () => SANDBOX_NOW, sleep: opts.sleep ?? (async () => {}) });
const json = async (args: string[], opts: Opts = {}): Promise<CarsPage> => {
  const r = await cars(['--json', ...args], opts);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('output', () => {
  it('a terminal gets a table with headers and a pagination hint on stderr', async () => {
    const total = (await sb.api<CarsPage>('/cars?city=la&limit=1')).total;
    const r = await cars(['--city', 'la'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\u001b\[1mALIAS\u001b\[22m +\u001b\[1mNAME/);
    // borderless: the header line, then one line per car
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(50 + 1);
    expect(r.stdout).toContain('DAY RATE');
    expect(r.stdout).not.toContain('AVAILABLE');
    expect(r.stderr).toBe(`showing 1-50 of ${total}; next page: --offset 50 (or --all for every page)\n`);
  });

  it('a pipe gets tab-separated lines, no headers, no hint, no colour', async () => {
    const page = await sb.api<CarsPage>('/cars?city=la&limit=3');
    const r = await cars(['--city', 'la', '--limit', '3']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n').slice(0, -1);
    expect(lines).toHaveLength(3);
    lines.forEach((line, i) => {
      const car = page.cars[i];
      expect(line.split('\t')).toEqual([
        car.car_alias,
        car.name,
        'la',
        car.body_type,
        String(car.seats),
        dollars(car.discounted_day_rate_cents!),
        car.is_hot_deal ? 'yes' : '',
      ]);
    });
    expect(r.stdout).not.toContain('\u001b');
  });

  it('--json prints the API payload exactly', async () => {
    const expected = await sb.api<CarsPage>('/cars?city=miami&limit=7');
    expect(await json(['--city', 'miami', '--limit', '7'])).toEqual(expected);
  });

  it('says so on stderr when nothing matches', async () => {
    const r = await cars(['--make-id', '999999']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('no cars match\n');
  });
});

describe('filters: each flag reaches the API', () => {
  it('--city', async () => {
    const page = await json(['--city', 'miami', '--limit', '200']);
    expect(page.cars.length).toBeGreaterThan(0);
    expect(page.cars.every((c) => c.city === 'miami')).toBe(true);
  });

  it('--from/--to: availability and trip totals, in the table too', async () => {
    const page = await json(['--city', 'la', '--from', '2026-12-01 10:00', '--to', '2026-12-04T10:00', '--limit', '20']);
    expect(page.cars.every((c) => typeof c.is_available === 'boolean' && c.display_trip_total_cents !== undefined)).toBe(true);
    const r = await cars(['--city', 'la', '--from', '2026-12-01 10:00', '--to', '2026-12-04T10:00', '--limit', '20']);
    const first = r.stdout.split('\n')[0].split('\t');
    expect(first).toHaveLength(9);
    expect(first[6]).toBe(page.cars[0].is_available ? 'yes' : 'no');
    expect(first[7]).toBe(dollars(page.cars[0].display_trip_total_cents!));
    const tty = await cars(['--city', 'la', '--from', '2026-12-01 10:00', '--to', '2026-12-04T10:00', '--limit', '2'], { tty: true });
    expect(tty.stdout).toContain('AVAILABLE');
    expect(tty.stdout).toContain('TRIP TOTAL');
  });

  it('--body-type, --make-id, --model-id', async () => {
    const suvs = await json(['--body-type', 'suv', '--limit', '200']);
    expect(suvs.cars.length).toBeGreaterThan(0);
    expect(suvs.cars.every((c) => c.body_type === 'suv')).toBe(true);
    const any = (await sb.api<CarsPage>('/cars?limit=1')).cars[0] as Car & { make_id: number; model_id: number };
    const byMake = (await json(['--make-id', String(any.make_id), '--limit', '200'])).cars as Array<Car & { make_id: number }>;
    expect(byMake.length).toBeGreaterThan(0);
    expect(byMake.every((c) => c.make_id === any.make_id)).toBe(true);
    const byModel = (await json(['--model-id', String(any.model_id), '--limit', '200'])).cars as Array<Car & { model_id: number }>;
    expect(byModel.every((c) => c.model_id === any.model_id)).toBe(true);
    expect(byModel.length).toBeLessThanOrEqual(byMake.length);
  });

  it('--sort price_asc / price_desc', async () => {
    const asc = (await json(['--city', 'la', '--sort', 'price_asc', '--limit', '200'])).cars.map((c) => c.blended_day_rate_cents!);
    const desc = (await json(['--city', 'la', '--sort', 'price_desc', '--limit', '200'])).cars.map((c) => c.blended_day_rate_cents!);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    expect(asc[0]).toBeLessThan(desc[0]);
  });

  it('--limit and --offset page through the catalog', async () => {
    const all = await sb.api<CarsPage>('/cars?limit=20');
    const page = await json(['--limit', '5', '--offset', '5']);
    expect(page.cars.map((c) => c.car_alias)).toEqual(all.cars.slice(5, 10).map((c) => c.car_alias));
    expect(page.has_more).toBe(true);
    const r = await cars(['--limit', '5', '--offset', '5'], { tty: true });
    expect(r.stderr).toContain(`showing 6-10 of ${all.total}; next page: --offset 10`);
  });

  it('takes the profile’s city when --city is not given', async () => {
    expect((await runCommand(['config', 'set', 'city', 'miami'], { env: home.env() })).code).toBe(0);
    const page = await json(['--limit', '200']);
    expect(page.cars.every((c) => c.city === 'miami')).toBe(true);
    expect((await json(['--city', 'la', '--limit', '200'])).cars.every((c) => c.city === 'la')).toBe(true);
  });
});

describe('--all', () => {
  it('fetches every page, in order, no car twice', async () => {
    const total = (await sb.api<CarsPage>('/cars?limit=1')).total;
    await sb.clearRequests();
    const page = await json(['--all', '--limit', '40']);
    const log = await sb.requests();
    expect(page.total).toBe(total);
    expect(page.has_more).toBe(false);
    expect(page.cars).toHaveLength(total);
    expect(new Set(page.cars.map((c) => c.car_alias)).size).toBe(total);
    const first40 = await sb.api<CarsPage>('/cars?limit=40&offset=40');
    expect(page.cars.slice(40, 80)).toEqual(first40.cars);
    expect(log.filter((r) => r.operation === 'listCars')).toHaveLength(Math.ceil(total / 40));
  });

  it('shows progress on a terminal’s stderr and no pagination hint', async () => {
    const r = await cars(['--city', 'la', '--all', '--limit', '50'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/fetched \d+ of \d+ cars/);
    expect(r.stderr).not.toContain('next page');
    expect(r.stderr.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('fails as a whole when a page fails (exit 6 after retries)', async () => {
    await sb.fault({ kind: 'error', operation: 'listCars', code: 'internal_error' });
    const r = await cars(['--all', '--limit', '50']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
  });
});

describe('validation happens before any request', () => {
  it.each([
    [['--limit', '0'], 'error: --limit must be 1..200, got 0'],
    [['--limit', '201'], 'error: --limit must be 1..200, got 201'],
    [['--limit', 'many'], 'error: --limit must be a whole number, got "many"'],
    [['--offset', '-1'], 'error: --offset must be at least 0, got -1'],
    [['--make-id', '-2'], 'error: --make-id must be at least 0, got -2'],
    [['--model-id', '1.5'], 'error: --model-id must be a whole number, got "1.5"'],
    [['--from', '2026-12-01T10:00'], 'error: --from needs --to or --days'],
    [['--to', '2026-12-01T10:00'], 'error: --from and --to go together: give both or neither'],
    [['--from', '12/01/2026', '--to', '2026-12-03T10:00'], 'error: --from must be a car-local date and time (YYYY-MM-DD HH:MM, 2026-12-01, tomorrow 3pm, fri 10:00, +3d), got "12/01/2026"'],
    [['--from', '2026-02-30T10:00', '--to', '2026-12-03T10:00'], 'error: --from is not a real date and time: "2026-02-30T10:00"'],
    [['--from', '2026-12-03T10:00', '--to', '2026-12-03T10:00'], 'error: --to (2026-12-03 10:00) must be after --from (2026-12-03 10:00)'],
    [['--from', '2026-12-03T10:00', '--to', '2026-12-01T10:00'], 'error: --to (2026-12-01 10:00) must be after --from (2026-12-03 10:00)'],
    [['--body-type', 'tank'], "error: option '--body-type <type>' argument 'tank' is invalid."],
    [['--sort', 'cheapest'], "error: option '--sort <order>' argument 'cheapest' is invalid."],
  ])('%j', async (args, message) => {
    const r = await cars(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toContain(message);
    expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
    expect(await sb.requests()).toEqual([]);
  });
});

describe('retries against the sandbox', () => {
  it('429 then success: waits Retry-After, then prints', async () => {
    await sb.admin('PATCH', '/config', { catalogRateLimitPerMinute: 1 });
    // 58 s into the sandbox's minute: the window reopens in 2 s, which is what Retry-After says
    await sb.admin('POST', '/clock', { advance_seconds: 58 });
    try {
      expect((await cars(['--limit', '1'])).code).toBe(0);
      const waits: number[] = [];
      // the "wait" opens a new rate window instead of sleeping
      const sleep = async (ms: number) => {
        waits.push(ms);
        await sb.admin('POST', '/rate-limits/reset');
      };
      const r = await cars(['--limit', '1'], { tty: true, sleep });
      expect(r.code).toBe(0);
      expect(waits).toHaveLength(1);
      expect(waits).toEqual([2000]);
      expect(r.stderr).toContain('HTTP 429 rate_limited: retrying in');
      expect((await sb.requests()).map((q) => q.status)).toEqual([200, 429, 200]);
    } finally {
      await sb.admin('POST', '/clock', { offset_ms: 0 });
      await sb.admin('PATCH', '/config', { catalogRateLimitPerMinute: 100_000 });
    }
  });

  it('503 then success', async () => {
    await sb.fault({ kind: 'error', operation: 'listCars', code: 'rate_limit_unavailable', times: 2 });
    const waits: number[] = [];
    const r = await cars(['--limit', '1', '--json'], { sleep: async (ms) => void waits.push(ms) });
    expect(r.code).toBe(0);
    expect(waits).toEqual([1000, 1000]);
    expect(JSON.parse(r.stdout).cars).toHaveLength(1);
  });

  it('sends no credential, even with a key configured', async () => {
    expect((await cars(['--limit', '1'], { env: { CARRENTAL_API_KEY: sb.keys.booking_write } })).code).toBe(0);
    expect((await sb.requests()).map((q) => q.credentials)).toEqual(['none']);
  });
});
