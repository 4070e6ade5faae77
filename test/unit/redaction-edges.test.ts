// Edges of redaction, sanitising, safe JSON text and date ranges that a one-character
// change to the code slipped past (mutation testing, docs/mutation-testing.md "Mutation testing").
import { describe, expect, it } from 'vitest';
import { holdsSecret, maskSecrets, redactHeader, scrubSecrets } from '../../src/text/redact.js';
import { isRelativeDate, parseDateRange, resolveDateInput } from '../../src/input/dates.js';
import { safeJsonText, scrubValue } from '../../src/text/json-text.js';
import { clean, cleanText } from '../../src/text/sanitize.js';

const ESC = '\u001b';
const SECRET = 'tok3n-Secret-99887766';

describe('redactHeader', () => {
  it('masks only the credential headers by their exact names', () => {
    expect(redactHeader('x-authorization', 'plain-value-123456')).toBe('plain-value-123456');
    expect(redactHeader('authorization-hint', 'plain-value-123456')).toBe('plain-value-123456');
    expect(redactHeader('x-cookie', 'plain-value-123456')).toBe('plain-value-123456');
    expect(redactHeader('set-cookie2', 'plain-value-123456')).toBe('plain-value-123456');
    expect(redactHeader('Proxy-Authorization', 'Basic dXNlcjpwYXNzd29yZA==')).toBe('Basic …ZA==');
  });

  it('keeps the scheme with all its spacing and masks the whole credential after it', () => {
    expect(redactHeader('authorization', 'Bearer  svc_abcdefgh1234')).toBe('Bearer  svc_…1234');
  });
});

describe('secrets inside escape sequences', () => {
  it.each([
    ['a 7-bit CSI with several parameters', `${ESC}[38;5;196m`],
    ['a CSI with an intermediate byte', `${ESC}[2 q`],
    ['an 8-bit CSI with several parameters', '\u009b38;5;196m'],
    ['an 8-bit CSI with an intermediate byte', '\u009b2 q'],
    ['an OSC title ended by BEL', `${ESC}]0;a window title\u0007`],
    ['an OSC title ended by ST', `${ESC}]2;title${ESC}\\`],
    ['a two-character escape', `${ESC}M`],
  ])('finds the secret split by %s', (_what, seq) => {
    const text = `got ${SECRET.slice(0, 6)}${seq}${SECRET.slice(6)} back`;
    expect(holdsSecret(text, SECRET)).toBe(true);
    expect(scrubSecrets(text, [SECRET])).toBe('got …7766 back');
  });

  it('masks every occurrence, not the first one only', () => {
    // a secret no other test uses: its pattern is built (and cached) here
    const once = 'only-here-Secret-4321';
    expect(maskSecrets(`${once} and ${once}`, [once])).toBe('…4321 and …4321');
  });

  it('holdsSecret takes a secret of exactly 8 characters and ignores one of 7', () => {
    expect(holdsSecret('x abcdefgh y', 'abcdefgh')).toBe(true);
    expect(holdsSecret('x abcdefg y', 'abcdefg')).toBe(false);
  });
});

describe('sanitize', () => {
  it('removes a two-character escape whole, in a cell and in prose', () => {
    expect(clean(`a${ESC}Mb`)).toBe('ab');
    expect(cleanText(`a${ESC}Mb`)).toBe('ab');
  });

  it('cleanText drops bidi controls and escape sequences but keeps the text between them', () => {
    expect(cleanText(`a\u202eb\u2066c${ESC}[1md`)).toBe('abcd');
  });
});

describe('safeJsonText and scrubValue', () => {
  it('scrubs secrets written with JSON escapes inside arrays, nested objects and object keys', () => {
    const escaped = SECRET.replace('-', '\\u002d');
    const text = `{"list":[1,"${escaped}",null,true],"deep":{"${escaped}":{"n":2}}}`;
    const out = safeJsonText(text, ['other-secret-0000', SECRET]);
    expect(out).not.toContain(SECRET);
    expect(JSON.parse(out)).toEqual({ list: [1, '…7766', null, true], deep: { '…7766': { n: 2 } } });
  });

  it('finds a secret written with escapes in any element of an array, not only when every element holds it', () => {
    const escaped = SECRET.replace('-', '\\u002d');
    const out = safeJsonText(`{"list":[1,"x","${escaped}"]}`, [SECRET]);
    expect(JSON.parse(out)).toEqual({ list: [1, 'x', '…7766'] });
  });

  it('leaves numbers, booleans and null as they are when scrubbing a value', () => {
    expect(scrubValue({ a: [1, true, null, 'x'], b: false }, [SECRET])).toEqual({ a: [1, true, null, 'x'], b: false });
    expect(scrubValue(SECRET, [SECRET])).toBe('…7766');
  });

  it('with an active secret, also masks other key-shaped tokens', () => {
    expect(safeJsonText('{"a":"svc_other1234"}', [SECRET])).toBe('{"a":"svc_…1234"}');
  });

  it('with no usable secret (none, empty, shorter than 8), the text stays byte for byte, key-shaped tokens included', () => {
    const text = '{"a": "svc_other1234", "b": "short"}';
    expect(safeJsonText(text)).toBe(text);
    expect(safeJsonText(text, [undefined, ''])).toBe(text);
    expect(safeJsonText(text, ['short'])).toBe(text);
  });

  it('a secret of exactly 8 characters is masked, one of 7 is not', () => {
    expect(safeJsonText('{"a":"abcdefgh"}', ['abcdefgh'])).toBe('{"a":"…efgh"}');
    expect(safeJsonText('{"a":"abcdefg"}', ['abcdefg'])).toBe('{"a":"abcdefg"}');
  });
});

describe('dates', () => {
  it('names both ends, with a space for the T, when --to is not after --from', () => {
    expect(() => parseDateRange('2026-12-04T10:00', '2026-12-01T09:30', { required: true })).toThrow('--to (2026-12-01 09:30) must be after --from (2026-12-04 10:00)');
  });

  it('an impossible day of the right shape says so; text of no known shape gets the forms it may take', () => {
    const now = new Date('2026-11-20T18:00:00Z');
    expect(() => resolveDateInput('2026-02-30T10:00', '--from', { now })).toThrow(/not a real date/);
    expect(() => resolveDateInput('next friday', '--from', { now })).toThrow(
      '--from must be a car-local date and time (YYYY-MM-DD HH:MM, 2026-12-01, tomorrow 3pm, fri 10:00, +3d), got "next friday"',
    );
  });

  it('takes relative days of up to three digits', () => {
    expect(isRelativeDate('+10d')).toBe(true);
    expect(isRelativeDate('+365d')).toBe(true);
    expect(isRelativeDate('+1000d')).toBe(false);
  });
});
