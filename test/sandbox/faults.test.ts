import { afterEach, describe, expect, it } from 'vitest';
import { Car, CarsPage, Trip } from '../../src/api/schemas.js';
import { type Harness, availableCar, expectError, newKey, startHarness, tripBody } from './harness.js';

let h: Harness;
afterEach(() => h?.close());

const FROM = '2026-04-14T10:00';
const TO = '2026-04-17T10:00';

const count = async () => (await h.admin('GET', '/reservations?customer=dana')).json.count as number;

async function createWith(k: string, alias: string) {
  return h.call('POST', '/my/reservation', { key: h.sb.keys.booking_write, idempotencyKey: k, body: tripBody(alias, FROM, TO) });
}

describe('connection dropped after commit', () => {
  it('loses the answer but not the command: a retry with the same key gets the original result', async () => {
    h = await startHarness();
    const car = await availableCar(h, FROM, TO);
    await h.admin('POST', '/faults', { kind: 'drop', operation: 'createReservation', times: 1 });
    const before = await count();
    const k = newKey();
    await expect(createWith(k, car.car_alias)).rejects.toThrow();
    expect(await count()).toBe(before + 1);
    const retry = await createWith(k, car.car_alias);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const uuids: string[] = (await h.admin('GET', '/reservations?customer=dana')).json.uuids;
    expect(uuids).toContain(retry.json.data);
    expect(await count()).toBe(before + 1);
  });

  it('can drop before the commit too, and then nothing happened', async () => {
    h = await startHarness();
    const car = await availableCar(h, FROM, TO);
    await h.admin('POST', '/faults', { kind: 'drop', operation: 'createReservation', when: 'before_commit', times: 1 });
    const before = await count();
    const k = newKey();
    await expect(createWith(k, car.car_alias)).rejects.toThrow();
    expect(await count()).toBe(before);
    expect((await createWith(k, car.car_alias)).headers.get('idempotent-replayed')).toBeNull();
    expect(await count()).toBe(before + 1);
  });
});

describe('503 operation_outcome_unknown', () => {
  it('after a real commit: the retry replays the committed result', async () => {
    h = await startHarness({ faults: [{ kind: 'error', operation: 'createReservation', code: 'operation_outcome_unknown', commit: true, times: 1 }] });
    const car = await availableCar(h, FROM, TO);
    const before = await count();
    const k = newKey();
    const first = await createWith(k, car.car_alias);
    expectError(first, 503, 'operation_outcome_unknown');
    expect(first.headers.get('retry-after')).toBe('1');
    expect(await count()).toBe(before + 1);
    const retry = await createWith(k, car.car_alias);
    expect(retry.status).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it('without a commit: the retry executes the command once', async () => {
    h = await startHarness({ faults: [{ kind: 'error', operation: 'cancelReservation', code: 'operation_outcome_unknown', times: 1 }] });
    const uuid = (await h.admin('GET', '/reservations?customer=dana&status=new')).json.uuids[0];
    const k = newKey();
    const cancel = () => h.call('DELETE', `/my/reservation/${uuid}`, { key: h.sb.keys.booking_write, idempotencyKey: k });
    expectError(await cancel(), 503, 'operation_outcome_unknown');
    expect((await h.call('GET', `/my/reservation/${uuid}`, { key: h.sb.keys.booking_write })).json.data.status).toBe('new');
    expect((await cancel()).json).toEqual({ data: 'OK' });
    expect((await cancel()).json).toEqual({ data: 'OK' });
    expect((await h.call('GET', `/my/reservation/${uuid}`, { key: h.sb.keys.booking_write })).json.data.status).toBe('cancelled');
  });
});

describe('error faults', () => {
  it.each(['authentication_unavailable', 'rate_limit_unavailable'])('answer 503 %s with Retry-After 1, executing nothing', async (code) => {
    h = await startHarness();
    const car = await availableCar(h, FROM, TO);
    await h.admin('POST', '/faults', { kind: 'error', operation: 'createReservation', code, times: 1 });
    const before = await count();
    const res = await createWith(newKey(), car.car_alias);
    expectError(res, 503, code);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await count()).toBe(before);
  });

  it('answer 503 manual_action_unavailable on a link, recording no flow', async () => {
    h = await startHarness({ faults: [{ kind: 'error', operation: 'cardAddLink', code: 'manual_action_unavailable' }] });
    const res = await h.call('POST', '/my/billing/cards/add-link', { key: h.sb.keys.booking_write });
    expectError(res, 503, 'manual_action_unavailable');
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await h.admin('GET', '/agent-flows')).json.count).toBe(0);
  });

  it('answer a temporary 500 payment_in_progress on a reservation read for the next N reads', async () => {
    h = await startHarness({ faults: [{ kind: 'error', operation: 'getReservation', code: 'payment_in_progress', times: 2 }] });
    const uuid = (await h.admin('GET', '/reservations?customer=dana&status=new')).json.uuids[0];
    const read = () => h.call('GET', `/my/reservation/${uuid}`, { key: h.sb.keys.booking_write });
    expectError(await read(), 500, 'payment_in_progress');
    expectError(await read(), 500, 'payment_in_progress');
    expect(Trip.parse((await read()).json.data).uuid).toBe(uuid);
  });

  it('apply always until removed, and to every operation with *', async () => {
    h = await startHarness();
    const added = await h.admin('POST', '/faults', { kind: 'error', operation: '*', code: 'rate_limit_unavailable' });
    for (let i = 0; i < 3; i++) expectError(await h.call('GET', '/cars'), 503, 'rate_limit_unavailable');
    expectError(await h.call('GET', '/my/profile', { key: h.sb.keys.read_only }), 503, 'rate_limit_unavailable');
    expect((await h.admin('GET', '/faults')).json.faults).toHaveLength(1);
    await h.admin('DELETE', `/faults/${added.json.faults[0].id}`);
    expect((await h.call('GET', '/cars')).status).toBe(200);
    expectError(await h.admin('DELETE', `/faults/${added.json.faults[0].id}`), 404, 'not_found');
  });
});

