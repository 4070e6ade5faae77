import { describe, expect, it } from 'vitest';
import * as S from '../../src/api/schemas.js';
import { classify, parseRequire } from '../../src/commands/doctor.js';
import { OPERATIONS } from '../../src/api/operations.js';

const answer = (status: number, body: unknown = {}) => {
  const obj = body as Record<string, unknown>;
  return { answer: { status, body, errorCode: obj.error_code as string | undefined, error: obj.error as string | undefined } };
};
const routeMissing = (a: { status: number; errorCode?: string }) => a.status === 405 || (a.status === 404 && a.errorCode === 'not_found');

const read = { method: 'GET', path: '/my/verification', auth: 'key' as const, expect: 'data' as const, schema: S.VerificationStatus, label: 'x' };
const absent = { method: 'DELETE', path: '/my/reservation/x', auth: 'key' as const, expect: 'absent' as const, label: 'x' };
const rejected = { method: 'POST', path: '/my/reservation', auth: 'key' as const, expect: 'rejected' as const, label: 'x' };

describe('doctor classify', () => {
  it('ok only for a 2xx that matches the schema', () => {
    const good = { data: { status: 'verified', is_approved_to_drive: true, drivers_license: { status: 'approved', expires_at: null, expired: false, expiring_soon: false } } };
    expect(classify(read, answer(200, good), routeMissing).status).toBe('ok');
    const bad = classify(read, answer(200, { data: { status: 'maybe' } }), routeMissing);
    expect(bad.status).toBe('failed');
    expect(bad.detail).toContain('data.status');
    expect(classify(read, answer(200, { status: 'verified' }), routeMissing).detail).toContain('envelope');
  });

  it('not deployed: 403 api_key_operation_not_enabled, an unknown route, 405', () => {
    expect(classify(read, answer(403, { error_code: 'api_key_operation_not_enabled' }), routeMissing).status).toBe('not_deployed');
    expect(classify(absent, answer(404, { error_code: 'not_found' }), routeMissing).status).toBe('not_deployed');
    expect(classify(absent, answer(405, {}), routeMissing).status).toBe('not_deployed');
  });

  it('a 404 for a uuid that cannot exist proves a deployed operation', () => {
    const r = classify(absent, answer(404, { error_code: 'reservation_not_found' }), routeMissing);
    expect(r).toMatchObject({ status: 'ok', http_status: 404, error_code: 'reservation_not_found' });
    // but a read that should answer data must not 404
    expect(classify(read, answer(404, { error_code: 'reservation_not_found' }), routeMissing).status).toBe('failed');
  });

  it('a 2xx to a probe that must be refused is a failure', () => {
    expect(classify(absent, answer(200, { data: 'OK' }), routeMissing).status).toBe('failed');
    expect(classify(rejected, answer(200, { data: 'uuid' }), routeMissing).status).toBe('failed');
  });

  it('a 400 to the empty create body proves a deployed create', () => {
    expect(classify(rejected, answer(400, { error_code: 'invalid_request' }), routeMissing).status).toBe('ok');
  });

  it('refusals for the key or the account are "refused"; 401 and 5xx fail', () => {
    expect(classify(absent, answer(403, { error_code: 'api_key_write_upgrade_required' }), routeMissing).detail).toContain('read_only');
    expect(classify(read, answer(403, { error_code: 'card_payments_not_enabled' }), routeMissing).status).toBe('refused');
    expect(classify(read, answer(401, { error_code: 'invalid_credentials' }), routeMissing).status).toBe('failed');
    expect(classify(read, answer(500, { error: 'boom' }), routeMissing)).toMatchObject({ status: 'failed', detail: 'HTTP 500: boom' });
    expect(classify(read, { networkError: 'connection refused' }, routeMissing)).toMatchObject({ status: 'failed', http_status: null });
  });

  it('tolerated refusals still count as answering', () => {
    const quote = { method: 'POST', path: '/reservation/quote', auth: 'none' as const, expect: 'data' as const, answersWith: [400, 409], label: 'x' };
    expect(classify(quote, answer(409, { error_code: 'car_not_available' }), routeMissing).status).toBe('ok');
    expect(classify(quote, answer(422, {}), routeMissing).status).toBe('failed');
  });
});

describe('doctor --require', () => {
  it('accepts operation ids, commas and all', () => {
    expect([...parseRequire(['listTrips,getInvoice', 'quote'])]).toEqual(['listTrips', 'getInvoice', 'quote']);
    expect(parseRequire(['all']).size).toBe(OPERATIONS.length);
    expect(() => parseRequire(['listTrip'])).toThrow(/unknown operation "listTrip"/);
  });
});
