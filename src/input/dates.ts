// Dates a person types, read into the API's car-local form (wall-clock strings in the car's
// city zone, never converted). Showing one is src/render/dates.ts's.
import { CITY_TIME_ZONES, type City } from '../api/enums.js';
import { usageError } from '../errors.js';

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/;

export function zoneOf(city: string | null | undefined): string | undefined {
  // hasOwn, not `in`: "toString" is no city.
  return city && Object.hasOwn(CITY_TIME_ZONES, city) ? CITY_TIME_ZONES[city as City] : undefined;
}

function isRealDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

/**
 * Parses a command-line date: `YYYY-MM-DDTHH:MM` or with a space. Returns the API form.
 * Throws a usage error naming the flag when the text or the calendar date is wrong.
 */
export function parseLocalDateTime(input: string, flag: string): string {
  const m = LOCAL_RE.exec(input.trim());
  if (!m) throw usageError(`${flag} must be a car-local date and time YYYY-MM-DDTHH:MM, got "${input}"`);
  const [, ys, ms, ds, hs, mins] = m;
  const [y, mo, d, h, mi] = [ys, ms, ds, hs, mins].map(Number);
  if (!isRealDate(y, mo, d) || h > 23 || mi > 59) throw usageError(`${flag} is not a real date and time: "${input}"`);
  return `${ys}-${ms}-${ds}T${hs}:${mins}`;
}

/** Both or neither; `to` strictly after `from` (string order is time order for this form). */
export function parseDateRange(
  from: string | undefined,
  to: string | undefined,
  opts: { required: boolean },
): { from: string; to: string } | undefined {
  if (from === undefined && to === undefined) {
    if (opts.required) throw usageError('--from and --to are required (car-local YYYY-MM-DDTHH:MM)');
    return undefined;
  }
  if (from === undefined || to === undefined) throw usageError('--from and --to go together: give both or neither');
  const f = parseLocalDateTime(from, '--from');
  const t = parseLocalDateTime(to, '--to');
  if (t <= f) throw usageError(`--to (${t.replace('T', ' ')}) must be after --from (${f.replace('T', ' ')})`);
  return { from: f, to: t };
}

/** Days between today and a YYYY-MM-DD date, in UTC calendar days. */
export function daysUntil(date: string, now: Date): number {
  const [y, m, d] = date.split('-').map(Number);
  const target = Date.UTC(y, m - 1, d);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((target - today) / 86_400_000);
}

// ---------------------------------------------------------------------------------------
// Dates a person types: a day (`2026-12-01`, `today`, `tomorrow`, `+3d`, `+1w`, a weekday
// `fri`/`friday`) and an optional time (`10:00`, `9:30`, `3pm`, `3:30 pm`; without one,
// DEFAULT_TIME). Relative days are read against "now" in the car's zone and returned in
// the API's absolute form; the wall clock of that zone is read with Intl (no library:
// Node ships the zone data).

/** The time a day given without a clock time means: inside every city's opening hours. */
export const DEFAULT_TIME = '10:00';
/** @deprecated the same as DEFAULT_TIME (the name from when only relative days took it). */
export const DEFAULT_RELATIVE_TIME = DEFAULT_TIME;

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const WEEKDAY_RE = /^(sun|mon|tue|wed|thu|fri|sat)(?:day|sday|nesday|rsday|urday)?$/;
const REL_DAY_RE = /^(?:today|tomorrow|\+(\d{1,3})([dw]))$/;
const ISO_DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day and the time of a typed date: split at the first space, or at a `T` after the day's digits. */
function splitDayTime(text: string): { day: string; time?: string } {
  const m = /^(\S+?)(?:(?<=\d)T|\s+)(\S.*)$/.exec(text);
  return m ? { day: m[1].toLowerCase(), time: m[2].trim() } : { day: text.toLowerCase() };
}

function isRelativeDay(day: string): boolean {
  return REL_DAY_RE.test(day) || WEEKDAY_RE.test(day);
}

/** True when the text is a relative form (it needs a zone to resolve). */
export function isRelativeDate(input: string): boolean {
  const text = input.trim();
  if (LOCAL_RE.test(text)) return false;
  const { day, time } = splitDayTime(text);
  return isRelativeDay(day) && (time === undefined || TIME_SHAPE_RE.test(time));
}

/** The shapes parseTime reads (whether the hour exists is its business). */
const TIME_SHAPE_RE = /^(?:\d{1,2}:\d{2}|\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?)$/i;

