// `carrental cars`: search the catalog; `--all` walks every page and streams it.
import type { Failure, Schema } from '../api/client.js';
import type { CarsQuery } from '../api/endpoints.js';
import { payloadOf } from '../api/payload.js';
import { CITIES } from '../api/enums.js';
import * as S from '../api/schemas.js';
import type { Car, CarsPage } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { usageError } from '../errors.js';
import { zoneOf } from '../input/dates.js';
import { arrayElementsAt } from '../text/json-scan.js';
import { pick, selectFields } from '../render/json-select.js';
import { formatCents } from '../render/money.js';
import type { Output } from '../render/output.js';
import { parseIntOption } from '../input/parse.js';
import { ALL_PAGE_SIZE, walkPages } from '../api/page-walk.js';
import { clockNow, hasRelative, refusePast, resolvedLine, resolveTripDates } from '../cmdkit/trip-dates.js';

export type CarsInput = InputOf<'cars'>;

/** Pages `--all --parallel` asks for at once at most: enough to hide latency, few enough to stay polite. */
export const MAX_PAGE_CONCURRENCY = 4;

/**
 * The fields the spec documents for a car, offered by `--json <fields>` even when absent.
 * Asked for only when fields are selected: reading them builds the Car schema, which a
 * plain `cars --json` never needs (start-up, docs/performance.md).
 */
const carFields = (): readonly string[] => Object.keys(S.Car.shape);

/**
 * How many pages `--all` asks for at once: `--parallel`, else CARRENTAL_PAGE_CONCURRENCY,
 * else 1. One is the spec's walk ("the caller pages with offset until has_more is false"):
 * no page is asked for before the one before it said has_more. More is speculation, which
 * the user asks for knowing that a catalog shrinking mid-walk can cost up to n - 1 requests
 * past the end (abandoned, never printed): so it is never the default.
 */
export function pageConcurrency(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  if (flag !== undefined) return parseIntOption(flag, '--parallel', { min: 1, max: MAX_PAGE_CONCURRENCY })!;
  const n = Number(env.CARRENTAL_PAGE_CONCURRENCY);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_PAGE_CONCURRENCY) : 1;
}

export function buildCarsQuery(input: CarsInput, defaultCity?: string, dates: { now?: Date; zone?: string } = {}): CarsQuery {
  const range = resolveTripDates(input, { now: dates.now ?? new Date(), zone: dates.zone, required: false });
  const limit = parseIntOption(input.limit, '--limit', { min: 1, max: 200 });
  const offset = parseIntOption(input.offset, '--offset', { min: 0 });
  return {
    city: input.city ?? defaultCity,
    date_from: range?.from,
    date_to: range?.to,
    // with --all, --limit is the size of each page (documented): --all always fetches every car
    limit: limit ?? (input.all ? ALL_PAGE_SIZE : undefined),
    offset,
    body_type: input.bodyType,
    make_id: parseIntOption(input.makeId, '--make-id', { min: 0 }),
    model_id: parseIntOption(input.modelId, '--model-id', { min: 0 }),
    order_by: input.sort,
  };
}

const TABLE_HEADERS = ['ALIAS', 'NAME', 'CITY', 'TYPE', 'SEATS', 'DAY RATE'];

