// The sandbox computes the wall clock of its two zones from the US daylight-saving rule
// instead of Intl (cheaper to start); it must agree with Intl at every instant.
import { describe, expect, it } from 'vitest';
import { CITY_TIME_ZONES } from '../../src/api/enums.js';
import { intlLocalNow, localNow } from '../../src/sandbox/clock.js';

describe('localNow of the fleet zones', () => {
  it('agrees with Intl every 15 minutes from 2024 to 2031, transitions included', () => {
    for (const zone of Object.values(CITY_TIME_ZONES)) {
      let mismatches = 0;
      for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2031, 0, 1); ms += 15 * 60_000) {
        const d = new Date(ms);
        if (localNow(d, zone) !== intlLocalNow(d, zone)) mismatches++;
      }
      expect(mismatches, zone).toBe(0);
    }
  });

  it('names the transition instants exactly', () => {
    // 2026-03-08 02:00 PST becomes 03:00 PDT at 10:00 UTC; 2026-11-01 02:00 EDT becomes 01:00 EST at 06:00 UTC
    expect(localNow(new Date('2026-03-08T09:59:00Z'), 'America/Los_Angeles')).toBe('2026-03-08T01:59');
    expect(localNow(new Date('2026-03-08T10:00:00Z'), 'America/Los_Angeles')).toBe('2026-03-08T03:00');
    expect(localNow(new Date('2026-11-01T05:59:00Z'), 'America/New_York')).toBe('2026-11-01T01:59');
    expect(localNow(new Date('2026-11-01T06:00:00Z'), 'America/New_York')).toBe('2026-11-01T01:00');
    // another zone goes through Intl
    expect(localNow(new Date('2026-07-01T12:00:00Z'), 'Europe/Paris')).toBe('2026-07-01T14:00');
  });
});
