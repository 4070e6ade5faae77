// Issue 35: the mask finds the key in every spelling a server may echo it in, in text
// (src/text/redact.ts), in bytes written whole (src/cmdkit/masked-io.ts) and in the JUnit
// report (src/contract/junit.ts), which XML would otherwise join where a control split it.
import { describe, expect, it } from 'vitest';
import { maskChunk } from '../../src/cmdkit/masked-io.js';
import { toJunit } from '../../src/contract/junit.js';
import type { ContractReport } from '../../src/contract/run.js';
import { holdsSecret, maskSecrets, scrubSecrets } from '../../src/text/redact.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const BODY = KEY.slice(4);
const split = (text: string, ch: string) => [...text].join(ch);

const SPELLINGS: Array<[string, string]> = [
  ['upper case', KEY.toUpperCase()],
  ['mixed case', 'SvC_0123456789ABCdef0123456789abcDEF'],
  ['without its prefix', BODY],
  ['without its prefix, upper case', BODY.toUpperCase()],
  ['zero-width space', split(KEY, '\u200b')],
  ['word joiner', split(KEY, '\u2060')],
  ['soft hyphen', split(KEY, '\u00ad')],
  ['ZWNJ', split(KEY, '\u200c')],
  ['ZWJ', split(KEY, '\u200d')],
  ['BOM', split(KEY, '\ufeff')],
  ['invisible separator', split(KEY, '\u2063')],
  ['Mongolian vowel separator', split(KEY, '\u180e')],
  ['combining grapheme joiner', split(KEY, '\u034f')],
  ['variation selector', split(KEY, '\ufe0f')],
  ['tag character', split(KEY, '\u{e0041}')],
  ['Hangul filler', split(KEY, '\u3164')],
  ['a mix, upper case, no prefix', `${BODY.slice(0, 5).toUpperCase()}\u200b\u00ad${BODY.slice(5, 20)}\u2060\ufeff${BODY.slice(20)}`],
];

describe('the key in another spelling', () => {
  it.each(SPELLINGS)('%s: found and masked in text', (_name, spelling) => {
    const text = `before ${spelling} after`;
    expect(holdsSecret(text, KEY)).toBe(true);
    const masked = maskSecrets(text, [KEY]);
    expect(masked).toMatch(/^before (svc_)?…cdef after$/);
    expect(scrubSecrets(text, [KEY])).toMatch(/^before (svc_)?…cdef after$/);
  });

  it.each(SPELLINGS)('%s: found and masked in bytes written whole (UTF-8)', (_name, spelling) => {
    const chunk = Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from(` ${spelling} `, 'utf8'), Buffer.from([0xfe])]);
    const out = Buffer.from(maskChunk(chunk, [KEY]) as Uint8Array);
    expect(out.subarray(0, 2)).toEqual(Buffer.from([0xff, 0x00]));
    expect(out.at(-1)).toBe(0xfe);
    expect(out.subarray(2, -1).toString('utf8')).toMatch(/^ (svc_)?…cdef $/);
  });

  it('the mask says whether the echo had the prefix', () => {
    expect(maskSecrets(`a ${KEY.toUpperCase()} b ${BODY} c`, [KEY])).toBe('a svc_…cdef b …cdef c');
  });

  it('leaves text that is not the key alone: a part of it, another key, ordinary words', () => {
    for (const text of [BODY.slice(0, -1), `${BODY.slice(0, 16)} ${BODY.slice(16)}`, 'svc_ffffeeeeddddccccbbbbaaaa99998888', 'ordinary words, in any case']) {
      expect(holdsSecret(text, KEY)).toBe(false);
      expect(maskSecrets(text, [KEY])).toBe(text);
    }
  });

  it('a short body is not looked for alone (it would mask ordinary words)', () => {
    expect(maskSecrets('x abcdefg y', ['svc_abcdefg'])).toBe('x abcdefg y');
    expect(maskSecrets('x SVC_ABCDEFG y', ['svc_abcdefg'])).toBe('x svc_…defg y');
  });
});

describe('the JUnit report', () => {
  const report = (text: string): ContractReport =>
    ({
      ok: false,
      violations: 1,
      operations: [
        { id: 'getProfile', request: 'GET /my/profile', status: 'checked', rules: ['type'], detail: '' },
        { id: 'listCards', request: 'GET /my/billing/cards', status: 'failed', rules: [], detail: `HTTP 400: ${text}` },
      ],
      findings: [{ operation: 'getProfile', rule: 'type', spec: 'spec words', path: 'data.name', saw: `"${text}"` }],
      problems: [`listCards (GET /my/billing/cards): HTTP 400: ${text}`, `another: ${text}`],
    }) as unknown as ContractReport;

  it.each([...SPELLINGS, ['controls XML drops', split(KEY, '\u0001')], ['line breaks', split(KEY, '\n')]])('%s: masked in every element and attribute', (_name, spelling) => {
    const xml = toJunit(report(`echo ${spelling} end`), { name: 'check', timestamp: new Date(0), secrets: [KEY] });
    expect(xml).toContain('…cdef end');
    const read = xml
      .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
      .replace(/[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]/gu, '')
      .toLowerCase();
    expect(read).not.toContain(BODY.slice(0, -4));
  });
});
