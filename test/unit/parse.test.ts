import { describe, expect, it } from 'vitest';
import { checkKeyShape } from '../../src/commands/auth-login.js';
import { buildCarsQuery, pageConcurrency } from '../../src/commands/cars.js';
import { parseAlias, parseIdempotencyKey, parseIntOption, parseSeconds, parseUuid } from '../../src/input/parse.js';
import { buildQuoteRequest } from '../../src/commands/quote.js';
import { checkSettingKey, checkSettingValue } from '../../src/store/config.js';
import { usageError } from '../helpers/failure.js';

const usageMessage = (fn: () => unknown) => usageError(fn).message;

describe('parseIntOption', () => {
  it('parses whole numbers within bounds', () => {
    expect(parseIntOption(undefined, '--limit')).toBeUndefined();
    expect(parseIntOption('50', '--limit', { min: 1, max: 200 })).toBe(50);
    expect(parseIntOption('0', '--offset', { min: 0 })).toBe(0);
  });
  it('names the flag and the bounds', () => {
    expect(usageMessage(() => parseIntOption('abc', '--limit'))).toBe('--limit must be a whole number, got "abc"');
    expect(usageMessage(() => parseIntOption('1.5', '--limit'))).toContain('whole number');
    expect(usageMessage(() => parseIntOption('0', '--limit', { min: 1, max: 200 }))).toBe('--limit must be 1..200, got 0');
    expect(usageMessage(() => parseIntOption('201', '--limit', { min: 1, max: 200 }))).toBe('--limit must be 1..200, got 201');
    expect(usageMessage(() => parseIntOption('-1', '--offset', { min: 0 }))).toBe('--offset must be at least 0, got -1');
  });
  it('stops at 2^53 - 1, the largest integer sent exactly, whatever the range says', () => {
    expect(parseIntOption('9007199254740991', '--offset', { min: 0 })).toBe(9007199254740991);
    expect(usageMessage(() => parseIntOption('9007199254740992', '--offset', { min: 0 }))).toBe('--offset must be at most 9007199254740991, got 9007199254740992');
    expect(usageMessage(() => parseIntOption('100000000000000000000000', '--offset', { min: 0 }))).toBe('--offset must be at most 9007199254740991, got 100000000000000000000000');
    expect(usageMessage(() => parseIntOption('-9007199254740992', '--seed'))).toBe('--seed must be at least -9007199254740991, got -9007199254740992');
    expect(usageMessage(() => parseIntOption('1e23', '--offset', { min: 0 }))).toBe('--offset must be a whole number, got "1e23"');
  });
  it('does not echo control characters the user typed', () => {
    expect(usageMessage(() => parseIntOption('5\u001b[2J', '--limit'))).toBe('--limit must be a whole number, got "5"');
  });
});

describe('other parsers', () => {
  it('seconds, uuids, aliases, idempotency keys', () => {
    expect(parseSeconds('2.5', '--interval')).toBe(2.5);
    expect(usageMessage(() => parseSeconds('x', '--interval', 5))).toContain('at least 5');
    // a timer overflows past 24.8 days and would fire at once, in a loop
    expect(parseSeconds('604800', '--interval')).toBe(604800);
    expect(usageMessage(() => parseSeconds('604801', '--interval'))).toBe('--interval must be a number of seconds (at most 604800), got "604801"');
    expect(usageMessage(() => parseSeconds('1e12', '--watch-timeout', 1))).toContain('at most 604800');
    expect(parseUuid('0B0E3F7E-4C1A-4D2B-9A55-2F1F6C1D9E10', 'uuid')).toBe('0b0e3f7e-4c1a-4d2b-9a55-2f1f6c1d9e10');
    expect(usageMessage(() => parseUuid('nope', 'the reservation uuid'))).toContain('must be a UUID');
    expect(parseAlias('tesla-model-3-la-001')).toBe('tesla-model-3-la-001');
    expect(usageMessage(() => parseAlias('a/b'))).toContain('is not a car alias');
    expect(usageMessage(() => parseAlias(''))).toContain('required');
    expect(usageMessage(() => parseIdempotencyKey('short'))).toContain('16 to 128');
  });
});

