// `carrental cars`: search the catalog; `--all` walks every page.
import type { CarsQuery } from '../api/endpoints.js';
import type { Car, CarsPage } from '../api/schemas.js';
import type { Context } from '../cli/context.js';
import { services } from '../cli/services.js';
import { usageError } from '../errors.js';
import { zoneOf } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import { parseIntOption } from './parse.js';
import { clockNow, hasRelative, resolvedLine, resolveTripDates } from './trip-dates.js';

export interface CarsInput {
  city?: string;
  from?: string;
  to?: string;
  days?: string;
  bodyType?: string;
  makeId?: string;
  modelId?: string;
  sort?: string;
  limit?: string;
  offset?: string;
  all?: boolean;
  available?: boolean;
}

/** Pages fetched at once by --all after the first: enough to hide latency, few enough to stay polite. */
export const ALL_PAGES_CONCURRENCY = 4;
const ALL_PAGE_SIZE = 200;

/** CARRENTAL_PAGE_CONCURRENCY (undocumented, 1..4) lets the benchmark time the sequential walk. */
export function pageConcurrency(env: NodeJS.ProcessEnv): number {
  const n = Number(env.CARRENTAL_PAGE_CONCURRENCY);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, ALL_PAGES_CONCURRENCY) : ALL_PAGES_CONCURRENCY;
}

export function buildCarsQuery(input: CarsInput, defaultCity?: string, dates: { now?: Date; zone?: string } = {}): CarsQuery {
  const range = resolveTripDates(input, { now: dates.now ?? new Date(), zone: dates.zone, required: false });
  const limit = parseIntOption(input.limit, '--limit', { min: 1, max: 200 });
  const offset = parseIntOption(input.offset, '--offset', { min: 0 });
  return {
    city: input.city ?? defaultCity,
    date_from: range?.from,
    date_to: range?.to,
    limit: limit ?? (input.all ? ALL_PAGE_SIZE : undefined),
    offset,
    body_type: input.bodyType,
    make_id: parseIntOption(input.makeId, '--make-id', { min: 0 }),
    model_id: parseIntOption(input.modelId, '--model-id', { min: 0 }),
    order_by: input.sort,
  };
}

export async function run(input: CarsInput, ctx: Context): Promise<number> {
  // validate before anything else: a bad flag never sends a request
  const preliminary = buildCarsQuery(input);
  if (input.available && preliminary.date_from === undefined) {
    throw usageError('--available needs --from and --to: the catalog says whether a car is available only for dates');
  }
  const { api, out, target } = await services(ctx);
  let query = input.city ? preliminary : { ...preliminary, city: target.profileData.city };
  if (hasRelative(input)) {
    // `tomorrow 10:00` is read in the city's zone (--city, else the profile's city)
    const zone = zoneOf(query.city);
    if (!zone) throw usageError('relative dates are read in the city\'s zone: give --city', 'or set a default city: `carrental config set city la`');
    const resolved = buildCarsQuery(input, query.city, { now: clockNow(ctx, target.sandbox), zone });
    query = { ...query, date_from: resolved.date_from, date_to: resolved.date_to };
    out.info(resolvedLine({ from: query.date_from!, to: query.date_to! }, zone));
  }

  let page: CarsPage;
  if (input.all) {
    page = await fetchAll(
      query,
      (q) => api.listCars(q).then((r) => r.data),
      (done, total) => out.progress(`fetched ${done} of ${total} cars`),
      pageConcurrency(ctx.env),
    );
    out.clearProgress();
  } else {
    page = (await api.listCars(query)).data;
  }
  const fetched = page.cars.length;
  if (input.available) page = onlyAvailable(page);

  if (ctx.globals.json) {
    out.printJson(page);
    return 0;
  }
  const dated = query.date_from !== undefined;
  const headers = ['ALIAS', 'NAME', 'CITY', 'TYPE', 'SEATS', 'DAY RATE'];
  if (dated) headers.push('AVAILABLE', 'TRIP TOTAL');
  headers.push('HOT DEAL');
  const rows = page.cars.map((car) => carRow(car, dated));
  if (rows.length === 0) out.info('no cars match');
  else out.table(headers, rows, { alignRight: dated ? [4, 5, 7] : [4, 5], ids: [0], text: [1] });

  const offset = query.offset ?? 0;
  if (input.available && out.tty) out.info(`${page.cars.length} of the ${fetched} cars fetched are available`);
  if (!input.all && out.tty && fetched > 0) {
    const last = offset + fetched;
    out.info(`showing ${offset + 1}-${last} of ${page.total}${page.has_more ? `; next page: --offset ${last} (or --all for every page)` : ''}`);
  }
  return 0;
}

/**
 * --available: only the cars the catalog marks `is_available: true` (a car it says nothing
 * about is left out). The API has no such filter, so this filters what was fetched: `total`
 * and `has_more` stay the API's, counting every car of the search.
 */
export function onlyAvailable(page: CarsPage): CarsPage {
  return { ...page, cars: page.cars.filter((car) => car.is_available === true) };
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

/**
 * The first page tells the total; the remaining offsets are then fetched with a small
 * bounded concurrency and stitched back in order.
 */
export async function fetchAll(
  query: CarsQuery,
  fetchPage: (q: CarsQuery) => Promise<CarsPage>,
  onProgress: (done: number, total: number) => void = () => {},
  concurrency = ALL_PAGES_CONCURRENCY,
): Promise<CarsPage> {
  const start = query.offset ?? 0;
  const size = query.limit ?? ALL_PAGE_SIZE;
  const first = await fetchPage({ ...query, offset: start, limit: size });
  const pages: CarsPage[] = [first];
  let done = first.cars.length;
  onProgress(done, first.total);
  if (first.has_more) {
    const offsets: number[] = [];
    for (let o = start + size; o < first.total; o += size) offsets.push(o);
    const results: CarsPage[] = new Array(offsets.length);
    let next = 0;
    let failed = false;
    const worker = async () => {
      // after one page fails the command fails: the other workers stop asking
      while (next < offsets.length && !failed) {
        const i = next++;
        try {
          results[i] = await fetchPage({ ...query, offset: offsets[i], limit: size });
        } catch (err) {
          failed = true;
          throw err;
        }
        done += results[i].cars.length;
        onProgress(done, first.total);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, offsets.length) }, worker));
    pages.push(...results);
  }
  const seen = new Set<string>();
  const cars: Car[] = [];
  // the catalog can shift while we page; never list a car twice
  for (const p of pages) for (const car of p.cars) if (!seen.has(car.car_alias)) {
    seen.add(car.car_alias);
    cars.push(car);
  }
  return { cars, total: first.total, has_more: false };
}
