// The pure parts of the contract check: which numbers are money, the raw-JSON view of
// them, how a schema issue is filed under a rule, Retry-After, and XML escaping.
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import * as S from '../../src/api/schemas.js';
import { checkPayload, checkRetryAfter, isMoneyPath, numberLiterals } from '../../src/contract/check.js';
import { xmlEscape } from '../../src/contract/junit.js';

const answer = (text: string) => ({ status: 200, headers: {}, text, body: JSON.parse(text) as unknown });

describe('money and number literals', () => {
  it('money: *_cents, *_usd, the quote fields without a suffix, prices.protection values; not counts', () => {
    expect(isMoneyPath(['car', 'prices', 'protection', 'standard'])).toBe(true);
    expect(isMoneyPath(['final_total'])).toBe(true);
    expect(isMoneyPath(['insurance_coverage_usd'])).toBe(true);
    expect(isMoneyPath(['refunds', 0, 'amount_cents'])).toBe(true);
    expect(isMoneyPath(['seats'])).toBe(false);
    expect(isMoneyPath(['cars', 0])).toBe(false);
  });

  it('reads numbers as written, with their paths', () => {
    expect(numberLiterals('{"a":[1, 2.50],"b":{"c":-3e2}}')).toEqual([
      { path: ['a', 0], literal: '1' },
      { path: ['a', 1], literal: '2.50' },
      { path: ['b', 'c'], literal: '-3e2' },
    ]);
  });
});

describe('checkPayload', () => {
  it('a decimal written for cents is found even when JSON reads it as an integer; a decimal elsewhere is not money', () => {
    const { findings } = checkPayload(answer('{"data":{"additional_days":2.0,"total_amount":100.00}}'), { operation: 'extensionPrice', schema: S.ExtensionPrice });
    expect(findings.map((f) => [f.rule, f.path, f.saw])).toEqual([['integer-cents', 'data.total_amount', '100.00']]);
  });

  it('files schema issues under their rules: missing is required, a listed value is closed-set, a car-local with Z, a UTC created_at with seconds', () => {
    const invoice = { id: '6f1c1d7e-1111-4222-8333-444455556666', created_at: '2026-12-01T10:00:00', currency: 'EUR', type: 'RENT', status: 'PAID', billing_status: 'PAID', amount: 100, items: [] };
    const inv = checkPayload(answer(JSON.stringify({ data: invoice })), { operation: 'getInvoice', schema: S.Invoice });
    expect(inv.findings.map((f) => [f.rule, f.path])).toEqual([
      ['utc-date', 'data.created_at'],
      ['closed-set', 'data.currency'],
      ['required', 'data.description'],
    ]);
    const trip = checkPayload(answer('{"data":{"date_checkin":"2026-12-01T18:00Z"}}'), { operation: 'getReservation', schema: S.Trip });
    expect(trip.findings.map((f) => [f.rule, f.path, f.saw])).toEqual([['car-local-date', 'data.date_checkin', '"2026-12-01T18:00Z"']]);
  });

  it('the envelope: an enveloped invoice list, a bare payload, a body that is not JSON', () => {
    const wrapped = checkPayload(answer('{"data":[]}'), { operation: 'listReservationInvoices', schema: S.InvoiceList, envelope: false });
    expect(wrapped.findings.map((f) => f.rule)).toEqual(['envelope']);
    const bare = checkPayload(answer('{"car_alias":"x"}'), { operation: 'getCar', schema: S.Car });
    expect(bare.findings.map((f) => [f.rule, f.saw])).toEqual([['envelope', '{"car_alias":"x"}: no {"data": ...} envelope']]);
    const html = checkPayload({ status: 200, headers: {}, text: '<html>', body: undefined }, { operation: 'getCar', schema: S.Car });
    expect(html.findings.map((f) => f.rule)).toEqual(['envelope']);
  });
});

describe('checkRetryAfter', () => {
  it('429 and 503 need whole seconds, at least 1; other statuses need nothing', () => {
    expect(checkRetryAfter({ status: 429, headers: { 'retry-after': '2' } }, 'x')).toBeUndefined();
    expect(checkRetryAfter({ status: 503, headers: {} }, 'x')?.saw).toBe('missing');
    expect(checkRetryAfter({ status: 503, headers: { 'retry-after': '0' } }, 'x')?.saw).toBe('"0"');
    expect(checkRetryAfter({ status: 429, headers: { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' } }, 'x')?.rule).toBe('retry-after');
    expect(checkRetryAfter({ status: 500, headers: {} }, 'x')).toBeUndefined();
  });
});

describe('xmlEscape', () => {
  it('escapes markup and drops what XML 1.0 forbids (control characters, lone surrogates)', () => {
    const text = 'a<b>&"c\'\u0001\u001b[31m\ud800z';
    const escaped = xmlEscape(text);
    expect(escaped).toBe('a&lt;b&gt;&amp;&quot;c&apos;[31mz');
    expect(XMLValidator.validate(`<x a="${escaped}">${escaped}</x>`)).toBe(true);
  });
});
