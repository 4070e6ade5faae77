import { describe, expect, it } from 'vitest';
import { daysUntil, parseDateRange, parseLocalDateTime, zoneOf } from '../../src/input/dates.js';
import { formatLocal, formatUtc } from '../../src/render/dates.js';
import { usageError } from '../helpers/failure.js';

const usage = usageError;

describe('formatLocal', () => {
  it('labels car-local times with the zone of the city, never converting them', () => {
    expect(formatLocal('2026-12-01T10:00', 'la')).toBe('2026-12-01 10:00 America/Los_Angeles');
    expect(formatLocal('2026-12-01T10:00', 'miami')).toBe('2026-12-01 10:00 America/New_York');
  });
  it('says car-local when the city is unknown', () => {
    expect(formatLocal('2026-12-01T10:00', undefined)).toBe('2026-12-01 10:00 (car-local)');
    expect(formatLocal('2026-12-01T10:00', 'paris')).toBe('2026-12-01 10:00 (car-local)');
    expect(formatLocal('2026-12-01T10:00', null)).toBe('2026-12-01 10:00 (car-local)');
    expect(zoneOf(undefined)).toBeUndefined();
    expect(zoneOf('')).toBeUndefined();
    expect(zoneOf('toString')).toBeUndefined();
  });
  it('is empty for a missing value', () => {
    expect(formatLocal(null, 'la')).toBe('');
  });
  it('knows the two cities', () => {
    expect(zoneOf('la')).toBe('America/Los_Angeles');
    expect(zoneOf(null)).toBeUndefined();
  });
});

describe('formatUtc', () => {
  it('labels invoice created_at as UTC', () => {
    expect(formatUtc('2026-12-01T18:30')).toBe('2026-12-01 18:30 UTC');
    expect(formatUtc(undefined)).toBe('');
  });
});

describe('parseLocalDateTime', () => {
  it('accepts T or a space and returns the API form', () => {
    expect(parseLocalDateTime('2026-12-01T10:00', '--from')).toBe('2026-12-01T10:00');
    expect(parseLocalDateTime('2026-12-01 10:00', '--from')).toBe('2026-12-01T10:00');
    expect(parseLocalDateTime('  2028-02-29 23:59 ', '--to')).toBe('2028-02-29T23:59');
  });
  it('accepts every month, January and December included, and the last day of each', () => {
    expect(parseLocalDateTime('2027-01-01 00:00', '--from')).toBe('2027-01-01T00:00');
    expect(parseLocalDateTime('2027-01-31 07:00', '--from')).toBe('2027-01-31T07:00');
    expect(parseLocalDateTime('2027-12-31 22:00', '--to')).toBe('2027-12-31T22:00');
    expect(parseLocalDateTime('2027-04-30 10:00', '--to')).toBe('2027-04-30T10:00');
  });
  it.each(['x2026-12-01T10:00', '2026-12-01T10:00x', 'on 2026-12-01 10:00'])('refuses junk around a date: %j', (text) => {
    expect(usage(() => parseLocalDateTime(text, '--from')).message).toContain('--from must be a car-local date');
  });
  it.each(['2026-12-01', '2026-12-01T10', '01/12/2026 10:00', '2026-12-01T10:00:00', '2026-12-01T10:00Z', 'tomorrow', ''])(
    'refuses the malformed %j naming the flag',
    (text) => {
      expect(usage(() => parseLocalDateTime(text, '--from')).message).toContain('--from must be a car-local date and time YYYY-MM-DDTHH:MM');
    },
  );
  it.each(['2026-02-30T10:00', '2027-02-29T10:00', '2026-13-01T10:00', '2026-00-10T10:00', '2026-12-00T10:00', '2026-04-31T10:00', '2026-12-01T24:00', '2026-12-01T10:60'])(
    'refuses the impossible %s',
    (text) => {
      expect(usage(() => parseLocalDateTime(text, '--to')).message).toContain('--to is not a real date and time');
    },
  );
});

describe('parseDateRange', () => {
  it('is optional unless required', () => {
    expect(parseDateRange(undefined, undefined, { required: false })).toBeUndefined();
    expect(usage(() => parseDateRange(undefined, undefined, { required: true })).message).toContain('--from and --to are required');
  });
  it('wants both or neither', () => {
    expect(usage(() => parseDateRange('2026-12-01T10:00', undefined, { required: false })).message).toContain('go together');
    expect(usage(() => parseDateRange(undefined, '2026-12-01T10:00', { required: false })).message).toContain('go together');
  });
  it('names the flag whose date is malformed', () => {
    expect(usage(() => parseDateRange('2026-12-03T10:00', '2026-12-0x 10:00', { required: true })).message).toMatch(/^--to must be/);
    expect(usage(() => parseDateRange('nope', '2026-12-04 10:00', { required: true })).message).toMatch(/^--from must be/);
  });
  it('wants to after from', () => {
    expect(usage(() => parseDateRange('2026-12-03T10:00', '2026-12-03T10:00', { required: true })).message).toContain('must be after --from');
    expect(usage(() => parseDateRange('2026-12-03T10:00', '2026-12-01 10:00', { required: true })).message).toContain('must be after --from');
  });
  it('returns the normalised pair', () => {
    expect(parseDateRange('2026-12-01 10:00', '2026-12-04 09:30', { required: true })).toEqual({ from: '2026-12-01T10:00', to: '2026-12-04T09:30' });
  });
});

describe('daysUntil', () => {
  it('counts UTC calendar days', () => {
    const now = new Date('2026-11-01T23:00:00Z');
    expect(daysUntil('2026-11-01', now)).toBe(0);
    expect(daysUntil('2026-12-01', now)).toBe(30);
    expect(daysUntil('2026-10-31', now)).toBe(-1);
  });
});
