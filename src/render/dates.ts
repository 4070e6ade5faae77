// Car-local dates are wall-clock strings in the car's city zone and are never converted;
// we only label them. Invoice created_at is UTC.
import { CITY_TIME_ZONES, type City } from '../api/enums.js';
import { usageError } from '../errors.js';

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/;

export function zoneOf(city: string | null | undefined): string | undefined {
  // hasOwn, not `in`: "toString" is no city.
  return city && Object.hasOwn(CITY_TIME_ZONES, city) ? CITY_TIME_ZONES[city as City] : undefined;
}

/** "2026-12-01T10:00" + "la" -> "2026-12-01 10:00 America/Los_Angeles". */
export function formatLocal(value: string | null | undefined, city?: string | null): string {
  if (!value) return '';
  const zone = zoneOf(city);
  const text = value.replace('T', ' ');
  return zone ? `${text} ${zone}` : `${text} (car-local)`;
}

/** Invoice created_at: "2026-12-01T10:00" -> "2026-12-01 10:00 UTC". */
export function formatUtc(value: string | null | undefined): string {
  return value ? `${value.replace('T', ' ')} UTC` : '';
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
// Relative dates a person types: `tomorrow 10:00`, `today 18:30`, `+3d 10:00`, `+1w`,
// resolved against "now" in the car's zone and returned in the API's absolute form. The
// wall clock of that zone is read with Intl (no library: Node ships the zone data).

const RELATIVE_RE = /^(today|tomorrow|\+(\d{1,3})([dw]))(?:[T ](\d{1,2}):(\d{2}))?$/i;
/** The time a relative day without a clock time means: inside every city's opening hours. */
export const DEFAULT_RELATIVE_TIME = '10:00';

/** True when the text is a relative form (it needs a zone to resolve). */
export function isRelativeDate(input: string): boolean {
  return RELATIVE_RE.test(input.trim());
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

/**
 * A command-line date in any accepted form, resolved to `YYYY-MM-DDTHH:MM`: absolute
 * forms as parseLocalDateTime; relative forms against now in `zone`. A relative form with
 * no zone known is a usage error that says how to give one.
 */
export function resolveDateInput(input: string, flag: string, opts: { now: Date; zone?: string }): string {
  const text = input.trim();
  const rel = RELATIVE_RE.exec(text);
  if (!rel) {
    // the right shape but no such day (2026-02-30) says so
    if (LOCAL_RE.test(text)) return parseLocalDateTime(text, flag);
    try {
      return parseLocalDateTime(text, flag);
    } catch {
      throw usageError(
        `${flag} must be a car-local date and time (YYYY-MM-DD HH:MM, or tomorrow 10:00, +3d 10:00), got "${input}"`,
      );
    }
  }
  if (!opts.zone) throw usageError(`${flag} "${input}" is relative: give --city (or use YYYY-MM-DD HH:MM) so it can be read in the car's zone`);
  const [, word, count, unit, hh, mm] = rel;
  const w = word.toLowerCase();
  const days = w === 'today' ? 0 : w === 'tomorrow' ? 1 : Number(count) * (unit.toLowerCase() === 'w' ? 7 : 1);
  const time = hh === undefined ? DEFAULT_RELATIVE_TIME : `${hh.padStart(2, '0')}:${mm}`;
  const [h, mi] = time.split(':').map(Number);
  if (h > 23 || mi > 59) throw usageError(`${flag} has no such time of day: "${input}"`);
  const today = localNow(opts.zone, opts.now).slice(0, 10);
  return addLocalDays(`${today}T${time}`, days);
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
