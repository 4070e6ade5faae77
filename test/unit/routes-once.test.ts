// Routes are declared once (issue 26): api/operations.ts holds each operation's method and
// path template; api/endpoints.ts names operations by id and never spells a method or path.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { route } from '../../src/api/endpoints.js';
import { OPERATIONS } from '../../src/api/operations.js';

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
});
