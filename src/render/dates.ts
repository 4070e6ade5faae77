// Car-local dates are wall-clock strings in the car's city zone and are never converted;
// we only label them. Invoice created_at is UTC.
import { CITY_TIME_ZONES, type City } from '../api/enums.js';
import { usageError } from '../errors.js';

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/;

export function zoneOf(city: string | null | undefined): string | undefined {
  return city && city in CITY_TIME_ZONES ? CITY_TIME_ZONES[city as City] : undefined;
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
