import { describe, expect, it } from 'vitest';
import { holdsSecret, maskKey, redactHeader, scrubSecrets } from '../../src/text/redact.js';
import { maskKey as maskFromConfig } from '../../src/store/config.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';

describe('maskKey', () => {
  it('shows the prefix and the last four characters only', () => {
    expect(maskKey(KEY)).toBe('svc_…cdef');
    expect(maskKey('app_token_wxyz')).toBe('…wxyz');
    expect(maskKey(undefined)).toBe('');
    expect(maskFromConfig(KEY)).toBe('svc_…cdef');
  });
});

describe('redactHeader', () => {
  it('masks both credential headers and cookies, keeping the scheme', () => {
    expect(redactHeader('Authorization', `Bearer ${KEY}`)).toBe('Bearer svc_…cdef');
    expect(redactHeader('authorization', KEY)).toBe('svc_…cdef');
    expect(redactHeader('X-API-Key', KEY)).toBe('svc_…cdef');
    expect(redactHeader('set-cookie', 'session=abcdef1234')).toBe('…1234');
  });
  it('leaves other headers alone', () => {
    expect(redactHeader('content-type', 'application/json')).toBe('application/json');
    expect(redactHeader('idempotency-key', '7b0c2c9e-2a51-4f7b-8d5e-3b1f7a9c1d20')).toBe('7b0c2c9e-2a51-4f7b-8d5e-3b1f7a9c1d20');
  });
});

describe('scrubSecrets', () => {
  it('masks a known secret wherever it appears, and anything key-shaped', () => {
    const text = `{"echo":"${KEY}","other":"svc_ffffeeeeddddcccc"} plain ${KEY}`;
    const out = scrubSecrets(text, [KEY]);
    expect(out).not.toContain(KEY);
    expect(out).not.toContain('svc_ffffeeeeddddcccc');
    expect(out).toContain('svc_…cdef');
    expect(out).toContain('svc_…cccc');
  });
  it('masks a secret without the svc_ prefix when it is named', () => {
    expect(scrubSecrets('token=abcdefghijkl', ['abcdefghijkl'])).toBe('token=…ijkl');
  });
  it('scrubs a named secret of 8 characters or more, and leaves a shorter one (too common to be a key)', () => {
    expect(scrubSecrets('token=abcdefgh', ['abcdefgh'])).toBe('token=…efgh');
    expect(scrubSecrets('token=abcdefg', ['abcdefg'])).toBe('token=abcdefg');
    expect(scrubSecrets('x', [undefined, ''])).toBe('x');
  });
  it('masks key-shaped tokens from 4 characters after svc_, not shorter', () => {
    expect(scrubSecrets('a svc_abcd b')).toBe('a svc_…abcd b');
    expect(scrubSecrets('a svc_abc b')).toBe('a svc_abc b');
  });
  it('finds a secret with escape sequences, controls or bidi characters inside it', () => {
    const split = `${KEY.slice(0, 9)}\u001b[0m${KEY.slice(9, 20)}\u009b1m\u202e${KEY.slice(20)}`;
    expect(holdsSecret(`x ${split} y`, KEY)).toBe(true);
    expect(scrubSecrets(`x ${split} y`, [KEY])).toBe('x svc_…cdef y');
    expect(holdsSecret(KEY.slice(0, -1), KEY)).toBe(false);
    expect(holdsSecret('abcdefg', 'abcdefg')).toBe(false);
  });
  it('treats the secret as text, not as a pattern', () => {
    expect(scrubSecrets('a.b+c(d)e*f a-b+c(d)e*f', ['a.b+c(d)e*f'])).toBe('…)e*f a-b+c(d)e*f');
  });
  it('is idempotent', () => {
    const once = scrubSecrets(`x ${KEY}`, [KEY]);
    expect(scrubSecrets(once, [KEY])).toBe(once);
  });
});