export async function run(input: CarsInput, ctx: Context): Promise<number> {
  // validate before anything else: a bad flag never sends a request
  const preliminary = buildCarsQuery(input);
  const concurrency = pageConcurrency(input.parallel, ctx.env);
  if (input.parallel !== undefined && !input.all) throw usageError('--parallel works with --all: it is how many pages the walk asks for at once');
  if (input.available && preliminary.date_from === undefined) {
    throw usageError('--available needs --from and --to: the catalog says whether a car is available only for dates');
  }
  const { client, out, target } = await services(ctx);
  let query = input.city ? preliminary : { ...preliminary, city: target.profileData.city };
  if (hasRelative(input)) {
    // `tomorrow 10:00` is read in the city's zone (--city, else the profile's city)
    const zone = zoneOf(query.city);
    if (!zone) throw usageError("relative dates are read in the city's zone: give --city", 'or set a default city: `carrental config set city la`');
    const resolved = buildCarsQuery(input, query.city, { now: await clockNow(ctx, target), zone });
    query = { ...query, date_from: resolved.date_from, date_to: resolved.date_to };
    out.info(resolvedLine({ from: query.date_from!, to: query.date_to! }, zone));
  }
  // a search in the past would list every car "available"
  if (query.date_from !== undefined) refusePast(query.date_from, '--from', await clockNow(ctx, target), zoneOf(query.city));
  const dated = query.date_from !== undefined;
  const keep = input.available ? isAvailable : undefined;

  if (input.all) return runAll(ctx, out, query, (offset, limit, ctl) => fetchCarsPage(client, query, offset, limit, ctl, out), keep, concurrency);

  // the page check of --all (plain checks, the schema only for a car that fails them):
  // checking 50 cars with the zod schema was a tenth of this command's start-up
  const res = await client.request({ method: 'GET', path: '/cars', query: { ...query }, auth: 'none', schema: STREAM_PAGE_SCHEMA as Schema<CarsPage> });
  const fetched = res.data.cars.length;
  // --available filters what arrived, so its JSON is the filtered page, not the server's bytes
  const page = input.available ? onlyAvailable(res.data) : res.data;
  if (ctx.globals.json) {
    out.printJson(input.available ? page : payloadOf(res), { lists: ['cars'], known: carFields });
    return 0;
  }
  if (page.cars.length === 0) out.info('no cars match');
  else printTable(out, page.cars, dated);

  const offset = query.offset ?? 0;
  if (input.available && out.tty) out.info(`${page.cars.length} of the ${fetched} cars fetched are available`);
  if (out.tty && fetched > 0) {
    const last = offset + fetched;
    out.info(`showing ${offset + 1}-${last} of ${page.total}${page.has_more ? `; next page: --offset ${last} (or --all for every page)` : ''}`);
  }
  return 0;
}

function printTable(out: Output, cars: Car[], dated: boolean): void {
  const headers = [...TABLE_HEADERS];
  if (dated) headers.push('AVAILABLE', 'TRIP TOTAL');
  headers.push('HOT DEAL');
  // a narrow terminal leaves out the hot deal, seats, type, city, then (with dates) the day rate
  const optional = dated ? [8, 4, 3, 2, 5] : [6, 4, 3, 2];
  out.table(headers, cars.map((car) => carRow(car, dated)), { alignRight: dated ? [4, 5, 7] : [4, 5], ids: [0], text: [1], optional });
}

const isAvailable = (car: Car) => car.is_available === true;

/**
 * --available: only the cars the catalog marks `is_available: true` (a car it says nothing
 * about is left out). The API has no such filter, so this filters what was fetched: `total`
 * and `has_more` stay the API's, counting every car of the search.
 */
export function onlyAvailable(page: CarsPage): CarsPage {
  return { ...page, cars: page.cars.filter(isAvailable) };
}

function carRow(car: Car, dated: boolean): unknown[] {
  const rate = car.discounted_day_rate_cents ?? car.blended_day_rate_cents;
  const row: unknown[] = [car.car_alias, car.name, car.city ?? '', car.body_type ?? '', car.seats ?? '', rate === undefined ? '' : formatCents(rate)];
  if (dated) {
    row.push(car.is_available === undefined ? '' : car.is_available ? 'yes' : 'no');
    row.push(car.display_trip_total_cents === undefined ? '' : formatCents(car.display_trip_total_cents));
  }
  row.push(car.is_hot_deal ? 'yes' : '');
  return row;
}

/** One page of the walk, as received: the parsed page beside the body the server sent. */
export interface StreamPage {
  cars: Car[];
  body: string;
  total: number;
  has_more: boolean;
}

