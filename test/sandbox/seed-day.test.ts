// The seeded world is placed relative to the sandbox clock's day (seedDay, fixtures.ts), so
// an example that works on one day works on every day, at every hour: checked here in
// process, on many more days and hours than the spawned runs of test/readme can afford.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import { addLocalDays, resolveDateInput } from '../../src/input/dates.js';
import { isAvailable } from '../../src/sandbox/availability.js';
import { parseLocal } from '../../src/sandbox/clock.js';
import { fleetOf } from '../../src/sandbox/context.js';
import { seedAnchor, seedDay, seedState } from '../../src/sandbox/fixtures.js';
import { extractExamples } from '../readme/extract.js';
import { PAGES } from '../readme/pages.js';
import { ROOT } from '../helpers/bin.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe('seedDay', () => {
  it('is the date in Los Angeles, never the UTC date ahead of it', () => {
    expect(seedDay(new Date('2026-11-28T03:30:00Z'))).toBe('2026-11-27'); // 19:30 the day before in LA
    expect(seedDay(new Date('2026-11-28T07:59:00Z'))).toBe('2026-11-27');
    expect(seedDay(new Date('2026-11-28T08:00:00Z'))).toBe('2026-11-28'); // midnight PST
    expect(seedDay(new Date('2027-06-16T06:59:00Z'))).toBe('2027-06-15'); // PDT
    expect(seedDay(new Date('2027-06-16T07:00:00Z'))).toBe('2027-06-16');
    expect(seedAnchor(new Date('2026-11-28T03:30:00Z')).toISOString()).toBe('2026-11-27T12:00:00.000Z');
  });

  it('gives one state for every instant of one day, and the next day the same world a day later', () => {
    const day = seedState(1, 60, new Date('2026-11-28T08:00:00Z'));
    for (const at of ['2026-11-28T12:00:00Z', '2026-11-28T23:59:00Z', '2026-11-29T07:59:00Z']) {
      expect(seedState(1, 60, new Date(at))).toEqual(day);
    }
    const next = seedState(1, 60, new Date('2026-11-29T08:00:00Z'));
    const shift = (s: string | null) => (s === null ? null : addLocalDays(s.length === 10 ? `${s}T00:00` : s, 1).slice(0, s.length));
    const blocks = (st: typeof day) => fleetOf(st).cars.map((c) => c.blocked);
    expect(blocks(next)).toEqual(blocks(day).map((bs) => bs.map((b) => ({ ...b, from: shift(b.from), to: shift(b.to) }))));
    const trips = (st: typeof day) => Object.values(st.reservations).map((r) => [r.car_id, r.date_checkin, r.date_checkout, r.status]);
    expect(trips(next)).toEqual(trips(day).map(([car, from, to, status]) => [car, shift(from as string), shift(to as string), status]));
  });
});

/** Every help example and console line of the pages that names a car (not `<alias>`) with dates. */
function datedExamples(): string[] {
  const help = (specs: CommandSpec[]): string[] => specs.flatMap((s) => [...(s.examples ?? []), ...help(s.subcommands ?? [])]);
  const pages = PAGES.flatMap((p) => extractExamples(readFileSync(join(ROOT, p), 'utf8')).map((e) => e.command));
  return [...help(COMMANDS), ...pages].filter((c) => /\s[a-z0-9-]+-\d{4}\s.*--from/.test(c) && !/#\s*exit\s+[1-9]/.test(c));
}

/** The car and the trip an example asks for, resolved as the CLI resolves them. */
function tripOf(example: string, now: Date, state: ReturnType<typeof seedState>) {
  const unquote = (s: string) => s.replace(/^"|"$/g, '');
  const alias = /\s([a-z0-9-]+-\d{4})\s/.exec(example)![1];
  const car = fleetOf(state).byAlias.get(alias);
  if (!car) throw new Error(`${example}: no car ${alias} in the sandbox`);
  const from = resolveDateInput(unquote(/--from ("[^"]+"|\S+)/.exec(example)![1]), '--from', { now, zone: car.timeZone });
  const to = /--to ("[^"]+"|\S+)/.exec(example);
  const days = /--days (\d+)/.exec(example);
  const checkout = to ? resolveDateInput(unquote(to[1]), '--to', { now, zone: car.timeZone }) : addLocalDays(from, Number(days![1]));
  return { car, from, checkout };
}

describe('the examples that name a car and dates', () => {
  const examples = datedExamples();

  it('are found (the quote --help example among them)', () => {
    expect(examples).toContain('carrental quote toyota-camry-1001 --from "tomorrow 10:00" --days 3');
    expect(examples.length).toBeGreaterThanOrEqual(8);
  });

  // every 9th day from today to 420 days ahead, each at 8 hours that move on by one every
  // day: every hour of the day, every weekday, both sides of each DST switch
  it('find their car free on a fresh sandbox at every hour of days over more than a year', () => {
    const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
    const failures: string[] = [];
    for (let day = 0; day <= 420; day += 9) {
      for (let hour = day % 3; hour < 24; hour += 3) {
        const now = new Date(today + day * DAY_MS + hour * HOUR_MS + 30 * 60_000);
        const state = seedState(1, 300, now);
        for (const example of examples) {
          const { car, from, checkout } = tripOf(example, now, state);
          if (!isAvailable(state, car, parseLocal(from) as number, parseLocal(checkout) as number)) failures.push(`${now.toISOString()}: ${example}`);
        }
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});
