// `carrental car <alias>` in-process against a loopback sandbox (and a scripted server for
// what the sandbox cannot produce: a car name carrying terminal escape sequences).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Car, CarsPage } from '../../src/api/schemas.js';
import { runCommand, type TestHome } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

let sb: TestSandbox;
let home: TestHome;
/** A Los Angeles car with insurance coverage, extras and an open-ended blocked range. */
let car: Car;

sandboxPerTest((s) => (sb = s), (h) => (home = h), { config: { catalogRateLimitPerMinute: 100_000 } });
beforeAll(async () => {
  const page = await sb.api<CarsPage>('/cars?city=la&limit=200');
  for (const c of page.cars) {
    const detail = await sb.api<Car>(`/cars/${c.car_alias}`);
    if (detail.insurance_coverage_usd && detail.prices.extras!.length && detail.blocked_ranges?.some((b) => b.to === null)) {
      car = detail;
      break;
    }
  }
  expect(car).toBeDefined();
});

const show = (args: string[], tty = false) => runCommand(['--base-url', sb.baseUrl, 'car', ...args], { env: home.env(), tty });

describe('car <alias>', () => {
  it('a pipe gets label<TAB>value lines with bare values, then plan, extra and blocked records', async () => {
    const r = await show([car.car_alias]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`car alias\t${car.car_alias}`);
    expect(lines).toContain(`name\t${car.name}`);
    expect(lines).toContain('city\tla');
    expect(lines).toContain('zone\tAmerica/Los_Angeles');
    expect(lines).toContain(`insurance coverage\t${car.insurance_coverage_usd!}.00`);
    expect(lines).toContain(`deposit\t${(car.prices.car!.price_deposit! / 100).toFixed(2)}`);
    expect(lines).toContain(`plan\tstandard\t${(car.prices.protection!.standard / 100).toFixed(2)}`);
    const extra = car.prices.extras![0];
    expect(lines).toContain(`extra\t${extra.item_type}\t${extra.title}\t${(extra.price_day! / 100).toFixed(2)}`);
    for (const b of car.blocked_ranges!) {
      expect(lines).toContain(`blocked\t${b.from!.replace('T', ' ')}\t${b.to === null ? '' : b.to!.replace('T', ' ')}\t${b.kind}`);
    }
    // one value per field: no headings, no prose, and every line a label or a record
    expect(r.stdout).not.toMatch(/^#/m);
    for (const line of lines.filter(Boolean)) expect(line.split('\t').length, line).toBeGreaterThanOrEqual(2);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('a terminal gets aligned pairs and borderless tables', async () => {
    const r = await show([car.car_alias], true);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Insurance coverage\S*\s+\$\d{1,3}(,\d{3})+\n/);
    expect(r.stdout).toMatch(/ open-ended( |$)/m);
    expect(r.stdout).not.toMatch(/[│┌└]/);
    expect(r.stdout).toContain('PER DAY');
  });

  it('--json prints the API payload exactly', async () => {
    const r = await show([car.car_alias, '--json']);
    expect(JSON.parse(r.stdout)).toEqual(car);
  });

  it('an unknown alias is exit 4 with the API’s code and request id', async () => {
    const r = await show(['no-such-car-9999']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .+ \(car_not_found, request req_[0-9a-f]+\)\nhint: `carrental cars --city la` \(or miami\) lists the car aliases\n$/);
  });

  it('a malformed alias is exit 2 and sends nothing', async () => {
    const r = await show(['../my/profile']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: "../my/profile" is not a car alias\n');
    expect(await sb.requests()).toEqual([]);
  });

  it('sends no credential', async () => {
    await runCommand(['--base-url', sb.baseUrl, 'car', car.car_alias], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }) });
    expect((await sb.requests()).map((q) => [q.operation, q.credentials])).toEqual([['getCar', 'none']]);
  });
});

describe('untrusted server strings', () => {
  let stub: StubServer;
  beforeAll(async () => {
    stub = await StubServer.start(() => ({
      json: {
        data: stubCar('evil-1', {
          name: 'Evil \u001b]0;pwned\u0007\u001b[2J\u001b[31mRed\u001b[0m',
          description: 'line one\nline two \u001b[5mblink\u001b[0m\u0007',
          address: '1 Main St\r\nSecond line',
          blocked_ranges: [{ from: '2026-12-01T10:00', to: null, kind: 'booked\u001b[8m' }],
        }),
      },
    }));
  });
  afterAll(() => stub.close());

  it.each([[false], [true]])('strips control characters (tty: %s)', async (tty) => {
    const r = await runCommand(['--base-url', stub.baseUrl, 'car', 'evil-1'], { env: home.env(), tty });
    expect(r.code).toBe(0);
    // a terminal: the title and the description's lines; a pipe: one bare value per field
    expect(r.stdout).toContain(tty ? 'Evil Red (evil-1)' : 'name\tEvil Red\n');
    expect(r.stdout).toContain(tty ? 'line one\nline two blink' : 'description\tline one line two blink\n');
    expect(r.stdout).toContain('1 Main St Second line');
    expect(r.stdout).toContain('booked');
    expect(r.stdout).not.toContain('pwned');
    // the only escape sequences left are our own bold/dim styling on a terminal
    expect(r.stdout.replace(/\u001b\[(1|2|22)m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('--json keeps the payload exactly as received (escaped by JSON)', async () => {
    const r = await runCommand(['--base-url', stub.baseUrl, '--json', 'car', 'evil-1'], { env: home.env() });
    expect(JSON.parse(r.stdout).name).toBe('Evil \u001b]0;pwned\u0007\u001b[2J\u001b[31mRed\u001b[0m');
    expect(r.stdout).not.toContain('\u001b');
  });
});
