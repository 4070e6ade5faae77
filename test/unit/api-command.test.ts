import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { canonicalCreate, operationFor, parseHeaders, parseMethod, parsePath, readBody } from '../../src/commands/api.js';
import { buildCreateRequest } from '../../src/booking/create-request.js';
import type { InStream } from '../../src/session/context.js';
import { usageError } from '../helpers/failure.js';

const usage = (fn: () => unknown) => usageError(fn).message;

describe('api command input', () => {
  it('upper-cases known methods and refuses others', () => {
    expect(parseMethod('get')).toBe('GET');
    expect(usage(() => parseMethod('FETCH'))).toContain('unknown HTTP method');
  });

  it('keeps paths under the base URL', () => {
    expect(parsePath('my/profile')).toBe('/my/profile');
    expect(parsePath('/cars?city=la')).toBe('/cars?city=la');
    expect(usage(() => parsePath('https://evil.example/v1/my/profile'))).toContain('is a URL');
    expect(usage(() => parsePath('//evil.example/x'))).toContain('is a URL');
    expect(usage(() => parsePath(''))).toContain('path is required');
  });

  it('parses headers and refuses credentials on the command line', () => {
    expect(parseHeaders(['X-Agent-Client: me/1', 'Accept:application/json'])).toEqual({ 'x-agent-client': 'me/1', accept: 'application/json' });
    expect(usage(() => parseHeaders(['Authorization: Bearer svc_x']))).toContain('refusing');
    expect(usage(() => parseHeaders(['x-api-key: svc_x']))).toContain('refusing');
    expect(usage(() => parseHeaders(['no colon']))).toContain('Name: value');
    expect(usage(() => parseHeaders(['Bad Name: x']))).toContain('Name: value');
  });

  it('checks the body is JSON before anything is sent, from the flag or stdin', async () => {
    const stdin = new PassThrough();
    stdin.end('{"a": 1}');
    expect(await readBody('-', { io: { stdin: stdin as unknown as InStream } as never })).toBe('{"a": 1}');
    expect(await readBody('[1,2]', { io: {} as never })).toBe('[1,2]');
    expect(await readBody(undefined, { io: {} as never })).toBeUndefined();
    await expect(readBody('{nope', { io: {} as never })).rejects.toMatchObject({ kind: 'usage' });
  });
});

describe('api: which operation a call is, and the canonical create', () => {
  it('matches the operations table by method and path template, ignoring the query', () => {
    expect(operationFor('GET', '/cars?city=la')?.id).toBe('listCars');
    expect(operationFor('GET', '/cars/kia-soul-1')?.auth).toBe('none');
    expect(operationFor('POST', '/my/reservation')?.idempotent).toBe(true);
    expect(operationFor('DELETE', '/my/reservation/0b4852a1-1b05-42e2-9d0f-e74bf9033781/')?.id).toBe('cancelReservation');
    expect(operationFor('GET', '/my/reservation/x/invoices')?.id).toBe('listReservationInvoices');
    expect(operationFor('GET', '/nope')).toBeUndefined();
  });

  it('a create body of the usual shape becomes what reserve sends for the same booking', () => {
    const raw = { date_checkout: '2026-12-03T10:00', car_alias: 'kia-soul-1', date_checkin: '2026-12-01T10:00', extras: ['gps', 'child_seat', 'gps'], options: { delivery_type: 'pickup', mileage_type: 'limited', protection_plan: 'standard', delivery_address: null } };
    const c = canonicalCreate(JSON.stringify(raw));
    const reserve = buildCreateRequest({ alias: 'kia-soul-1', from: '2026-12-01T10:00', to: '2026-12-03T10:00', protection: 'standard', extras: ['child_seat', 'gps'] });
    expect(c.request).toEqual(reserve);
    expect(JSON.parse(c.body)).toEqual(reserve);
    expect(c.target).toBe('kia-soul-1');
  });

  it('any other body is journaled and sent as given', () => {
    const odd = JSON.stringify({ car_alias: 'kia-soul-1', date_checkin: 'x', date_checkout: 'y', options: { protection_plan: 'platinum', mileage_type: 'limited', delivery_type: 'pickup' } });
    expect(canonicalCreate(odd)).toEqual({ request: JSON.parse(odd), body: odd, target: 'kia-soul-1' });
    const extra = JSON.stringify({ car_alias: 'a', date_checkin: 'x', date_checkout: 'y', options: { protection_plan: 'minimum', mileage_type: 'limited', delivery_type: 'pickup' }, note: 'hi' });
    expect(canonicalCreate(extra).body).toBe(extra);
  });
});
