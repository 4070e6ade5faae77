// The edges of the write path's pure rules: each expectation sits on a boundary that a
// one-character change (`>=` for `>`, `<` for `<=`) would move (mutation testing,
// docs/mutation-testing.md "Mutation testing").
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WRITE_RETRIES,
  DEFAULT_WRITE_RETRY_SECONDS,
  formatAge,
  isDefinitiveRefusal,
  isOutcomeUnknown,
  replayWindowMs,
  writeRetryPolicy,
} from '../../src/booking/journaled-write.js';
import { parseWriteKey } from '../../src/input/parse.js';
import { CliError } from '../../src/errors.js';

const apiError = (status: number, error_code?: string) => new CliError('api', 'x', { api: { status, error_code } });

describe('which answers are final', () => {
  it('HTTP 499 is a refusal and 500 is not, for the retry rule and for settling alike', () => {
    expect(isOutcomeUnknown({ kind: 'status', status: 499 })).toBe(false);
    expect(isOutcomeUnknown({ kind: 'status', status: 500 })).toBe(true);
    expect(isDefinitiveRefusal(apiError(499))).toBe(true);
    expect(isDefinitiveRefusal(apiError(500))).toBe(false);
  });

  it('only a 4xx is a refusal: a 3xx or a 2xx that failed to parse is not', () => {
    expect(isDefinitiveRefusal(apiError(399))).toBe(false);
    expect(isDefinitiveRefusal(apiError(400))).toBe(true);
    expect(isDefinitiveRefusal(apiError(200))).toBe(false);
  });

  it('409 is retried only for operation_in_progress, 429 always', () => {
    expect(isOutcomeUnknown({ kind: 'status', status: 409 })).toBe(false);
    expect(isOutcomeUnknown({ kind: 'status', status: 428 })).toBe(false);
    expect(isOutcomeUnknown({ kind: 'status', status: 430 })).toBe(false);
    expect(isOutcomeUnknown({ kind: 'status', status: 410, errorCode: 'operation_in_progress' })).toBe(false);
    expect(isDefinitiveRefusal(apiError(409))).toBe(true);
    expect(isDefinitiveRefusal(apiError(410, 'operation_in_progress'))).toBe(true);
  });

  it('the write policy retries exactly what leaves the outcome unknown, whatever the method', () => {
    const { retryable } = writeRetryPolicy({});
    expect(retryable({ kind: 'status', status: 503 }, 'POST')).toBe(true);
    expect(retryable({ kind: 'network', timedOut: true }, 'DELETE')).toBe(true);
    expect(retryable({ kind: 'status', status: 422 }, 'POST')).toBe(false);
  });
});

describe('the hidden bounds', () => {
  it('accepts each bound at its maximum and refuses one more, naming the variable and the value', () => {
    expect(writeRetryPolicy({ CARRENTAL_WRITE_RETRIES: '50', CARRENTAL_WRITE_RETRY_SECONDS: '3600' })).toMatchObject({ maxAttempts: 51, maxTotalMs: 3_600_000 });
    expect(() => writeRetryPolicy({ CARRENTAL_WRITE_RETRIES: '51' })).toThrow('CARRENTAL_WRITE_RETRIES must be a whole number 0..50, got "51"');
    expect(() => writeRetryPolicy({ CARRENTAL_WRITE_RETRY_SECONDS: '3601' })).toThrow('CARRENTAL_WRITE_RETRY_SECONDS must be a whole number 0..3600, got "3601"');
    expect(replayWindowMs({ CARRENTAL_REPLAY_WINDOW: '86400' })).toBe(86_400_000);
    expect(() => replayWindowMs({ CARRENTAL_REPLAY_WINDOW: '86401' })).toThrow('CARRENTAL_REPLAY_WINDOW must be a whole number 0..86400');
  });

  it('an empty variable means the default; text around or inside a number is refused', () => {
    expect(writeRetryPolicy({ CARRENTAL_WRITE_RETRIES: '', CARRENTAL_WRITE_RETRY_SECONDS: '' })).toMatchObject({
      maxAttempts: DEFAULT_WRITE_RETRIES + 1,
      maxTotalMs: DEFAULT_WRITE_RETRY_SECONDS * 1000,
    });
    expect(replayWindowMs({})).toBe(600_000);
    expect(replayWindowMs({ CARRENTAL_REPLAY_WINDOW: '0' })).toBe(0);
    for (const bad of ['x5', '5x', '1.5', '-0', 'five']) expect(() => replayWindowMs({ CARRENTAL_REPLAY_WINDOW: bad })).toThrow(/whole number/);
    expect(() => writeRetryPolicy({ CARRENTAL_WRITE_RETRIES: 'x' })).toThrow(CliError);
    expect(() => writeRetryPolicy({ CARRENTAL_WRITE_RETRIES: 'x' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('formatAge', () => {
  it('switches unit at 90 s, 90 min and 36 h, and never says a negative age', () => {
    const s = 1000;
    expect([89 * s, 89.4 * s, 90 * s].map(formatAge)).toEqual(['89 s', '89 s', '2 min']);
    expect([89 * 60 * s, 90 * 60 * s].map(formatAge)).toEqual(['89 min', '2 h']);
    expect([35 * 3600 * s, 36 * 3600 * s, 60 * 3600 * s].map(formatAge)).toEqual(['35 h', '2 d', '3 d']);
    expect(formatAge(-5 * s)).toBe('0 s');
  });
});

describe('parseWriteKey', () => {
  it('passes a valid key and no key through, and refuses a short one or one with a space at an end', () => {
    expect(parseWriteKey(undefined)).toBeUndefined();
    expect(parseWriteKey('0123456789abcdef')).toBe('0123456789abcdef');
    for (const bad of ['0123456789abcde', ' 0123456789abcdef', '0123456789abcdef ']) {
      expect(() => parseWriteKey(bad)).toThrow('--idempotency-key must be 16 to 128 printable ASCII characters, without spaces at either end');
    }
  });
});
