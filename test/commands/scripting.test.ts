// Scripting features end to end, in-process: --json as received, --json fields, --jq on
// any command, cars --all streaming and following has_more, Retry-After during the walk.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { InStream } from '../../src/session/context.js';
import { FakeOut, runCommand, TestHome, type RunOpts } from '../helpers/cli.js';
import { sandboxPerTest, TestSandbox } from '../helpers/sandbox-admin.js';
import { StubServer, stubCar } from '../helpers/stub-server.js';

let sb: TestSandbox;
let home: TestHome;
sandboxPerTest((s) => (sb = s), (h) => (home = h), { config: { catalogRateLimitPerMinute: 100_000 } });

const run = (argv: string[], opts: RunOpts & { key?: string } = {}) =>
  runCommand(['--base-url', sb.baseUrl, ...argv], { sleep: async () => {}, ...opts, env: home.env(opts.key ? { CARRENTAL_API_KEY: opts.key } : {}) });

/** The server's own text of the envelope's data (the sandbox writes `{"data":...}` compactly). */
async function rawData(path: string, key?: string): Promise<string> {
  const text = await (await fetch(sb.baseUrl + path, { headers: key ? { authorization: `Bearer ${key}` } : {} })).text();
  expect(text.startsWith('{"data":')).toBe(true);
  return text.slice('{"data":'.length, -1);
}

