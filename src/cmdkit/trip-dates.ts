// The dates of a trip as typed on the command line: `--from`, `--to` or `--days N`, each
// absolute (`2026-12-01 10:00`) or relative (`tomorrow 10:00`, `+3d 10:00`). Relative
// forms are read in the car's zone, so they resolve only once the city is known; the
// syntax is checked before any request.
import { CITY_TIME_ZONES } from '../api/enums.js';
import type { Context } from '../session/context.js';
import type { Target } from '../session/services.js';
import { usageError } from '../errors.js';
import { sandboxClockOffset } from './server-clock.js';
import { addLocalDays, isRelativeDate, localNow, parseDays, resolveDateInput, zoneOf } from '../input/dates.js';

export interface DateFlags {
  from?: string;
  to?: string;
  days?: string;
}

/** True when a flag holds a relative form (it needs the car's zone). */
export function hasRelative(flags: DateFlags): boolean {
  return [flags.from, flags.to].some((v) => v !== undefined && isRelativeDate(v));
}

/**
 * The trip's absolute car-local dates, or undefined when no date flag is given and none
 * is required. Without a zone (`zone` undefined), relative forms are only checked (the
 * result then holds them unresolved) and the order is checked only between absolute dates.
 */
export function resolveTripDates(flags: DateFlags, opts: { now: Date; zone?: string; required: boolean }): { from: string; to: string } | undefined {
  const { from, to, days } = flags;
  if (days !== undefined && to !== undefined) throw usageError('give --to or --days, not both');
  if (from === undefined && to === undefined && days === undefined) {
    if (opts.required) throw usageError('--from and --to (or --days) are required', 'for example --from "tomorrow 10:00" --days 3, or --from "2027-03-01 10:00" --to "2027-03-04 10:00"');
    return undefined;
  }
  if (from === undefined) throw usageError(days !== undefined ? '--days needs --from' : '--from and --to go together: give both or neither');
  if (to === undefined && days === undefined) throw usageError('--from needs --to or --days');
  const nights = days === undefined ? undefined : parseDays(days);
  const zone = opts.zone;
  const read = (value: string, flag: string) => (zone || !isRelativeDate(value) ? resolveDateInput(value, flag, { now: opts.now, zone }) : checkRelative(value, flag, opts.now));
  const f = read(from, '--from');
  const t = nights !== undefined ? (isRelativeDate(f) ? f : addLocalDays(f, nights)) : read(to!, '--to');
  if (!isRelativeDate(f) && !isRelativeDate(t) && t <= f) throw usageError(`--to (${t.replace('T', ' ')}) must be after --from (${f.replace('T', ' ')})`);
  return { from: f, to: t };
}

/** Checks a relative form's syntax with any zone; returns it as typed. */
function checkRelative(value: string, flag: string, now: Date): string {
  resolveDateInput(value, flag, { now, zone: 'UTC' });
  return value.trim();
}

/**
 * "Now" for relative dates and the past-date check: the server's clock when it is known
 * (the embedded sandbox's, moved by `sandbox clock` or started at CARRENTAL_SANDBOX_NOW;
 * a served sandbox's, asked once on loopback: server-clock.ts), so that `tomorrow` means
 * the sandbox's tomorrow; else this machine's. Call it only when a date is to be read.
 */
export async function clockNow(ctx: Pick<Context, 'env' | 'now' | 'signal' | 'globals' | 'io'>, target: Pick<Target, 'sandbox' | 'clock' | 'baseUrl'>): Promise<Date> {
  if (target.clock) return target.clock();
  const start = target.sandbox ? ctx.env.CARRENTAL_SANDBOX_NOW : undefined;
  const ms = start ? Date.parse(start) : NaN;
  if (!Number.isNaN(ms)) return new Date(ms + (Date.now() - PROCESS_START));
  if (!target.sandbox) {
    const offset = await sandboxClockOffset(target, ctx.signal, ctx.globals.debug ? (line) => ctx.io.stderr.write(`${line}\n`) : undefined);
    if (offset !== undefined) return new Date(Date.now() + offset);
  }
  return ctx.now();
}
const PROCESS_START = Date.now();

