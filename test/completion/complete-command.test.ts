// `carrental __complete <kind> [context]`: the dynamic half of the completion scripts. It
// runs on every Tab press, so besides the right candidates (described: a reservation by its
// car, dates and amount due, an invoice by type, amount and status) it must be quiet (no
// stderr, exit 0 on any failure), quick (a 2 s deadline, answers cached for a minute,
// written whole or not at all) and must never prompt.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CACHE_FILE, CACHE_TTL_MS, DEADLINE_MS } from '../../src/commands/complete.js';
import { formatCents } from '../../src/render/money.js';
import * as atomicFile from '../../src/store/atomic-file.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCommand, TestHome } from '../helpers/cli.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

const NOW = new Date('2026-11-20T12:00:00Z');
const now = () => NOW;

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await startSandbox({ now, quiet: true });
});
afterAll(async () => {
  await sb?.close();
});

function withHome(fn: (home: TestHome) => Promise<void>) {
  return async () => {
    const home = new TestHome();
    try {
      await fn(home);
    } finally {
      home.cleanup();
    }
  };
}

const lines = (text: string) => text.split('\n').filter(Boolean);
/** The values of `value<TAB>description` lines. */
const values = (text: string) => lines(text).map((l) => l.split('\t')[0]);
/** value → description. */
const described = (text: string) => Object.fromEntries(lines(text).map((l) => l.split('\t')));
const UUID_LINE = /^[0-9a-f-]{36}\t\S.*$/;

describe('__complete cars', () => {
  it(
    'prints every car alias of the catalog, one per line, without a key',
    withHome(async (home) => {
      const r = await runCommand(['--base-url', sb.baseUrl, '__complete', 'cars'], { env: home.env(), now });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const all = await runCommand(['--base-url', sb.baseUrl, 'cars', '--all', '--json'], { env: home.env(), now });
      const aliases = (JSON.parse(all.stdout) as { cars: Array<{ car_alias: string }> }).cars.map((c) => c.car_alias);
      expect(aliases.length).toBeGreaterThan(200); // more than one page
      expect(lines(r.stdout).sort()).toEqual([...aliases].sort());
    }),
  );

  it(
    'answers from the cache for a minute, then asks again; the cache holds no key',
    withHome(async (home) => {
      const stub = await StubServer.start(() => ({ json: { data: { cars: [stubCar('fiat-500-la-001'), stubCar('mini-cooper-la-002')], total: 2, has_more: false } } }));
      try {
        const env = home.env({ CARRENTAL_API_KEY: 'svc_secretsecretsecret1234' });
        const first = await runCommand(['--base-url', stub.baseUrl, '__complete', 'cars'], { env, now });
        expect(lines(first.stdout)).toEqual(['fiat-500-la-001', 'mini-cooper-la-002']);
        expect(stub.requests).toHaveLength(1);
        // anonymous catalog read: the key is not sent
        expect(stub.requests[0].headers.authorization).toBeUndefined();
        expect(stub.requests[0].headers['x-api-key']).toBeUndefined();

        const later = () => new Date(NOW.getTime() + CACHE_TTL_MS - 1000);
        const cached = await runCommand(['--base-url', stub.baseUrl, '__complete', 'cars'], { env, now: later });
        expect(lines(cached.stdout)).toEqual(['fiat-500-la-001', 'mini-cooper-la-002']);
        expect(stub.requests).toHaveLength(1);

        const cachePath = join(home.dir, 'state', CACHE_FILE);
        expect(statSync(cachePath).mode & 0o777).toBe(0o600);
        expect(readFileSync(cachePath, 'utf8')).not.toContain('secretsecret');

        const expired = () => new Date(NOW.getTime() + CACHE_TTL_MS + 1000);
        await runCommand(['--base-url', stub.baseUrl, '__complete', 'cars'], { env, now: expired });
        expect(stub.requests).toHaveLength(2);

        // another API is another cache entry
        const other = await runCommand(['--base-url', stub.baseUrl.replace('/v1', '/x/v1'), '__complete', 'cars'], { env, now: expired });
        expect(other.code).toBe(0);
        expect(stub.requests).toHaveLength(3);
      } finally {
        await stub.close();
      }
    }),
  );

  it(
    'with no base URL prints nothing, sends nothing and creates no file',
    withHome(async (home) => {
      const r = await runCommand(['__complete', 'cars'], { env: home.env(), now });
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(existsSync(join(home.dir, 'config'))).toBe(false);
      expect(existsSync(join(home.dir, 'data'))).toBe(false);
    }),
  );

  it(
    'an unreachable API prints nothing and exits 0 at once',
    withHome(async (home) => {
      const stub = await StubServer.start();
      const dead = stub.baseUrl;
      await stub.close();
      const started = Date.now();
      const r = await runCommand(['--base-url', dead, '__complete', 'cars'], { env: home.env(), now });
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
    }),
  );

  it(
    'a server that never answers is given up after the deadline, silently',
    withHome(async (home) => {
      const stub = await StubServer.start(() => ({ delayMs: 10_000, json: {} }));
      try {
        const started = Date.now();
        const r = await runCommand(['--base-url', stub.baseUrl, '__complete', 'cars', '--timeout', '60'], { env: home.env(), now });
        const took = Date.now() - started;
        expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
        expect(took).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
        expect(took).toBeLessThan(DEADLINE_MS + 1500);
        // a failure is not cached: the next Tab tries again
        expect(existsSync(join(home.dir, 'state', CACHE_FILE))).toBe(false);
      } finally {
        await stub.close();
      }
    }),
  );

  it(
    'a malformed answer prints nothing',
    withHome(async (home) => {
      const stub = await StubServer.start(() => ({ raw: '<html>oops</html>' }));
      try {
        const r = await runCommand(['--base-url', stub.baseUrl, '--debug', '__complete', 'cars'], { env: home.env(), now });
        expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
      } finally {
        await stub.close();
      }
    }),
  );

  it(
    'prints only plain tokens: a hostile alias never reaches the shell',
    withHome(async (home) => {
      const hostile = ['$(touch /tmp/carrental-pwned)', '`id`', 'a b', '-rf', '', 'x'.repeat(200)];
      const stub = await StubServer.start(() => ({
        json: { data: { cars: [...hostile, 'fiat-500-la-001', 'Mini_Cooper.2'].map((a) => stubCar(a)), total: 8, has_more: false } },
      }));
      try {
        const r = await runCommand(['--base-url', stub.baseUrl, '__complete', 'cars'], { env: home.env(), now });
        expect(r).toEqual({ code: 0, stdout: 'fiat-500-la-001\nMini_Cooper.2\n', stderr: '' });
      } finally {
        await stub.close();
      }
    }),
  );

  it(
    'a remote profile does not start the embedded sandbox',
    withHome(async (home) => {
      const stub = await StubServer.start(() => ({ json: { data: { cars: [stubCar('fiat-500-la-001')], total: 1, has_more: false } } }));
      try {
        const r = await runCommand(['--base-url', stub.baseUrl, '__complete', 'cars'], { env: home.env(), now });
        expect(lines(r.stdout)).toEqual(['fiat-500-la-001']);
        // the sandbox would have written its state file into the data directory
        expect(existsSync(join(home.dir, 'data'))).toBe(false);
      } finally {
        await stub.close();
      }
    }),
  );
});

