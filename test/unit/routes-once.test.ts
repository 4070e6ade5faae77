// Routes are declared once (issue 26): api/operations.ts holds each operation's method and
// path template; api/endpoints.ts names operations by id and never spells a method or path.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { route } from '../../src/api/endpoints.js';
import { OPERATIONS, operationOf } from '../../src/api/operations.js';

const endpoints = readFileSync(new URL('../../src/api/endpoints.ts', import.meta.url), 'utf8');

describe('routes are declared once', () => {
  it('endpoints.ts spells no path and no method of its own', () => {
    expect(endpoints.match(/path:\s*[`'"]/g) ?? []).toEqual([]);
    expect(endpoints.match(/method:\s*'(GET|POST|DELETE)'/g) ?? []).toEqual([]);
  });

  it('every operation is sent by one endpoint, named by its id', () => {
    const named = [...endpoints.matchAll(/route\('(\w+)'/g)].map((m) => m[1]).sort();
    expect(named).toEqual(OPERATIONS.map((op) => op.id).sort());
  });

  it("fills a path template's parameters as single escaped segments", () => {
    expect(route('getCar', { alias: 'a/b' })).toEqual({ method: 'GET', path: '/cars/a%2Fb' });
    expect(route('listCars')).toEqual({ method: 'GET', path: '/cars' });
    expect(() => route('getCar')).toThrow(/alias/);
  });

  it('finds the operation of a request from the same table', () => {
    const U = '0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10';
    expect(operationOf('get', '/cars?limit=1')).toBe('listCars');
    expect(operationOf('GET', '/cars/')).toBe('listCars');
    expect(operationOf('GET', '/cars/x')).toBe('getCar');
    expect(operationOf('GET', `/my/reservation/${U}`)).toBe('getReservation');
    expect(operationOf('DELETE', `/my/reservation/${U}`)).toBe('cancelReservation');
    expect(operationOf('POST', `/my/billing/reservation/${U}/extension/price`)).toBe('extensionPrice');
    expect(operationOf('GET', '/cars//x')).toBeUndefined();
    expect(operationOf('GET', '/nope')).toBeUndefined();
    expect(operationOf('POST', '/cars')).toBeUndefined();
    // every template finds itself
    for (const op of OPERATIONS) expect(operationOf(op.method, op.path.replace(/\{\w+\}/g, 'x'))).toBe(op.id);
  });
});