/** The zone relative dates are read in; a car whose city is unknown takes absolute dates only. */
export function zoneOrRefuse(city: string | null | undefined): string {
  const zone = zoneOf(city);
  if (!zone) throw usageError(`relative dates need the car's city, and the API did not say it (${city ?? 'no city'})`, 'give --from and --to as YYYY-MM-DD HH:MM');
  return zone;
}

/** One line that shows relative input back as absolute car-local times. */
export function resolvedLine(dates: { from: string; to: string }, zone: string | undefined): string {
  const z = zone ? ` ${zone}` : ' car-local';
  return `dates: ${dates.from.replace('T', ' ')} to ${dates.to.replace('T', ' ')}${z}`;
}

/** Dates some of which may be missing (prompted later); `days` kept while `from` is relative. */
export interface PartialDates {
  from?: string;
  to?: string;
  days?: number;
}

/**
 * `reserve`'s date flags, checked with no zone and no request: absolute dates in the API's
 * form, relative ones as typed, `--days` folded into `to` when `from` is absolute.
 */
export function checkPartialDates(flags: DateFlags): PartialDates {
  if (flags.days !== undefined && flags.to !== undefined) throw usageError('give --to or --days, not both');
  if (flags.days !== undefined && flags.from === undefined) throw usageError('--days needs --from');
  if (flags.from !== undefined && (flags.to !== undefined || flags.days !== undefined)) {
    const r = resolveTripDates(flags, { now: new Date(), required: true })!;
    const days = flags.days === undefined ? undefined : parseDays(flags.days);
    return isRelativeDate(r.from) && days !== undefined ? { from: r.from, days } : { from: r.from, to: r.to };
  }
  const one = (value: string | undefined, flag: string) =>
    value === undefined ? undefined : isRelativeDate(value) ? checkRelative(value, flag, new Date()) : resolveDateInput(value, flag, { now: new Date() });
  return { from: one(flags.from, '--from'), to: one(flags.to, '--to') };
}

/** The partial dates with relative forms read in `zone`; `to` from `days` once `from` is known. */
export function resolvePartialDates(d: PartialDates, now: Date, zone: string): PartialDates {
  const from = d.from === undefined ? undefined : resolveDateInput(d.from, '--from', { now, zone });
  const to = d.days !== undefined && from !== undefined ? addLocalDays(from, d.days) : d.to === undefined ? undefined : resolveDateInput(d.to, '--to', { now, zone });
  if (from !== undefined && to !== undefined && to <= from) throw usageError(`--to (${to.replace('T', ' ')}) must be after --from (${from.replace('T', ' ')})`);
  return { from, to, days: d.days };
}

/**
 * A check-in (or a new check-out) before now is refused before it is sent: exit 2, with a
 * date that works as the example (never the one that just failed). Now is read in `zone`;
 * with no zone known yet, in every city's zone, so only a date past everywhere is refused
 * then (the check runs again once the car's city is known).
 */
export function refusePast(value: string, flag: string, now: Date, zone: string | undefined): void {
  const zones = zone ? [zone] : Object.values(CITY_TIME_ZONES);
  // the zone whose wall clock is earliest: a date before it is past in all of them
  const [where, local] = zones.map((z): [string, string] => [z, localNow(z, now)]).reduce((a, b) => (b[1] < a[1] ? b : a));
  if (value >= local) return;
  const example = addLocalDays(`${local.slice(0, 10)}T10:00`, 1).replace('T', ' ');
  throw usageError(`${flag} ${value.replace('T', ' ')} is in the past: it is ${local.replace('T', ' ')} in ${where} now`, `give a later ${flag}, for example ${flag} "${example}"`);
}
