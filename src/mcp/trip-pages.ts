// list_trips in pages: GET /my/trips returns every trip at once (49 trips were 53 KB, past a
// whole flow's budget), so the tool filters (status, dates) and pages them itself. Trips are
// put in a fixed order (active before history; active soonest first, history latest first;
// then by uuid), and a page holds as many as fit in PAGE_BYTES of the answer, at most
// `limit`; its cursor is the position after the last one, bound to the filters it was made
// for, so that following next_cursor reaches every trip exactly once.
import { createHash } from 'node:crypto';
import type * as S from '../api/schemas.js';
import { usageError } from '../errors.js';
import { compactTrip } from './tool-results.js';

/** Every answer of list_trips stays under 10,000 bytes on the wire (issue 34); this is its page's share. */
export const PAGE_BYTES = 9_000;
export const TRIPS_PAGE = 10;
export const TRIPS_MAX = 50;

export interface TripFilter {
  status?: string;
  date_from?: string;
  date_to?: string;
}

type Group = 'active' | 'history';

/** What the answer costs on the wire: the JSON twice (structured, and as an escaped text), plus the envelope and the data label. */
const wireBytes = (value: unknown) => {
  const json = JSON.stringify(value);
  return Buffer.byteLength(json) + Buffer.byteLength(JSON.stringify(json)) + 700;
};

const filterId = (f: TripFilter) => createHash('sha256').update(JSON.stringify([f.status ?? null, f.date_from ?? null, f.date_to ?? null])).digest('base64url').slice(0, 8);

export function encodeCursor(f: TripFilter, offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset, f: filterId(f) })).toString('base64url');
}

function decodeCursor(cursor: string, f: TripFilter): number {
  let parsed: { o?: unknown; f?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw usageError('cursor is not one list_trips returned: call list_trips without a cursor for the first page');
  }
  if (typeof parsed.o !== 'number' || !Number.isInteger(parsed.o) || parsed.o < 0) throw usageError('cursor is not one list_trips returned: call list_trips without a cursor for the first page');
  if (parsed.f !== filterId(f)) throw usageError('this cursor was made for other filters: pass the same status, date_from and date_to as the call that returned it');
  return parsed.o;
}

/** Whether a trip passes the filters: its status or group, and its dates overlapping date_from..date_to. */
function matches(trip: S.Trip, group: Group, f: TripFilter): boolean {
  if (f.status && f.status !== group && trip.status !== f.status) return false;
  if (f.date_from && (trip.date_checkout ?? trip.date_checkin ?? '') < f.date_from) return false;
  if (f.date_to && (trip.date_checkin ?? '') > f.date_to) return false;
  return true;
}

function ordered(list: S.Trip[], group: Group): S.Trip[] {
  const dir = group === 'active' ? 1 : -1;
  return [...list].sort((a, b) => dir * (a.date_checkin ?? '').localeCompare(b.date_checkin ?? '') || (a.uuid ?? '').localeCompare(b.uuid ?? ''));
}

export function tripPage(trips: S.TripsList, f: TripFilter, limit: number, cursor: string | undefined): Record<string, unknown> {
  const all: Array<[Group, S.Trip]> = [
    ...ordered(trips.active, 'active').map((t) => ['active', t] as [Group, S.Trip]),
    ...ordered(trips.history, 'history').map((t) => ['history', t] as [Group, S.Trip]),
  ].filter(([g, t]) => matches(t, g, f));
  const start = cursor === undefined ? 0 : decodeCursor(cursor, f);
  const page: Record<Group, Record<string, unknown>[]> = { active: [], history: [] };
  let end = start;
  while (end < all.length && end - start < limit) {
    const [group, trip] = all[end];
    page[group].push(compactTrip(trip));
    // the first trip of a page always goes, so that paging never stalls
    if (end > start && wireBytes({ ...page, total: all.length, next_cursor: encodeCursor(f, end) }) > PAGE_BYTES) {
      page[group].pop();
      break;
    }
    end++;
  }
  const more = end < all.length;
  return { ...page, total: all.length, returned: end - start, has_more: more, ...(more ? { next_cursor: encodeCursor(f, end) } : {}) };
}