describe('__complete reservations and invoices', () => {
  it(
    "lists the key's reservation uuids, and the invoices of its reservations",
    withHome(async (home) => {
      const env = home.env({ CARRENTAL_API_KEY: sb.keys.booking_write });
      const search = await runCommand(['--base-url', sb.baseUrl, 'cars', '--city', 'miami', '--from', '2026-12-10T10:00', '--to', '2026-12-12T10:00', '--json'], { env, now });
      const car = (JSON.parse(search.stdout) as { cars: Array<{ car_alias: string; is_available?: boolean }> }).cars.find((c) => c.is_available);
      expect(car).toBeDefined();
      const reserved = await runCommand(['--base-url', sb.baseUrl, 'reserve', car!.car_alias, '--from', '2026-12-10T10:00', '--to', '2026-12-12T10:00', '-y'], { env, now });
      expect(reserved.code).toBe(0);
      const uuid = reserved.stdout.trim();

      const r = await runCommand(['--base-url', sb.baseUrl, '__complete', 'reservations'], { env, now });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(values(r.stdout)).toContain(uuid);
      for (const line of lines(r.stdout)) expect(line).toMatch(UUID_LINE);

      const trips = JSON.parse((await runCommand(['--base-url', sb.baseUrl, 'trips', '--json'], { env, now })).stdout) as {
        active: Trip[];
        history: Trip[];
      };
      const all = [...trips.active, ...trips.history];
      expect(values(r.stdout).sort()).toEqual(all.map((t) => t.uuid).sort());
      // each described by its car, its car-local dates and what is due
      const descriptions = described(r.stdout);
      for (const t of all) {
        const due = t.balance_cents > 0 ? `${formatCents(t.balance_cents)} due` : 'nothing due';
        const dates = `${t.date_checkin.replace('T', ' ')} → ${t.date_checkout.replace('T', ' ')}`;
        expect(descriptions[t.uuid]).toBe([t.car.name, dates, due, ...(t.status === 'new' ? [] : [t.status])].join(', '));
      }

      const inv = await runCommand(['--base-url', sb.baseUrl, '__complete', 'invoices'], { env, now });
      expect(inv.code).toBe(0);
      const expected = new Map<string, string>();
      for (const t of all.slice(0, 10)) {
        const list = JSON.parse((await runCommand(['--base-url', sb.baseUrl, 'invoices', t.uuid, '--json'], { env, now })).stdout) as Invoice[];
        for (const i of list) expected.set(i.id, `${i.type} ${formatCents(i.amount)} ${i.billing_status}`);
      }
      expect(expected.size).toBeGreaterThan(0); // the demo customer's history has invoices
      // each described by its type, amount and status
      expect(described(inv.stdout)).toEqual(Object.fromEntries(expected));
    }),
  );

  it(
    'without a key prints nothing and sends nothing',
    withHome(async (home) => {
      const stub = await StubServer.start();
      try {
        const r = await runCommand(['--base-url', stub.baseUrl, '__complete', 'reservations'], { env: home.env(), now });
        expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
        expect(stub.requests).toHaveLength(0);
      } finally {
        await stub.close();
      }
    }),
  );

  it(
    'a rejected key prints nothing',
    withHome(async (home) => {
      const r = await runCommand(['--base-url', sb.baseUrl, '__complete', 'reservations'], { env: home.env({ CARRENTAL_API_KEY: 'svc_0000000000000000000000000000dead' }), now });
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    }),
  );
});