describe('--json prints the payload as received', () => {
  it('cars: byte for byte, keys in the server order (make_id stays where the server put it)', async () => {
    const r = await run(['cars', '--city', 'la', '--limit', '5', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${await rawData('/cars?city=la&limit=5')}\n`);
    expect(Object.keys(JSON.parse(r.stdout).cars[0]).indexOf('make_id')).toBeLessThan(Object.keys(JSON.parse(r.stdout).cars[0]).indexOf('photos'));
  });

  it('a keyed read too (trips), and `--json` before the command name is still a bare --json', async () => {
    const r = await runCommand(['--base-url', sb.baseUrl, '--json', 'trips'], { env: home.env({ CARRENTAL_API_KEY: sb.keys.booking_write }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${await rawData('/my/trips', sb.keys.booking_write)}\n`);
  });

  it('on a terminal the same tokens, indented', async () => {
    const r = await run(['car', JSON.parse(await rawData('/cars?limit=1')).cars[0].car_alias, '--json'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\{\n {2}"car_alias": "/);
  });

  it('escapes C1 and bidi characters as \\u sequences and never prints the active key', async () => {
    const key = 'svc_00000000000000000000000000001234';
    const stub = await StubServer.start(() => ({
      json: { data: { cars: [stubCar('evil-1', { name: `Evil\u0085\u202ecar ${key}` })], total: 1, has_more: false } },
    }));
    try {
      const r = await runCommand(['--base-url', stub.baseUrl, 'cars', '--json'], { env: home.env({ CARRENTAL_API_KEY: key }) });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(key);
      expect(r.stdout).not.toMatch(/[\u0085\u202e]/);
      expect(JSON.parse(r.stdout).cars[0].name).toBe('Evil\u0085\u202ecar svc_…1234');
    } finally {
      await stub.close();
    }
  });
});

describe('--json fields', () => {
  it('keeps only those fields of each car, and the page around them', async () => {
    const expected = JSON.parse(await rawData('/cars?city=miami&limit=3'));
    const r = await run(['cars', '--city', 'miami', '--limit', '3', '--json', 'car_alias,name']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ cars: expected.cars.map((c: { car_alias: string; name: string }) => ({ car_alias: c.car_alias, name: c.name })), total: expected.total, has_more: expected.has_more });
  });

  it('an unknown field is exit 2 listing the available ones', async () => {
    const r = await run(['cars', '--limit', '1', '--json', 'car_alias,nmae']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: unknown JSON field: nmae\nhint: available fields: .*car_alias.*, name, /);
  });

  it('works on the trips list (each trip of active and history)', async () => {
    const r = await run(['trips', '--json', 'uuid,status'], { key: sb.keys.booking_write });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['active', 'history']);
    expect(Object.keys(doc.active[0])).toEqual(['uuid', 'status']);
  });

  it('reserve checks its field list before sending anything', async () => {
    const r = await run(['reserve', 'x-1', '--from', '2026-12-01T10:00', '--to', '2026-12-03T10:00', '-y', '--json', 'reservation_uuid'], { key: sb.keys.booking_write });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown JSON field: reservation_uuid');
    expect(await sb.requests()).toEqual([]);
  });
});

describe('--jq', () => {
  it('filters any command’s JSON, strings raw, one result per line', async () => {
    const expected = JSON.parse(await rawData('/cars?city=la&limit=3')).cars.map((c: { car_alias: string }) => c.car_alias);
    const r = await run(['cars', '--city', 'la', '--limit', '3', '--jq', '.cars[].car_alias']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected.map((a: string) => `${a}\n`).join(''));
    const p = await run(['profile', '--jq', '{first_name}'], { key: sb.keys.booking_write });
    expect(p.code).toBe(0);
    expect(JSON.parse(p.stdout)).toEqual({ first_name: expect.any(String) });
  });

  it('applies after --json fields', async () => {
    const r = await run(['cars', '--limit', '2', '--json', 'seats', '--jq', '[.cars[] | keys[]] | unique']);
    expect(r.stdout).toBe('["seats"]\n');
  });

  it('an invalid expression is exit 2 before any request', async () => {
    const r = await run(['cars', '--jq', '.cars[']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --jq: syntax error/);
    expect(await sb.requests()).toEqual([]);
  });
});

describe('cars --all', () => {
  it('--json is one valid document of every car, each as the server sent it', async () => {
    const total = JSON.parse(await rawData('/cars?limit=1')).total;
    await sb.clearRequests();
    const r = await run(['cars', '--all', '--limit', '40', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const doc = JSON.parse(r.stdout);
    expect(doc.cars).toHaveLength(total);
    expect(doc).toMatchObject({ total, has_more: false });
    expect((await sb.requests()).filter((q) => q.operation === 'listCars')).toHaveLength(Math.ceil(total / 40));
    const second = await rawData('/cars?limit=40&offset=40');
    expect(r.stdout).toContain(second.slice('{"cars":['.length, second.indexOf('],"total"')));
  });

  it('--json fields and --jq work on the walk', async () => {
    const total = JSON.parse(await rawData('/cars?limit=1')).total;
    const f = await run(['cars', '--all', '--json', 'car_alias']);
    expect(JSON.parse(f.stdout).cars).toHaveLength(total);
    expect(Object.keys(JSON.parse(f.stdout).cars[0])).toEqual(['car_alias']);
    const j = await run(['cars', '--all', '--limit', '100', '--jq', '.cars | length']);
    expect(j.stdout).toBe(`${total}\n`);
  });

  it('in a pipe, one tab-separated line per car', async () => {
    const total = JSON.parse(await rawData('/cars?limit=1')).total;
    const r = await run(['cars', '--all', '--limit', '100']);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(total);
  });

  it('streams: the first cars are on stdout before the last page is even asked for', async () => {
    const stdout = new FakeOut(false);
    let chunksWhenLastAsked = -1;
    const stub = await StubServer.start((req) => {
      const offset = Number(req.query.get('offset'));
      if (offset === 400) chunksWhenLastAsked = stdout.chunks.length;
      const cars = Array.from({ length: 200 }, (_, k) => stubCar(`car-${offset + k}`));
      return { json: { data: { cars, total: 600, has_more: offset < 400 } }, delayMs: 20 };
    });
    try {
      const stdin = new PassThrough() as unknown as InStream;
      (stdin as unknown as PassThrough).end();
      const code = await runCli(['--base-url', stub.baseUrl, 'cars', '--all', '--json'], { io: { stdin, stdout, stderr: new FakeOut(false) }, env: home.env() });
      expect(code).toBe(0);
      expect(chunksWhenLastAsked).toBeGreaterThan(0);
      expect(JSON.parse(stdout.text()).cars).toHaveLength(600);
    } finally {
      await stub.close();
    }
  });

  it('a slow reader holds the walk back: what waits for stdout stays about a page, not the fleet', async () => {
    class SlowOut extends FakeOut {
      maxQueued = 0;
      constructor() {
        super(false);
      }
      override _write(chunk: Buffer | string, enc: BufferEncoding, cb: () => void) {
        this.maxQueued = Math.max(this.maxQueued, this.writableLength);
        setTimeout(() => super._write(chunk, enc, cb), 3);
      }
    }
    const stdout = new SlowOut();
    const pageBytes = JSON.stringify(Array.from({ length: 200 }, (_, k) => stubCar(`car-${k}`))).length;
    const stub = await StubServer.start((req) => {
      const offset = Number(req.query.get('offset'));
      return { json: { data: { cars: Array.from({ length: 200 }, (_, k) => stubCar(`car-${offset + k}`)), total: 4_000, has_more: offset + 200 < 4_000 } } };
    });
    try {
      const stdin = new PassThrough() as unknown as InStream;
      (stdin as unknown as PassThrough).end();
      const code = await runCli(['--base-url', stub.baseUrl, 'cars', '--all', '--json'], { io: { stdin, stdout, stderr: new FakeOut(false) }, env: home.env() });
      expect(code).toBe(0);
      // what is still queued is written before the process exits
      while (stdout.writableLength > 0) await new Promise((r) => setTimeout(r, 5));
      expect(JSON.parse(stdout.text()).cars).toHaveLength(4_000);
      expect(stdout.maxQueued).toBeLessThan(2 * pageBytes);
    } finally {
      await stub.close();
    }
  });

  it('stops at has_more false whatever total says, and says on stderr that they disagree', async () => {
    const stub = await StubServer.start((req) => {
      const offset = Number(req.query.get('offset'));
      return { json: { data: { cars: Array.from({ length: 200 }, (_, k) => stubCar(`car-${offset + k}`)), total: 1_000_000, has_more: offset === 0 } } };
    });
    try {
      const r = await runCommand(['--base-url', stub.baseUrl, 'cars', '--all', '--json'], { env: home.env() });
      expect(r.code).toBe(0);
      expect(stub.requests.map((q) => q.query.get('offset'))).toEqual(['0', '200']);
      expect(JSON.parse(r.stdout).cars).toHaveLength(400);
      expect(r.stderr).toMatch(/^warning: the server's total is 1000000 cars, but 400 arrived/);
    } finally {
      await stub.close();
    }
  });

  it('a fleet that grows while paged: every car, and no warning once the totals agree', async () => {
    const stub = await StubServer.start((req) => {
      const offset = Number(req.query.get('offset'));
      const n = offset < 600 ? 200 : 50;
      return { json: { data: { cars: Array.from({ length: n }, (_, k) => stubCar(`car-${offset + k}`)), total: offset === 0 ? 600 : 650, has_more: offset + n < 650 } } };
    });
    try {
      const r = await runCommand(['--base-url', stub.baseUrl, 'cars', '--all'], { env: home.env() });
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(650);
      expect(r.stderr).toBe('');
    } finally {
      await stub.close();
    }
  });

  it('honours Retry-After on 429, and after giving up sends nothing more', async () => {
    const waits: number[] = [];
    const stub = await StubServer.start((req) => {
      const offset = Number(req.query.get('offset'));
      if (offset >= 600) return { status: 429, headers: { 'retry-after': offset === 600 ? '120' : '1' }, json: { error: 'slow down', error_code: 'rate_limited' } };
      return { json: { data: { cars: Array.from({ length: 200 }, (_, k) => stubCar(`car-${offset + k}`)), total: 2_000, has_more: true } }, delayMs: 5 };
    });
    try {
      const r = await runCommand(['--base-url', stub.baseUrl, 'cars', '--all', '--json'], {
        env: home.env(),
        sleep: async (ms) => {
          waits.push(ms);
        },
      });
      expect(r.code).toBe(6);
      expect(r.stderr).toContain('rate_limited');
      // no wait shorter than the server asked; a 120 s wait is past the retry budget: it gives up
      expect(waits.every((ms) => ms >= 1000)).toBe(true);
      const sent = stub.requests.length;
      await new Promise((res) => setTimeout(res, 100));
      expect(stub.requests.length).toBe(sent);
      expect(stub.requests.filter((q) => q.query.get('offset') === '600')).toHaveLength(1);
    } finally {
      await stub.close();
    }
  });

  it('a malformed car fails with the field named', async () => {
    const stub = await StubServer.start(() => ({ json: { data: { cars: [stubCar('a-1'), stubCar('b-2', { seats: 'four' })], total: 2, has_more: false } } }));
    try {
      // one page or every page, on a terminal's table or in JSON: the same check, the same message
      for (const args of [['cars', '--all', '--json'], ['cars', '--json'], ['cars']]) {
        const r = await runCommand(['--base-url', stub.baseUrl, ...args], { env: home.env() });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr).toContain('data.cars.1.seats');
      }
      // the schema stays the authority: what the plain check does not look at (an enum) is still refused
      stub.handler = () => ({ json: { data: { cars: [stubCar('a-1', { city: 'paris' })], total: 1, has_more: false } } });
      for (const args of [['cars'], ['cars', '--all', '--json']]) {
        const r = await runCommand(['--base-url', stub.baseUrl, ...args], { env: home.env() });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr).toContain('data.cars.0.city');
      }
    } finally {
      await stub.close();
    }
  });
});

describe('cars --all --json FIELDS', () => {
  it('checks the field list once, on the first page, before writing anything; fields some cars lack are simply absent there', async () => {
    const stub = await StubServer.start((req) => {
      const offset = Number(req.query.get('offset'));
      const cars = Array.from({ length: 200 }, (_, k) => stubCar(`car-${offset + k}`, offset + k === 5 ? { badge: 'new' } : {}));
      return { json: { data: { cars, total: 400, has_more: offset === 0 } } };
    });
    try {
      const ok = await runCommand(['--base-url', stub.baseUrl, 'cars', '--all', '--json', 'car_alias,badge'], { env: home.env() });
      expect(ok.code, ok.stderr).toBe(0);
      const cars = JSON.parse(ok.stdout).cars;
      expect(cars).toHaveLength(400);
      expect(cars[5]).toEqual({ car_alias: 'car-5', badge: 'new' });
      expect(cars[6]).toEqual({ car_alias: 'car-6' });
      const bad = await runCommand(['--base-url', stub.baseUrl, 'cars', '--all', '--json', 'car_alias,bdage'], { env: home.env() });
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
    } finally {
      await stub.close();
    }
  });
});