describe('malformed bodies and latency', () => {
  it('sends invalid JSON or a schema-breaking body when asked', async () => {
    h = await startHarness();
    await h.admin('POST', '/faults', [
      { kind: 'malformed', operation: 'listCars', body: 'invalid_json', times: 1 },
      { kind: 'malformed', operation: 'getCar', body: 'schema', times: 1 },
    ]);
    const list = await h.call('GET', '/cars');
    expect(list.status).toBe(200);
    expect(() => JSON.parse(list.text)).toThrow();
    const car = await h.call('GET', '/cars/toyota-camry-1001');
    expect(car.status).toBe(200);
    expect(Car.safeParse(car.json.data).success).toBe(false);
    expect(CarsPage.safeParse((await h.call('GET', '/cars')).json.data).success).toBe(true);
  });

  it('delays before or after the commit', async () => {
    h = await startHarness({ faults: [{ kind: 'latency', operation: 'getProfile', ms: 300, when: 'after_commit', times: 1 }] });
    const t0 = Date.now();
    expect((await h.call('GET', '/my/profile', { key: h.sb.keys.read_only })).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    const t1 = Date.now();
    await h.call('GET', '/my/profile', { key: h.sb.keys.read_only });
    expect(Date.now() - t1).toBeLessThan(290);
  });

  it('refuses invalid fault specs, adding none of a batch', async () => {
    h = await startHarness();
    expectError(await h.admin('POST', '/faults', { kind: 'error', operation: 'createReservation', code: 'teapot' }), 400, 'invalid_request');
    expectError(await h.admin('POST', '/faults', { kind: 'drop', operation: 'noSuchOperation' }), 400, 'invalid_request');
    expectError(await h.admin('POST', '/faults', [{ kind: 'drop', operation: 'listCars' }, { kind: 'nope', operation: 'listCars' }]), 400, 'invalid_request');
    expect((await h.admin('GET', '/faults')).json.faults).toEqual([]);
    await expect(h.sb.close()).resolves.toBeUndefined();
    const { startSandbox } = await import('../../src/sandbox/index.js');
    await expect(startSandbox({ quiet: true, faults: [{ kind: 'latency', operation: 'listCars', ms: -1 } as never] })).rejects.toThrow(/ms/);
  });
});
