import { describe, expect, it } from 'vitest';
import { addLocalDays, DEFAULT_TIME, isPastLocal, isRelativeDate, localNow, parseDays, resolveDateInput } from '../../src/input/dates.js';

const LA = 'America/Los_Angeles';
const NY = 'America/New_York';
// 2026-12-31 06:30 UTC: still Dec 30 22:30 in LA, Dec 31 01:30 in New York.
const NOW = new Date('2026-12-31T06:30:00Z');

describe('relative dates', () => {
  it('reads the wall clock of the car zone, not of the machine', () => {
    expect(localNow(LA, NOW)).toBe('2026-12-30T22:30');
    expect(localNow(NY, NOW)).toBe('2026-12-31T01:30');
  });

  it('tomorrow and +Nd count calendar days in the car zone, across month and year ends', () => {
    expect(resolveDateInput('tomorrow 10:00', '--from', { now: NOW, zone: LA })).toBe('2026-12-31T10:00');
    expect(resolveDateInput('tomorrow 10:00', '--from', { now: NOW, zone: NY })).toBe('2027-01-01T10:00');
    expect(resolveDateInput('+3d 9:05', '--to', { now: NOW, zone: NY })).toBe('2027-01-03T09:05');
    expect(resolveDateInput('+1w', '--to', { now: NOW, zone: LA })).toBe('2027-01-06T10:00');
    expect(resolveDateInput('Today 18:30', '--to', { now: NOW, zone: LA })).toBe('2026-12-30T18:30');
  });

  it('absolute forms pass through unchanged, and need no zone', () => {
    expect(resolveDateInput('2027-01-05 10:00', '--from', { now: NOW })).toBe('2027-01-05T10:00');
    expect(isRelativeDate('2027-01-05 10:00')).toBe(false);
    expect(isRelativeDate('+2d 10:00')).toBe(true);
    expect(isRelativeDate('  tomorrow 10:00 ')).toBe(true);
    expect(isRelativeDate('xtomorrow')).toBe(false);
    expect(isRelativeDate('tomorrow 10:00 please')).toBe(false);
    expect(resolveDateInput('  tomorrow 10:00  ', '--from', { now: NOW, zone: LA })).toBe('2026-12-31T10:00');
  });

  it('refuses nonsense and relative forms without a zone, naming the flag', () => {
    expect(() => resolveDateInput('next friday', '--from', { now: NOW, zone: LA })).toThrow(/--from must be a car-local date/);
    expect(() => resolveDateInput('tomorrow 25:00', '--from', { now: NOW, zone: LA })).toThrow(/no such time/);
    expect(() => resolveDateInput('tomorrow 24:00', '--from', { now: NOW, zone: LA })).toThrow(/no such time/);
    expect(() => resolveDateInput('tomorrow 10:60', '--from', { now: NOW, zone: LA })).toThrow(/no such time/);
    expect(resolveDateInput('tomorrow 23:59', '--from', { now: NOW, zone: LA })).toBe('2026-12-31T23:59');
    expect(() => resolveDateInput('tomorrow', '--from', { now: NOW })).toThrow(/give --city/);
  });

  it('a time as people write it: 3pm, 3:30 pm, 12am, 9:05; and a weekday, the next one (never today)', () => {
    // NOW is Wednesday 2026-12-30 in LA, Thursday 2026-12-31 in New York
    expect(resolveDateInput('tomorrow 3pm', '--from', { now: NOW, zone: LA })).toBe('2026-12-31T15:00');
    expect(resolveDateInput('tomorrow 3:30 PM', '--from', { now: NOW, zone: LA })).toBe('2026-12-31T15:30');
    expect(resolveDateInput('tomorrow 12am', '--from', { now: NOW, zone: LA })).toBe('2026-12-31T00:00');
    expect(resolveDateInput('tomorrow 12pm', '--from', { now: NOW, zone: LA })).toBe('2026-12-31T12:00');
    expect(resolveDateInput('fri 10:00', '--from', { now: NOW, zone: LA })).toBe('2027-01-01T10:00');
    expect(resolveDateInput('Friday', '--from', { now: NOW, zone: LA })).toBe('2027-01-01T10:00');
    expect(resolveDateInput('wed 9am', '--from', { now: NOW, zone: LA })).toBe('2027-01-06T09:00');
    expect(resolveDateInput('thu', '--from', { now: NOW, zone: NY })).toBe('2027-01-07T10:00');
    expect(resolveDateInput('+3d', '--from', { now: NOW, zone: LA })).toBe('2027-01-02T10:00');
    expect(isRelativeDate('fri 10:00')).toBe(true);
    expect(isRelativeDate('tomorrow 3pm')).toBe(true);
    for (const bad of ['tomorrow 13pm', 'tomorrow 0am', 'tomorrow 3:75pm']) expect(() => resolveDateInput(bad, '--from', { now: NOW, zone: LA })).toThrow(/no such time/);
    expect(() => resolveDateInput('fri noonish', '--from', { now: NOW, zone: LA })).toThrow(/must be a car-local date/);
  });

  it('a date alone is that day at 10:00 (DEFAULT_TIME), and needs no zone; a date with 3pm too', () => {
    expect(DEFAULT_TIME).toBe('10:00');
    expect(resolveDateInput('2026-12-01', '--from', { now: NOW })).toBe('2026-12-01T10:00');
    expect(resolveDateInput('2026-12-01 3pm', '--from', { now: NOW })).toBe('2026-12-01T15:00');
    expect(isRelativeDate('2026-12-01')).toBe(false);
    expect(() => resolveDateInput('2026-02-30', '--from', { now: NOW })).toThrow(/not a real date/);
  });

  it('adds days on the calendar, February and leap years included', () => {
    expect(addLocalDays('2028-02-28T10:00', 1)).toBe('2028-02-29T10:00');
    expect(addLocalDays('2027-02-28T10:00', 1)).toBe('2027-03-01T10:00');
    expect(addLocalDays('2027-01-31T07:00', -31)).toBe('2026-12-31T07:00');
  });

  it('--days takes 1..366 whole days', () => {
    expect(parseDays('3')).toBe(3);
    expect(parseDays(' 1 ')).toBe(1);
    expect(parseDays('366')).toBe(366);
    expect(parseDays('42')).toBe(42);
    for (const bad of ['0', '-1', '1.5', '367', 'x', '']) expect(() => parseDays(bad)).toThrow(/--days/);
  });

  it('a check-in earlier than now in the car zone is in the past', () => {
    expect(isPastLocal('2026-12-30T22:00', LA, NOW)).toBe(true);
    expect(isPastLocal('2026-12-30T23:00', LA, NOW)).toBe(false);
    expect(isPastLocal('2026-12-31T01:00', NY, NOW)).toBe(true);
    expect(isPastLocal('2026-12-31T01:30', NY, NOW)).toBe(false);
  });
});
