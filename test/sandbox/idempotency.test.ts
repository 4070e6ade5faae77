import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { type Harness, FIXED_NOW, availableCar, expectError, newKey, tempDir, test as harnessTest, tripBody } from './harness.js';
import { startSandbox } from '../../src/sandbox/index.js';


const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

const test = harnessTest
  .extend('count', async ({ h }) => async (customer = 'dana') => (await h.admin('GET', `/reservations?customer=${customer}`)).json.count as number)
  .extend('create', async ({ h, key }) => (body: unknown, idempotencyKey?: string, k = key) => h.call('POST', '/my/reservation', { key: k, body, idempotencyKey }));

describe('Idempotency-Key header', () => {
  test('is required on create and cancel with an API key', async ({ h, key, create }) => {
    const car = await availableCar(h, FROM, TO);
    expectError(await create(tripBody(car.car_alias, FROM, TO)), 400, 'idempotency_key_required');
    const uuid = (await h.admin('GET', '/reservations?customer=dana&status=new')).json.uuids[0];
    expectError(await h.call('DELETE', `/my/reservation/${uuid}`, { key }), 400, 'idempotency_key_required');
  });

  test.for([
    ['15 characters', 'a'.repeat(15)],
    ['129 characters', 'a'.repeat(129)],
    ['a non-ASCII character', `${'a'.repeat(20)}é`],
    ['a tab', `${'a'.repeat(10)}\t${'a'.repeat(10)}`],
  ])('must be 16 to 128 printable ASCII characters, not %s', async ([_name, value], { h, key }) => {
    const car = await availableCar(h, FROM, TO);
    // fetch refuses some of these header values itself; node:http sends them as they are.
    const res = await rawCreate(h, key, value, tripBody(car.car_alias, FROM, TO));
    expect(res.status).toBe(400);
    expect(res.json.error_code).toBe('idempotency_key_invalid');
  });

  test('accepts exactly 16 and 128 characters', async ({ h, create }) => {
    const car = await availableCar(h, FROM, TO);
    expect((await create(tripBody(car.car_alias, FROM, TO), 'k'.repeat(16))).status).toBe(200);
    expect((await create(tripBody(car.car_alias, FROM, TO), `${'~ '.repeat(63)}!!`)).status).toBe(200);
  });

  test('is optional with the application token', async ({ h, create }) => {
    const car = await availableCar(h, FROM, TO);
    expect((await create(tripBody(car.car_alias, FROM, TO), undefined, h.extra.app_token)).status).toBe(200);
  });
});

describe('replays', () => {
  test('returns the original status and body for a retry of a completed create, creating nothing', async ({ h, count, create }) => {
    const car = await availableCar(h, FROM, TO);
    const k = newKey();
    const before = await count();
    const first = await create(tripBody(car.car_alias, FROM, TO), k);
    expect(first.status).toBe(200);
    const second = await create(tripBody(car.car_alias, FROM, TO), k);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await count()).toBe(before + 1);
  });

  test('replays an original error of a completed command, request id included', async ({ h, create }) => {
    const car = await availableCar(h, FROM, TO);
    const k = newKey();
    const first = await create(tripBody(car.car_alias, '2026-03-01T10:00', '2026-03-04T10:00'), k);
    expectError(first, 400, 'date_in_past');
    const second = await create(tripBody(car.car_alias, '2026-03-01T10:00', '2026-03-04T10:00'), k);
    expect([second.status, second.text]).toEqual([400, first.text]);
  });

  test('replays a cancel: the second answer is the first OK, not reservation_not_cancellable', async ({ h, key }) => {
    const uuid = (await h.admin('GET', '/reservations?customer=dana&status=new')).json.uuids[0];
    const k = newKey();
    const first = await h.call('DELETE', `/my/reservation/${uuid}`, { key, idempotencyKey: k });
    expect(first.json).toEqual({ data: 'OK' });
    const second = await h.call('DELETE', `/my/reservation/${uuid}`, { key, idempotencyKey: k });
    expect([second.status, second.text]).toEqual([200, first.text]);
    expectError(await h.call('DELETE', `/my/reservation/${uuid}`, { key, idempotencyKey: newKey() }), 400, 'reservation_not_cancellable');
  });

  test('treats the same body with keys in another order as the same command', async ({ h, create }) => {
    const car = await availableCar(h, FROM, TO);
    const k = newKey();
    const body = tripBody(car.car_alias, FROM, TO);
    const first = await create(body, k);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect((await create(JSON.stringify(reordered, null, 2), k)).text).toBe(first.text);
  });

  test('scopes keys per customer', async ({ h, create }) => {
    const car = await availableCar(h, FROM, TO);
    const k = newKey();
    const a = await create(tripBody(car.car_alias, FROM, TO), k);
    const b = await create(tripBody(car.car_alias, FROM, TO), k, h.sb.keys.other_customer);
    expect(b.status).toBe(200);
    expect(b.json.data).not.toBe(a.json.data);
  });
});

