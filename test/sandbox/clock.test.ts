// The sandbox computes the wall clock of its two zones from the US daylight-saving rule
// instead of Intl (cheaper to start); it must agree with Intl at every instant.
import { describe, expect, it } from 'vitest';
import { CITY_TIME_ZONES } from '../../src/api/enums.js';
import { intlLocalNow, localNow } from '../../src/sandbox/clock.js';

describe('localNow of the fleet zones', () => {
  it('agrees with Intl every hour from 2024 to 2031, and every minute of the hours around each transition', () => {
    const HOUR = 3_600_000;
    for (const zone of Object.values(CITY_TIME_ZONES)) {
      const mismatches: string[] = [];
      /** Intl's reading of the instant, held against localNow's; the offset (minutes) it shows. */
      const check = (ms: number): number => {
        const d = new Date(ms);
        const intl = intlLocalNow(d, zone);
        if (localNow(d, zone) !== intl) mismatches.push(d.toISOString());
        return (Date.parse(`${intl}Z`) - ms) / 60_000;
      };
      let transitions = 0;
      let previous = check(Date.UTC(2024, 0, 1));
      for (let ms = Date.UTC(2024, 0, 1) + HOUR; ms < Date.UTC(2031, 0, 1); ms += HOUR) {
        const offset = check(ms);
        if (offset === previous) continue;
        // the offset changed within the last hour: every minute of the three hours around it
        transitions++;
        for (let m = ms - 2 * HOUR; m < ms + HOUR; m += 60_000) check(m);
        previous = offset;
      }
      expect(mismatches, zone).toEqual([]);
      // two a year for seven years: the loop saw every change of the offset
      expect(transitions, zone).toBe(14);
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
