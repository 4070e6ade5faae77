import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxExtraCredentials, sandboxKeys } from '../../src/sandbox/index.js';
import { type Harness, availableCar, expectError, newKey, reserve, startHarness, tripBody } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

describe('admin endpoints', () => {
  it('describe the sandbox: urls, keys, customers, config, clock', async () => {
    const info = (await h.admin('GET', '/')).json;
    expect(info).toMatchObject({
      base_url: h.sb.baseUrl,
      app_url: h.sb.appUrl,
      admin_url: h.sb.adminUrl,
      state_path: null,
      seed: 1,
      fleet_size: 300,
      now: '2026-03-10T18:00:00.000Z',
      keys: sandboxKeys(1),
      extra_credentials: sandboxExtraCredentials(1),
    });
    expect(info.customers.map((c: any) => c.handle)).toEqual(['dana', 'omar', 'lee', 'sam', 'pat']);
    expect(h.sb.keys).toEqual(sandboxKeys(1));
    expect((await h.admin('GET', '/keys')).json).toEqual({ ...sandboxKeys(1), ...sandboxExtraCredentials(1) });
    expect((await h.admin('GET', '/clock')).json).toEqual({ now: '2026-03-10T18:00:00.000Z', offset_ms: 0, local: { la: '2026-03-10T11:00', miami: '2026-03-10T14:00' } });
  });

  it('sets and advances the clock offset', async () => {
    expect((await h.admin('POST', '/clock', { now: '2026-03-12T18:00:00Z' })).json).toMatchObject({ offset_ms: 2 * 86_400_000 });
    expect((await h.admin('POST', '/clock', { advance_seconds: 60 })).json.now).toBe('2026-03-12T18:01:00.000Z');
    expect((await h.admin('POST', '/clock', { offset_ms: 0 })).json.now).toBe('2026-03-10T18:00:00.000Z');
    expectError(await h.admin('POST', '/clock', {}), 400, 'invalid_request');
    expectError(await h.admin('POST', '/clock', { advance_seconds: 1, offset_ms: 1 }), 400, 'invalid_request');
  });

  it('count reservations per customer and record requests without credential values', async () => {
    const key = h.sb.keys.booking_write;
    const car = await availableCar(h, '2026-04-14T10:00', '2026-04-17T10:00');
    const before = (await h.admin('GET', '/reservations?customer=dana')).json;
    expect(before.count).toBe(8);
    const uuid = await reserve(h, key, tripBody(car.car_alias, '2026-04-14T10:00', '2026-04-17T10:00'));
    const after = (await h.admin('GET', '/reservations?customer=dana')).json;
    expect(after.count).toBe(9);
    expect(after.uuids).toContain(uuid);
    const byId = (await h.admin('GET', `/reservations?customer=${after.customer}&status=new`)).json;
    expect(byId.uuids).toContain(uuid);
    expect(byId.reservations.every((r: any) => r.status === 'new')).toBe(true);
    expectError(await h.admin('GET', '/reservations'), 400, 'invalid_request');
    expectError(await h.admin('GET', '/reservations?customer=zed'), 404, 'not_found');

    await h.call('GET', '/my/profile', { headers: { 'X-API-Key': key, 'X-Agent-Client': 'tests/1' } });
    const log = (await h.admin('GET', '/requests?limit=3')).json.requests;
    expect(log).toHaveLength(3);
    expect(log.at(-1)).toMatchObject({ method: 'GET', path: '/v1/my/profile', operation: 'getProfile', status: 200, credentials: 'x-api-key', agent_client: 'tests/1' });
    expect(JSON.stringify(log)).not.toContain(key);
    const create = (await h.admin('GET', '/requests')).json.requests.find((r: any) => r.operation === 'createReservation');
    expect(create.credentials).toBe('authorization');
    expect(create.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect((await h.admin('GET', '/requests')).json.requests.filter((r: any) => r.operation === 'listCars').every((r: any) => r.credentials === 'none')).toBe(true);

    const stats = (await h.admin('GET', '/stats')).json;
    expect(stats).toMatchObject({ reservations: 11, idempotency_records: 1, in_flight: 0 });
    expect(stats.requests_by_operation.createReservation).toBe(1);
  });

  it('re-seeds the world on reset', async () => {
    const key = h.sb.keys.booking_write;
    const uuid = (await h.admin('GET', '/reservations?customer=dana&status=new')).json.uuids[0];
    await h.call('DELETE', `/my/reservation/${uuid}`, { key, idempotencyKey: newKey() });
    await h.admin('POST', '/clock', { advance_seconds: 3600 });
    await h.admin('POST', '/reset');
    expect((await h.admin('GET', '/reservations?customer=dana&status=new')).json.count).toBe(2);
    expect((await h.admin('GET', '/clock')).json.offset_ms).toBe(0);
    expect((await h.admin('GET', '/stats')).json.idempotency_records).toBe(0);
  });

  it('refuses to pay what is not owed, and unknown reservations', async () => {
    const paid = (await h.call('GET', '/my/trips', { key: h.sb.keys.booking_write })).json.data.active.find((t: any) => t.balance_cents === 0);
    expectError(await h.admin('POST', '/pay', { reservation_uuid: paid.uuid, payment_type: 'reservation' }), 409, 'nothing_to_pay');
    expectError(await h.admin('POST', '/pay', { reservation_uuid: paid.uuid, payment_type: 'deposit' }), 409, 'nothing_to_pay');
    expectError(await h.admin('POST', '/pay', { reservation_uuid: 'nope', payment_type: 'rent' }), 404, 'reservation_not_found');
    expectError(await h.admin('POST', '/pay', { reservation_uuid: paid.uuid, payment_type: 'cash' }), 400, 'invalid_request');
    expectError(await h.admin('POST', '/cards', { customer: 'sam' }), 403, 'card_payments_not_enabled');
    expectError(await h.admin('POST', '/cards', { customer: 'dana', last4: '12' }), 400, 'invalid_request');
  });

  it('answer unknown admin paths with 404, and route /app/ to the pages', async () => {
    expectError(await h.admin('GET', '/nope'), 404, 'not_found');
    const page = await fetch(`${h.sb.appUrl}/no-such-page`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect((await fetch(h.sb.baseUrl.replace('/v1', '/elsewhere'))).status).toBe(404);
  });
});

/** A raw request, so that Host, Origin and Content-Type can be anything a browser could send. */
function raw(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('admin endpoints refuse what a web page on another site could send', () => {
  const json = { 'Content-Type': 'application/json' };

  it('a Host that is not a loopback name or address (DNS rebinding), even for a read', async () => {
    const url = `${h.sb.adminUrl}/keys`;
    for (const host of ['evil.example', 'evil.example:4780', '127.0.0.1.evil.example', 'localhost.evil.example']) {
      const res = await raw('GET', url, { Host: host });
      expect(res.status, host).toBe(403);
      expect(res.json.error_code).toBe('admin_request_refused');
    }
    const port = new URL(url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', '127.0.0.2']) expect((await raw('GET', url, { Host: host })).status, host).toBe(200);
  });

  it('an Origin other than the sandbox’s own, and a cross-site fetch', async () => {
    const origin = new URL(h.sb.adminUrl).origin;
    const host = new URL(h.sb.adminUrl).host;
    for (const bad of ['https://evil.example', 'null', 'http://localhost:1']) {
      const res = await raw('POST', `${h.sb.adminUrl}/reset`, { Host: host, Origin: bad, ...json }, '{}');
      expect(res.status, bad).toBe(403);
    }
    expect((await raw('GET', `${h.sb.adminUrl}/keys`, { Host: host, 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    // the sandbox's own pages and local JSON clients keep working
    expect((await raw('POST', `${h.sb.adminUrl}/clock`, { Host: host, Origin: origin, 'Sec-Fetch-Site': 'same-origin', ...json }, '{"advance_seconds":60}')).status).toBe(200);
    expect((await raw('POST', `${h.sb.adminUrl}/clock`, { Host: host, ...json }, '{"advance_seconds":60}')).status).toBe(200);
  });

  it('a state change without Content-Type: application/json, and nothing changes', async () => {
    const host = new URL(h.sb.adminUrl).host;
    const key = h.sb.keys.booking_write;
    const created = await reserve(h, key, tripBody((await availableCar(h, '2026-04-14T10:00', '2026-04-17T10:00')).car_alias, '2026-04-14T10:00', '2026-04-17T10:00'));
    const before = (await h.admin('GET', '/stats')).json.reservations;
    for (const [method, path, body] of [
      ['POST', '/reset', ''],
      ['POST', '/pay', JSON.stringify({ reservation_uuid: created, payment_type: 'rent' })],
      ['POST', '/clock', '{"advance_seconds":86400}'],
      ['POST', '/faults', '{"kind":"drop","operation":"*"}'],
      ['DELETE', '/faults', ''],
      ['PATCH', '/config', '{"maxActiveReservations":0}'],
    ] as const) {
      for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded']) {
        const res = await raw(method, `${h.sb.adminUrl}${path}`, type ? { Host: host, 'Content-Type': type } : { Host: host }, body);
        expect(res.status, `${method} ${path} ${type}`).toBe(415);
        expect(res.json.error_code).toBe('unsupported_media_type');
      }
    }
    expect((await h.admin('GET', '/stats')).json.reservations).toBe(before);
    expect((await h.admin('GET', '/clock')).json.offset_ms).toBe(0);
    expect((await h.admin('GET', '/faults')).json.faults).toEqual([]);
    expect((await h.call('GET', `/my/reservation/${created}`, { key })).json.data.payment_status.type).toBe('to_pay');
  });
});