describe('mismatch and in-progress', () => {
  test('answers 409 idempotency_mismatch for the same key with another body or reservation', async ({ h, key, create }) => {
    const car = await availableCar(h, FROM, TO);
    const k = newKey();
    expect((await create(tripBody(car.car_alias, FROM, TO), k)).status).toBe(200);
    expectError(await create(tripBody(car.car_alias, FROM, '2026-04-18T10:00'), k), 409, 'idempotency_mismatch');

    const [a, b] = (await h.admin('GET', '/reservations?customer=dana&status=new')).json.uuids;
    const ck = newKey();
    expect((await h.call('DELETE', `/my/reservation/${a}`, { key, idempotencyKey: ck })).status).toBe(200);
    expectError(await h.call('DELETE', `/my/reservation/${b}`, { key, idempotencyKey: ck }), 409, 'idempotency_mismatch');
    expectError(await create(tripBody(car.car_alias, FROM, TO), ck), 409, 'idempotency_mismatch');
    expect((await h.call('GET', `/my/reservation/${b}`, { key })).json.data.status).toBe('new');
  });

  test('answers 409 operation_in_progress with Retry-After 2 while the first attempt runs, then replays', async ({ h, count, create }) => {
    await h.admin('POST', '/faults', { kind: 'latency', operation: 'createReservation', ms: 600, times: 1 });
    const car = await availableCar(h, FROM, TO);
    const k = newKey();
    const before = await count();
    const slow = create(tripBody(car.car_alias, FROM, TO), k);
    await new Promise((r) => setTimeout(r, 150));
    const during = await create(tripBody(car.car_alias, FROM, TO), k);
    expectError(during, 409, 'operation_in_progress');
    expect(during.headers.get('retry-after')).toBe('2');
    const otherBody = await create(tripBody(car.car_alias, FROM, '2026-04-18T10:00'), k);
    expectError(otherBody, 409, 'idempotency_mismatch');
    const first = await slow;
    expect(first.status).toBe(200);
    const after = await create(tripBody(car.car_alias, FROM, TO), k);
    expect(after.text).toBe(first.text);
    expect(await count()).toBe(before + 1);
  });
});

describe('persistence', () => {
  it('keeps completed results in the state file across restarts', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const statePath = join(dir, 'state.json');
      const a = await startSandbox({ statePath, now: () => FIXED_NOW, quiet: true });
      const car = await fetch(`${a.baseUrl}/cars?limit=200&date_from=${FROM}&date_to=${TO}`).then((r) => r.json() as Promise<any>);
      const alias = car.data.cars.find((c: any) => c.is_available).car_alias;
      const k = newKey();
      const send = (base: string) =>
        fetch(`${base}/my/reservation`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${a.keys.booking_write}`, 'Idempotency-Key': k, 'Content-Type': 'application/json' },
          body: JSON.stringify(tripBody(alias, FROM, TO)),
        }).then(async (r) => [r.status, await r.text()] as const);
      const first = await send(a.baseUrl);
      await a.close();
      const b = await startSandbox({ statePath, now: () => FIXED_NOW, quiet: true });
      expect(await send(b.baseUrl)).toEqual(first);
      await b.close();
    } finally {
      cleanup();
    }
  });
});

/** POST through node:http, which sends tabs and Latin-1 header bytes that fetch would refuse. */
async function rawCreate(h: Harness, key: string, idem: string, body: unknown): Promise<{ status: number; json: any }> {
  const { request } = await import('node:http');
  const url = new URL(`${h.sb.baseUrl}/my/reservation`);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.setHeader('Idempotency-Key', idem);
    req.end(payload);
  });
}