// ---- cheap validation -------------------------------------------------------------------
// Checking 50,000 cars with the zod schema was half the CPU of `cars --all`. Each car
// gets a plain check of what the spec requires of it and of every field this command
// reads; a car that fails goes through the zod schema, whose error names the field
// (`data.cars.17.name: expected string`). The schema stays the authority: a car the plain
// check doubts but the schema accepts is accepted.
const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || ok(v);
const isString = (v: unknown) => typeof v === 'string';

export function plainCarCheck(car: unknown): boolean {
  if (typeof car !== 'object' || car === null || Array.isArray(car)) return false;
  const c = car as Record<string, unknown>;
  return (
    isString(c.car_alias) &&
    isString(c.name) &&
    typeof c.prices === 'object' &&
    c.prices !== null &&
    !Array.isArray(c.prices) &&
    optional(c.city, (v) => (CITIES as readonly unknown[]).includes(v)) &&
    optional(c.body_type, (v) => v === null || isString(v)) &&
    optional(c.seats, isInt) &&
    optional(c.blended_day_rate_cents, isInt) &&
    optional(c.discounted_day_rate_cents, isInt) &&
    optional(c.display_trip_total_cents, isInt) &&
    optional(c.is_available, (v) => typeof v === 'boolean') &&
    optional(c.is_hot_deal, (v) => typeof v === 'boolean')
  );
}

type Issue = { path: PropertyKey[]; message: string };
const fail = (path: PropertyKey[], message: string) => ({ success: false as const, error: { issues: [{ path, message }] as ReadonlyArray<Issue> } });

/** The CarsPage check of the walk: the page's own members, then each car as above. */
export const STREAM_PAGE_SCHEMA: Schema<{ cars: unknown[]; total: number; has_more: boolean }> = {
  safeParse(data: unknown) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return fail([], 'expected an object');
    const page = data as Record<string, unknown>;
    if (!Array.isArray(page.cars)) return fail(['cars'], 'expected an array');
    if (!isInt(page.total)) return fail(['total'], 'expected an integer');
    if (typeof page.has_more !== 'boolean') return fail(['has_more'], 'expected a boolean');
    for (let i = 0; i < page.cars.length; i++) {
      if (plainCarCheck(page.cars[i])) continue;
      const strict = S.Car.safeParse(page.cars[i]);
      if (!strict.success) {
        const issue = strict.error.issues[0];
        return fail(['cars', i, ...issue.path], issue.message);
      }
    }
    return { success: true as const, data: page as { cars: unknown[]; total: number; has_more: boolean } };
  },
};

type PageFetcher = (offset: number, limit: number, ctl: { signal: AbortSignal; onRetryWait(ms: number): void }) => Promise<StreamPage>;

async function fetchCarsPage(
  client: import('../api/client.js').ApiClient,
  query: CarsQuery,
  offset: number,
  limit: number,
  ctl: { signal: AbortSignal; onRetryWait(ms: number): void },
  out: Output,
): Promise<StreamPage> {
  const res = await client.request({
    method: 'GET',
    path: '/cars',
    query: { ...query, offset, limit },
    auth: 'none',
    schema: STREAM_PAGE_SCHEMA,
    signal: ctl.signal,
    onRetry: ({ delayMs, failure, attempt, maxAttempts }) => {
      if (failure.kind === 'status') ctl.onRetryWait(delayMs);
      out.progress(`${describe(failure)}: retrying a page in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts})`);
    },
  });
  // the cars' own bytes are found later (carsText), once the walk has asked for the next page
  return { cars: res.data.cars as Car[], body: res.text, total: res.data.total, has_more: res.data.has_more };
}

function describe(failure: Failure): string {
  if (failure.kind === 'status') return `HTTP ${failure.status}${failure.errorCode ? ` ${failure.errorCode}` : ''}`;
  return failure.timedOut ? 'timed out' : 'connection failed';
}

/**
 * The server's text of the cars at `indexes` of a page's body, comma-separated. When the
 * page is printed whole and its cars are separated by bare commas (as servers write JSON),
 * that is one slice of the body: no copy of 280 KB a page (the lengths prove the
 * separators are one character each, and between two values of an array that can only be
 * a comma).
 */
