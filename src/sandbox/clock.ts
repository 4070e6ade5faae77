// Time in the sandbox. Two kinds of time exist and are never mixed up:
// - instants (Date): the sandbox clock, invoice created_at (rendered as UTC);
// - car-local wall-clock strings `YYYY-MM-DDTHH:MM`, compared as "wall minutes" (the
//   string read as if it were UTC). Trip lengths are wall-clock differences, so a DST
//   switch inside a trip neither adds nor removes an hour (documented in docs/sandbox.md).

import { localNow as readZone } from '../input/dates.js';

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

// Car-local strings repeat endlessly (trip dates, blocks), so their parse is memoized.
const parsed = new Map<string, number | null>();

/** Wall minutes of a car-local string, or null when it is not a real `YYYY-MM-DDTHH:MM`. */
export function parseLocal(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const hit = parsed.get(value);
  if (hit !== undefined) return hit;
  const result = parseLocalUncached(value);
  if (parsed.size > 50_000) parsed.clear();
  parsed.set(value, result);
  return result;
}

function parseLocalUncached(value: string): number | null {
  const m = LOCAL_RE.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi);
  // Date.UTC rolls Feb 30 over into March; a rolled date is not the date that was written.
  if (new Date(ms).getUTCDate() !== d) return null;
  return ms / 60_000;
}

export function formatLocal(wallMinutes: number): string {
  return new Date(wallMinutes * 60_000).toISOString().slice(0, 16);
}

/**
 * Orders two stamps of one fixed-width shape (`YYYY-MM-DD[THH:MM]`): their text order is their
 * time order. Not localeCompare, whose first call loads ICU's collator (~6 ms of a one-shot command).
 */
export const compareStamps = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function addDaysToDate(date: string, days: number): string {
  const m = DATE_RE.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3] + days)).toISOString().slice(0, 10);
}

/** `YYYY-MM-DDTHH:MM` in UTC: the form of invoice created_at. */
export function utcStamp(instant: Date): string {
  return instant.toISOString().slice(0, 16);
}

// Intl formatting is slow and its result has minute resolution: one entry per zone.
const lastReading = new Map<string, { minute: number; value: string }>();

/**
 * The two zones of the fleet follow the US rule in force since 2007: daylight time from
 * 02:00 standard time on the second Sunday of March to 02:00 daylight time on the first
 * Sunday of November. Computing it directly spares the first Intl.DateTimeFormat of a
 * process (about 10 ms, paid by every embedded `--sandbox` command); test/sandbox/clock
 * holds it against Intl hour by hour.
 */
const US_ZONES: Record<string, { standard: number; daylight: number }> = {
  'America/Los_Angeles': { standard: -8, daylight: -7 },
  'America/New_York': { standard: -5, daylight: -4 },
};

const HOUR_MS = 3_600_000;

/** The day of month of the nth Sunday (1-based) of a UTC month. */
function nthSunday(year: number, month: number, n: number): number {
  const firstWeekday = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - firstWeekday) % 7) + 7 * (n - 1);
}

/** Minutes since the epoch of the wall clock of a US zone, or null where the rule does not apply. */
function usWallMinutes(ms: number, timeZone: string): number | null {
  const zone = US_ZONES[timeZone];
  if (!zone) return null;
  const year = new Date(ms).getUTCFullYear();
  if (year < 2007 || year > 9999) return null;
  const start = Date.UTC(year, 2, nthSunday(year, 2, 2), 2) - zone.standard * HOUR_MS;
  const end = Date.UTC(year, 10, nthSunday(year, 10, 1), 2) - zone.daylight * HOUR_MS;
  const offset = ms >= start && ms < end ? zone.daylight : zone.standard;
  return Math.floor((ms + offset * HOUR_MS) / 60_000);
}

/** The wall-clock reading of an instant in a time zone, as `YYYY-MM-DDTHH:MM`. */
export function localNow(instant: Date, timeZone: string): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  const last = lastReading.get(timeZone);
  if (last && last.minute === minute) return last.value;
  const wall = usWallMinutes(instant.getTime(), timeZone);
  if (wall !== null) {
    const value = formatLocal(wall);
    lastReading.set(timeZone, { minute, value });
    return value;
  }
  const value = intlLocalNow(instant, timeZone);
  lastReading.set(timeZone, { minute, value });
  return value;
}

/** Any other zone, through Intl (the CLI's own reading of a zone's wall clock). */
export function intlLocalNow(instant: Date, timeZone: string): string {
  return readZone(timeZone, instant);
}

export function localNowMinutes(instant: Date, timeZone: string): number {
  return parseLocal(localNow(instant, timeZone)) as number;
}

/**
 * The base clock of a sandbox: the injected one, else CARRENTAL_SANDBOX_NOW (an instant
 * where the clock starts, then advancing in real time), else real time.
 */
export function baseClock(now?: () => Date, env: NodeJS.ProcessEnv = process.env): () => Date {
  if (now) return now;
  const start = env.CARRENTAL_SANDBOX_NOW;
  if (start) {
    const startMs = Date.parse(start);
    if (Number.isNaN(startMs)) throw new Error(`CARRENTAL_SANDBOX_NOW is not an ISO instant: ${start}`);
    const origin = Date.now();
    return () => new Date(startMs + (Date.now() - origin));
  }
  return () => new Date();
}
