import { describe, expect, it } from 'vitest';
import { errorFromResponse, retryAfterSeconds } from '../../src/api/client.js';
import { hintFor, hintForApiError } from '../../src/cmdkit/hints.js';
import { CliError, EXIT_CODES, formatErrorLine, kindForStatus, usageError } from '../../src/errors.js';

describe('status -> kind -> exit code', () => {
  it.each([
    [400, 'api', 1],
    [401, 'auth', 3],
    [403, 'auth', 3],
    [404, 'not_found', 4],
    [405, 'api', 1],
    [409, 'conflict', 5],
    [422, 'api', 1],
    [429, 'unavailable', 6],
    [500, 'unavailable', 6],
    [502, 'unavailable', 6],
    [503, 'unavailable', 6],
  ] as const)('HTTP %i is %s (exit %i)', (status, kind, code) => {
    expect(kindForStatus(status)).toBe(kind);
    expect(EXIT_CODES[kind]).toBe(code);
    expect(errorFromResponse(status, {}, {}, 'GET /x').exitCode).toBe(code);
  });

  it('usage is 2 and interrupted is 130', () => {
    expect(usageError('bad').exitCode).toBe(2);
    expect(new CliError('interrupted', 'interrupted').exitCode).toBe(130);
  });
});

describe('errorFromResponse', () => {
  it('keeps the message, code, request id, description, body and Retry-After', () => {
    const body = { error: 'Rate limit exceeded', error_code: 'rate_limited', request_id: 'req_1', description: 'slow down' };
    const err = errorFromResponse(429, body, { 'retry-after': '7' }, 'GET /cars');
    expect(err.message).toBe('Rate limit exceeded');
    expect(err.api).toMatchObject({ status: 429, error_code: 'rate_limited', request_id: 'req_1', description: 'slow down', retryAfter: 7, body });
    expect(hintFor(err)).toBe('wait 7 s, then rerun the same command');
    // the description says more than the error: it is on the line
    expect(formatErrorLine(err)).toBe('error: Rate limit exceeded: slow down (rate_limited, request req_1)');
  });

  it('names the call and status when the body is not an API error', () => {
    const err = errorFromResponse(502, undefined, {}, 'GET /cars');
    expect(err.message).toBe('GET /cars failed with HTTP 502');
    expect(formatErrorLine(err)).toBe('error: GET /cars failed with HTTP 502');
    expect(err.api?.retryAfter).toBeUndefined();
  });

  it('reads Retry-After as seconds or as an HTTP date (RFC 9110), and ignores anything else', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds(' 7 ', now)).toBe(7);
    expect(retryAfterSeconds('Wed, 21 Oct 2026 07:28:30 GMT', now)).toBe(30);
    // a fraction of a second rounds up: never earlier than asked
    expect(retryAfterSeconds('Wed, 21 Oct 2026 07:28:30 GMT', now + 500)).toBe(30);
    // a date already past: retry at once
    expect(retryAfterSeconds('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
    for (const bad of ['1.5', '-1', 'soon', '2026-10-21', '', 'Wed, 99 Oct 2026 07:28:00 GMT']) expect(retryAfterSeconds(bad, now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    // errorFromResponse reads a date against the clock
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    const seconds = errorFromResponse(503, {}, { 'retry-after': inAMinute }, 'GET /x').api?.retryAfter;
    expect(seconds).toBeGreaterThanOrEqual(59);
    expect(seconds).toBeLessThanOrEqual(60);
  });
});

describe('hints', () => {
  it('says what to do next for the codes that have an obvious next step', () => {
    expect(hintForApiError('invalid_credentials', 401)).toContain('carrental auth login');
    expect(hintForApiError('api_key_write_upgrade_required', 403, 'Create one at https://app.example.com/settings/keys.')).toBe(
      'create a booking_write key in your account settings (https://app.example.com/settings/keys), then run `carrental auth login`',
    );
    expect(hintForApiError('invalid_pagination', 400, undefined, undefined, { method: 'GET', path: '/cars' })).toBe('--limit takes 1..200; --all fetches every page');
    expect(hintForApiError('operation_outcome_unknown', 503)).toContain('cannot book twice');
  });
  it('falls back on the status; never repeats the description as a hint', () => {
    expect(hintForApiError(undefined, 401)).toContain('auth login');
    expect(hintForApiError(undefined, 503)).toContain('safe');
    expect(hintForApiError('whatever', 400, 'the description')).toBeUndefined();
  });
});