interface Trip {
  uuid: string;
  status: string;
  date_checkin: string;
  date_checkout: string;
  balance_cents: number;
  car: { name: string; car_alias: string };
}
interface Invoice {
  id: string;
  type: string;
  amount: number;
  billing_status: string;
}

describe('__complete for cancel, pay-link and --extra: only what the command can act on', () => {
  // a sandbox of its own: these tests read the demo customer's seeded trips as they are
  let own: RunningSandbox;
  beforeAll(async () => {
    own = await startSandbox({ now, quiet: true });
  });
  afterAll(async () => {
    await own?.close();
  });
  const tripsOf = async (env: NodeJS.ProcessEnv) => {
    const trips = JSON.parse((await runCommand(['--base-url', own.baseUrl, 'trips', '--json'], { env, now })).stdout) as { active: Trip[]; history: Trip[] };
    return [...trips.active, ...trips.history];
  };

  it(
    'cancellable: the new reservations whose trip has not started',
    withHome(async (home) => {
      const env = home.env({ CARRENTAL_API_KEY: own.keys.booking_write });
      const all = await tripsOf(env);
      const upcoming = all.filter((t) => t.status === 'new').sort((a, b) => (a.date_checkin < b.date_checkin ? -1 : 1));
      expect(upcoming.length).toBeGreaterThanOrEqual(2); // the seed: D+10 and D+20
      expect(all.some((t) => t.status !== 'new')).toBe(true);

      const r = await runCommand(['--base-url', own.baseUrl, '__complete', 'cancellable'], { env, now });
      expect(r.stderr).toBe('');
      expect(values(r.stdout).sort()).toEqual(upcoming.map((t) => t.uuid).sort());
      for (const line of lines(r.stdout)) expect(line).toMatch(UUID_LINE);

      // once the first has begun (car-local), it is no longer offered
      const begun = new Date(Date.parse(`${upcoming[0].date_checkin}:00Z`) + 24 * 3600_000);
      const later = await runCommand(['--base-url', own.baseUrl, '__complete', 'cancellable'], { env, now: () => begun });
      expect(values(later.stdout)).not.toContain(upcoming[0].uuid);
      expect(values(later.stdout)).toContain(upcoming[upcoming.length - 1].uuid);
    }),
  );

  it(
    'payable: exactly the reservations pay-link gets a link for, rent or deposit',
    withHome(async (home) => {
      const env = home.env({ CARRENTAL_API_KEY: own.keys.booking_write });
      const all = await tripsOf(env);
      const accepted: string[] = [];
      for (const t of all) {
        for (const type of ['rent', 'deposit']) {
          const link = await runCommand(['--base-url', own.baseUrl, 'pay-link', t.uuid, '--type', type, '--json'], { env, now });
          if (link.code === 0) {
            accepted.push(t.uuid);
            break;
          }
        }
      }
      expect(accepted.length).toBeGreaterThan(0);
      expect(accepted.length).toBeLessThan(all.length);

      const r = await runCommand(['--base-url', own.baseUrl, '__complete', 'payable'], { env, now });
      expect(r.stderr).toBe('');
      expect(values(r.stdout).sort()).toEqual(accepted.sort());
      for (const line of lines(r.stdout)) expect(line).toMatch(/ due/);
    }),
  );

  it(
    "extras: the item types of the car typed on the line, with title and price, without a key",
    withHome(async (home) => {
      const env = home.env();
      const page = JSON.parse((await runCommand(['--base-url', own.baseUrl, 'cars', '--city', 'la', '--json'], { env, now })).stdout) as {
        cars: Array<{ car_alias: string; prices: { extras: Array<{ item_type: string; title: string; price_day: number }> } }>;
      };
      const car = page.cars.find((c) => c.prices.extras.length >= 2)!;
      const r = await runCommand(['--base-url', own.baseUrl, '__complete', 'extras', car.car_alias], { env, now });
      expect(r.stderr).toBe('');
      expect(described(r.stdout)).toEqual(Object.fromEntries(car.prices.extras.map((e) => [e.item_type, `${e.title}, ${formatCents(e.price_day)}/day`])));
      // another car, another answer (the cache keeps them apart); no car, nothing
      const other = page.cars.find((c) => c.prices.extras.length !== car.prices.extras.length)!;
      const r2 = await runCommand(['--base-url', own.baseUrl, '__complete', 'extras', other.car_alias], { env, now });
      expect(values(r2.stdout)).toEqual(other.prices.extras.map((e) => e.item_type));
      expect(await runCommand(['--base-url', own.baseUrl, '__complete', 'extras'], { env, now })).toEqual({ code: 0, stdout: '', stderr: '' });
    }),
  );

  it(
    'the cache is written whole or not at all, through the atomic writer',
    withHome(async (home) => {
      const env = home.env({ CARRENTAL_API_KEY: own.keys.booking_write });
      const spy = vi.spyOn(atomicFile, 'writeFileAtomicSync');
      try {
        const r = await runCommand(['--base-url', own.baseUrl, '__complete', 'reservations'], { env, now });
        expect(lines(r.stdout).length).toBeGreaterThan(0);
        expect(spy).toHaveBeenCalledTimes(1);
        expect(spy.mock.calls[0][0]).toBe(join(home.dir, 'state', CACHE_FILE));
      } finally {
        spy.mockRestore();
      }
      // and nothing but the cache is left in the directory (no temp file)
      expect(readdirSync(join(home.dir, 'state'))).toEqual([CACHE_FILE]);
    }),
  );
});