describe('buildCarsQuery: every filter, validated before any request', () => {
  it('maps each flag to its query parameter', () => {
    expect(
      buildCarsQuery({
        city: 'miami',
        from: '2026-12-01 10:00',
        to: '2026-12-04T10:00',
        bodyType: 'suv',
        makeId: '3',
        modelId: '0',
        sort: 'price_desc',
        limit: '20',
        offset: '40',
      }),
    ).toEqual({
      city: 'miami',
      date_from: '2026-12-01T10:00',
      date_to: '2026-12-04T10:00',
      body_type: 'suv',
      make_id: 3,
      model_id: 0,
      order_by: 'price_desc',
      limit: 20,
      offset: 40,
    });
  });
  it('uses the profile city when no --city, and 200 per page with --all', () => {
    expect(buildCarsQuery({}, 'la').city).toBe('la');
    expect(buildCarsQuery({ all: true }).limit).toBe(200);
    expect(buildCarsQuery({ all: true, limit: '10' }).limit).toBe(10);
  });
  it.each([
    [{ limit: '0' }, '--limit must be 1..200'],
    [{ limit: 'ten' }, '--limit must be a whole number'],
    [{ offset: '-5' }, '--offset must be at least 0'],
    [{ makeId: '-1' }, '--make-id must be at least 0'],
    [{ modelId: 'x' }, '--model-id must be a whole number'],
    [{ from: '2026-12-01T10:00' }, '--from needs --to or --days'],
    [{ from: '12/01/2026', to: '2026-12-02T10:00' }, '--from must be a car-local date'],
    [{ from: '2026-12-02T10:00', to: '2026-12-01T10:00' }, 'must be after --from'],
  ])('%j -> %s', (input, message) => {
    expect(usageMessage(() => buildCarsQuery(input))).toContain(message);
  });
  it('page concurrency is 1 (the spec\'s walk) unless --parallel or CARRENTAL_PAGE_CONCURRENCY asks for more', () => {
    expect(pageConcurrency(undefined, {})).toBe(1);
    expect(pageConcurrency(undefined, { CARRENTAL_PAGE_CONCURRENCY: '3' })).toBe(3);
    expect(pageConcurrency(undefined, { CARRENTAL_PAGE_CONCURRENCY: '64' })).toBe(4);
    expect(pageConcurrency(undefined, { CARRENTAL_PAGE_CONCURRENCY: 'x' })).toBe(1);
    expect(pageConcurrency('4', { CARRENTAL_PAGE_CONCURRENCY: '1' })).toBe(4);
    expect(usageMessage(() => pageConcurrency('5', {}))).toContain('--parallel must be 1..4, got 5');
    expect(usageMessage(() => pageConcurrency('0', {}))).toContain('--parallel must be 1..4, got 0');
  });
});

describe('buildQuoteRequest: every QuoteRequest option', () => {
  const base = { alias: 'car-1', from: '2026-12-01 10:00', to: '2026-12-04 10:00' };
  it('sends only the dates when no option is given (server defaults apply)', () => {
    expect(buildQuoteRequest(base)).toEqual({ car_alias: 'car-1', date_checkin: '2026-12-01T10:00', date_checkout: '2026-12-04T10:00' });
  });
  it('maps every option; a delivery address means delivery', () => {
    expect(
      buildQuoteRequest({
        ...base,
        protection: 'standard',
        mileage: 'unlimited',
        deliveryAddress: ' 1 Main St, Los Angeles ',
        extra: ['child_seat', 'gps', 'child_seat'],
        promo: 'WELCOME10',
      }),
    ).toEqual({
      car_alias: 'car-1',
      date_checkin: '2026-12-01T10:00',
      date_checkout: '2026-12-04T10:00',
      options: { protection_plan: 'standard', mileage_type: 'unlimited', delivery_type: 'delivery', delivery_address: '1 Main St, Los Angeles' },
      extras: ['child_seat', 'gps'],
      promo_code: 'WELCOME10',
    });
  });
  it.each([
    [{ from: undefined, to: undefined }, '--from and --to (or --days) are required'],
    [{ deliveryAddress: '  ' }, '--delivery-address must not be empty'],
    [{ extra: [''] }, '--extra needs an item type'],
    [{ promo: '' }, '--promo must not be empty'],
    [{ alias: 'bad alias' }, 'is not a car alias'],
  ])('%j -> %s', (patch, message) => {
    expect(usageMessage(() => buildQuoteRequest({ ...base, ...patch }))).toContain(message);
  });
});

describe('settings and keys', () => {
  it('refuses the key as a setting', () => {
    expect(usageMessage(() => checkSettingKey('api_key'))).toBe('the API key is never set on the command line');
    expect(usageMessage(() => checkSettingKey('colour'))).toContain('unknown setting "colour"');
    expect(checkSettingKey('base_url')).toBe('base_url');
  });
  it('validates values before storing them', () => {
    expect(checkSettingValue('base_url', 'https://api.example.com/v1/')).toBe('https://api.example.com/v1');
    expect(checkSettingValue('base_url', 'sandbox')).toBe('sandbox');
    expect(usageMessage(() => checkSettingValue('base_url', 'https://api.example.com'))).toContain('must end with /v1');
    expect(usageMessage(() => checkSettingValue('base_url', 'ftp://x/v1'))).toContain('http or https');
    expect(usageMessage(() => checkSettingValue('base_url', 'https://u:p@x/v1'))).toContain('must not contain credentials');
    expect(usageMessage(() => checkSettingValue('app_url', 'not a url'))).toContain('must be an http(s) URL');
    expect(usageMessage(() => checkSettingValue('city', 'paris'))).toContain('la or miami');
  });
  it('checks the key shape without echoing the key', () => {
    expect(checkKeyShape('svc_0123456789abcdef')).toBe('svc_0123456789abcdef');
    const msg = usageMessage(() => checkKeyShape('sk_live_0123456789'));
    expect(msg).toContain('starts with "svc_"');
    expect(msg).not.toContain('sk_live_0123456789');
    expect(usageMessage(() => checkKeyShape('svc_abc def'))).not.toContain('abc def');
    expect(usageMessage(() => checkKeyShape(''))).toBe('no API key given');
  });
});