export function carsText(body: string, indexes: number[]): string {
  const spans = arrayElementsAt(body, ['data', 'cars'])!;
  if (indexes.length === spans.length) {
    const first = spans[0];
    const last = spans[spans.length - 1];
    const lengths = spans.reduce((sum, s) => sum + (s.end - s.start), 0);
    if (last.end - first.start === lengths + spans.length - 1) return body.slice(first.start, last.end);
  }
  return indexes.map((i) => body.slice(spans[i].start, spans[i].end)).join(',');
}

/**
 * `cars --all`: pages arrive in order and each is printed at once, so the first car shows
 * in a fraction of a second and memory does not grow with the fleet. A terminal's table
 * needs every row to size its columns, and --jq the whole document: those two collect.
 */
export async function runAll(
  ctx: Context,
  out: Output,
  query: CarsQuery,
  fetchPage: PageFetcher,
  keep?: (car: Car) => boolean,
  concurrency = 1,
): Promise<number> {
  const start = query.offset ?? 0;
  const { json, jsonFields, jq } = ctx.globals;
  const dated = query.date_from !== undefined;
  const seen = new Set<string>();
  let duplicates = 0;
  let received = 0;
  let total = 0;
  let pages = 0;
  let written = 0;
  const collected: Car[] = [];
  const streamJson = json && jq === undefined;
  const streamRows = !json && !out.tty;

  let stalledAt: number | undefined;
  for await (const { page, offset, stalled } of walkPages<StreamPage>({
    start,
    size: query.limit ?? ALL_PAGE_SIZE,
    concurrency,
    fetch: fetchPage,
    facts: (p) => ({ count: p.cars.length, total: p.total, hasMore: p.has_more }),
  })) {
    total = page.total;
    const fresh: number[] = [];
    page.cars.forEach((car, i) => {
      received++;
      // the catalog can shift while it is paged: never list a car twice
      if (seen.has(car.car_alias)) duplicates++;
      else {
        seen.add(car.car_alias);
        if (!keep || keep(car)) fresh.push(i);
      }
    });
    if (streamJson) {
      // the field list is checked once, on the first page, before anything is written
      if (jsonFields && pages === 0) selectFields({ cars: page.cars }, jsonFields, { lists: ['cars'], known: carFields });
      if (pages === 0) out.jsonSyntax('{"cars":[');
      if (fresh.length) out.jsonItems(jsonFields ? fresh.map((i) => JSON.stringify(pick(page.cars[i], jsonFields))).join(',') : carsText(page.body, fresh), written > 0);
      written += fresh.length;
    } else if (streamRows) {
      if (fresh.length) printTable(out, fresh.map((i) => page.cars[i]), dated);
    } else {
      for (const i of fresh) collected.push(page.cars[i]);
    }
    pages++;
    if (stalled) stalledAt = offset;
    out.progress(`fetched ${seen.size} of ${page.total} cars`);
    // a slow reader holds the walk back (backpressure), instead of the fleet piling up in memory
    await out.drain();
  }
  out.clearProgress();

  if (streamJson) out.jsonSyntax(`],"total":${total},"has_more":false}\n`);
  else if (json) out.printJson({ cars: collected, total, has_more: false }, { lists: ['cars'], known: carFields });
  else if (collected.length) printTable(out, collected, dated);
  if (!json && seen.size === 0) out.info('no cars match');

  const expected = Math.max(0, total - start);
  if (stalledAt !== undefined) out.warn(`the server said has_more at offset ${stalledAt} but sent nothing, so the walk stops there: the list may be incomplete (rerun later, or page on with --offset)`);
  else if (received !== expected || duplicates > 0) {
    out.warn(
      `the server's total is ${total} cars${start ? ` (${expected} from offset ${start})` : ''}, but ${received} arrived` +
        (duplicates ? `, ${duplicates} of them twice (printed once)` : '') +
        `: the catalog changed while it was paged, or the server counts differently; ${seen.size} cars printed`,
    );
  }
  return 0;
}