/** `10:00`, `9:30`, `3pm`, `3:30 pm`, `12am` -> `HH:MM`; undefined when it is no time; throws for an impossible one. */
function parseTime(text: string, flag: string, input: string): string | undefined {
  const noon = /^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?$/i.exec(text);
  const clock = /^(\d{1,2}):(\d{2})$/.exec(text);
  if (!noon && !clock) return undefined;
  let h: number;
  let mi: number;
  if (noon) {
    h = Number(noon[1]);
    mi = Number(noon[2] ?? '0');
    if (h < 1 || h > 12) throw usageError(`${flag} has no such time of day: "${input}"`);
    h = (h % 12) + (noon[3].toLowerCase() === 'p' ? 12 : 0);
  } else {
    h = Number(clock![1]);
    mi = Number(clock![2]);
  }
  if (h > 23 || mi > 59) throw usageError(`${flag} has no such time of day: "${input}"`);
  return `${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}`;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The wall-clock date and time in `zone` at the instant `now`, as `YYYY-MM-DDTHH:MM`
 * (the sandbox's clock reads other zones through it too). Formatters are cached: building
 * one costs far more than using it.
 */
export function localNow(zone: string, now: Date): string {
  let fmt = formatters.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, fmt);
  }
  const parts: Record<string, string> = {};
  for (const p of fmt.formatToParts(now)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** Calendar arithmetic on a car-local `YYYY-MM-DDTHH:MM`: the same clock time `days` later. */
export function addLocalDays(value: string, days: number): string {
  const [date, time] = value.split('T');
  const [y, m, d] = date.split('-').map(Number);
  const next = new Date(Date.UTC(y, m - 1, d + days));
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(next.getUTCFullYear(), 4)}-${pad(next.getUTCMonth() + 1)}-${pad(next.getUTCDate())}T${time}`;
}

const FORMS = 'YYYY-MM-DD HH:MM, 2026-12-01, tomorrow 3pm, fri 10:00, +3d';

/**
 * A command-line date in any accepted form, resolved to `YYYY-MM-DDTHH:MM`: absolute
 * days as typed; relative ones against now in `zone` (a weekday is the next one, never
 * today: `today` is today). A relative form with no zone known is a usage error that
 * says how to give one.
 */
export function resolveDateInput(input: string, flag: string, opts: { now: Date; zone?: string }): string {
  const text = input.trim();
  // the API's own form, and its right shape with no such day (2026-02-30), as before
  if (LOCAL_RE.test(text)) return parseLocalDateTime(text, flag);
  const { day, time: timeText } = splitDayTime(text);
  const iso = ISO_DAY_RE.exec(day);
  if (!iso && !isRelativeDay(day)) throw usageError(`${flag} must be a car-local date and time (${FORMS}), got "${input}"`);
  const time = timeText === undefined ? DEFAULT_TIME : parseTime(timeText, flag, input);
  if (time === undefined) throw usageError(`${flag} must be a car-local date and time (${FORMS}), got "${input}"`);
  if (iso) return parseLocalDateTime(`${day}T${time}`, flag);
  if (!opts.zone) throw usageError(`${flag} "${input}" is relative: give --city (or use YYYY-MM-DD HH:MM) so it can be read in the car's zone`);
  const today = localNow(opts.zone, opts.now).slice(0, 10);
  return addLocalDays(`${today}T${time}`, daysAhead(day, today));
}

/** How many days after `today` (YYYY-MM-DD) a relative day is. */
function daysAhead(day: string, today: string): number {
  if (day === 'today') return 0;
  if (day === 'tomorrow') return 1;
  const rel = REL_DAY_RE.exec(day);
  if (rel) return Number(rel[1]) * (rel[2] === 'w' ? 7 : 1);
  const [y, m, d] = today.split('-').map(Number);
  const todayIndex = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  const target = WEEKDAYS.indexOf(WEEKDAY_RE.exec(day)![1]);
  return ((target - todayIndex + 6) % 7) + 1;
}

/** `--days N`: the checkout N days after the check-in, same clock time. */
export function parseDays(input: string, flag = '--days'): number {
  const t = input.trim();
  if (!/^\d{1,3}$/.test(t) || Number(t) < 1 || Number(t) > 366) throw usageError(`${flag} must be a whole number of days 1..366, got "${input}"`);
  return Number(t);
}

/** True when a car-local value is earlier than now in its zone. */
export function isPastLocal(value: string, zone: string, now: Date): boolean {
  return value < localNow(zone, now);
}