describe('__complete profiles', () => {
  it(
    'lists the configured profiles, sorted; reads only the config',
    withHome(async (home) => {
      const env = home.env();
      expect((await runCommand(['config', 'set', 'city', 'la', '--profile', 'work'], { env })).code).toBe(0);
      expect((await runCommand(['config', 'set', 'base_url', 'sandbox', '--profile', 'demo'], { env })).code).toBe(0);
      const r = await runCommand(['__complete', 'profiles'], { env });
      expect(r).toEqual({ code: 0, stdout: 'demo\nwork\n', stderr: '' });
    }),
  );

  it(
    'with no config prints nothing and creates none',
    withHome(async (home) => {
      const r = await runCommand(['__complete', 'profiles'], { env: home.env() });
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(existsSync(join(home.dir, 'config'))).toBe(false);
    }),
  );
});

describe('__complete in general', () => {
  it(
    'an unknown kind prints nothing',
    withHome(async (home) => {
      expect(await runCommand(['__complete', 'nonsense'], { env: home.env() })).toEqual({ code: 0, stdout: '', stderr: '' });
    }),
  );

  it(
    'never prompts and prints plain lines, even on a terminal',
    withHome(async (home) => {
      const env = home.env({ CARRENTAL_API_KEY: sb.keys.read_only });
      const r = await runCommand(['--base-url', sb.baseUrl, '__complete', 'reservations'], { env, tty: true, stdinTty: true, now });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(lines(r.stdout).length).toBeGreaterThan(0);
      for (const line of lines(r.stdout)) expect(line).toMatch(UUID_LINE);
    }),
  );

  it(
    'with a sandbox profile, asks the embedded sandbox',
    withHome(async (home) => {
      const env = home.env();
      // belt and braces: the embedded sandbox must keep its state in the test home whichever env it reads
      vi.stubEnv('CARRENTAL_SANDBOX_STATE', env.CARRENTAL_SANDBOX_STATE);
      await runCommand(['config', 'set', 'base_url', 'sandbox', '--profile', 'demo'], { env });
      const r = await runCommand(['--profile', 'demo', '__complete', 'cars'], { env, now }).finally(() => vi.unstubAllEnvs());
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(lines(r.stdout).length).toBeGreaterThan(200);
      expect(readdirSync(join(home.dir, 'state'))).toContain(CACHE_FILE);
    }),
  );
});
