// `cars --available`: with dates, only the cars the catalog marks available (the API has no
// such filter: the command filters what it fetched); without dates a usage error before any
// request. In-process against a loopback sandbox, where some cars are taken for the dates.
import { expect } from 'vitest';
import type { CarsPage } from '../../src/api/schemas.js';
import { runCommand } from '../helpers/cli.js';
import { SANDBOX_NOW, sandboxTest } from '../helpers/sandbox-admin.js';

const test = sandboxTest({ config: { catalogRateLimitPerMinute: 100_000 } }).extend(
  'cars',
  async ({ sb, home }) =>
    (args: string[], tty = false) =>
      runCommand(['--base-url', sb.baseUrl, 'cars', ...args], { env: home.env(), tty, now: () => SANDBOX_NOW, sleep: async () => {} }),
);

const FROM = '2026-12-02T10:00';
const TO = '2026-12-05T10:00';

test('keeps only the cars available for the dates, in --json and in the table', async ({ sb, cars }) => {
  const all = await sb.api<CarsPage>(`/cars?city=la&date_from=${FROM}&date_to=${TO}&limit=200`);
  const available = all.cars.filter((c) => c.is_available === true).map((c) => c.car_alias);
  expect(available.length).toBeGreaterThan(0);
  expect(available.length, 'the fixtures hold taken cars for these dates').toBeLessThan(all.cars.length);

  const json = await cars(['--city', 'la', '--from', FROM, '--to', TO, '--limit', '200', '--available', '--json']);
  expect(json.code, json.stderr).toBe(0);
  const page = JSON.parse(json.stdout) as CarsPage;
  expect(page.cars.map((c) => c.car_alias)).toEqual(available);
  expect(page.total).toBe(all.total);

  const table = await cars(['--city', 'la', '--from', FROM, '--to', TO, '--limit', '200', '--available']);
  expect(table.code, table.stderr).toBe(0);
  const rows = table.stdout.trimEnd().split('\n').filter((r) => !r.startsWith('ALIAS'));
  expect(rows.map((r) => r.split('\t')[0])).toEqual(available);
  expect(rows.every((r) => r.split('\t')[6] === 'yes')).toBe(true);

  const tty = await cars(['--city', 'la', '--from', FROM, '--to', TO, '--limit', '200', '--available'], true);
  expect(tty.stderr).toContain(`${available.length} of the ${all.cars.length} cars fetched are available`);
});

test('--all --available filters every page', async ({ sb, cars }) => {
  const all = await sb.api<CarsPage>(`/cars?city=la&date_from=${FROM}&date_to=${TO}&limit=200`);
  const res = await cars(['--city', 'la', '--from', FROM, '--to', TO, '--all', '--available', '--json']);
  expect(res.code, res.stderr).toBe(0);
  const page = JSON.parse(res.stdout) as CarsPage;
  expect(page.cars.length).toBeGreaterThan(0);
  expect(page.cars.every((c) => c.is_available === true)).toBe(true);
  expect(all.total).toBeLessThanOrEqual(200); // one API page holds them all: the counts compare
  expect(page.cars.length).toBe(all.cars.filter((c) => c.is_available === true).length);
});

test('without dates it is a usage error before any request', async ({ sb, cars }) => {
  const res = await cars(['--city', 'la', '--available']);
  expect(res.code).toBe(2);
  expect(res.stderr).toContain('--available needs --from and --to');
  expect(await sb.requests()).toEqual([]);
});
