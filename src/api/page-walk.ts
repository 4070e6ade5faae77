// Walks an offset-paged list the way the spec says, "the caller pages with offset until
// has_more is false", and yields the pages in order as they arrive, so the caller can
// print each one and forget it (memory does not grow with the list).
//
// Concurrency is speculation: asking for page n+1 before page n has said has_more. It is
// earned, not assumed. The walk starts one page at a time; only after pages have agreed
// with `total` (full pages, has_more true exactly while offset + count < total) does it ask
// ahead, one more page per agreeing page up to `concurrency`, and never at or past `total`.
// And only when the network is what is slow: a page answered within `askAheadAfterMs` of
// being asked (a server on loopback) earns nothing, since asking ahead then only adds work
// to a walk that is busy anyway; so on loopback the walk stays the plain sequential one.
// Any page that disagrees (short, or has_more contradicting total) drops what was asked
// ahead and goes on one page at a time from the offset the answers give. So a server
// whose `total` is wrong costs no request beyond the spec's walk; one whose list shrinks
// while being walked costs at most concurrency - 1 requests, abandoned and never printed.
// A page that fails ends the walk: every other request is abandoned at once (its retry
// waits included), and nothing is sent afterwards. While any request waits out a
// Retry-After, no new page is asked for.

import type { CarsQuery } from './endpoints.js';
import type { Car, CarsPage } from './schemas.js';

/** The largest page the API serves (`limit` is 1..200): what a walk of every car asks for. */
export const ALL_PAGE_SIZE = 200;

export interface PageFacts {
  /** Items on this page. */
  count: number;
  total: number;
  hasMore: boolean;
}

export interface WalkOptions<P> {
  start: number;
  /** The limit asked for each page. */
  size: number;
  concurrency: number;
  fetch(offset: number, limit: number, ctl: { signal: AbortSignal; onRetryWait(ms: number): void }): Promise<P>;
  facts(page: P): PageFacts;
  now?: () => number;
  /** A page that took at least this long to answer (the network is the slow part) earns asking ahead; default 20 ms. */
  askAheadAfterMs?: number;
}

export interface WalkedPage<P> {
  page: P;
  offset: number;
  /**
   * The server said has_more but sent nothing: the offset cannot move on, so the walk ends
   * with this page and the caller says the list may be incomplete (a spec-valid answer, as
   * a mock serving random data gives; not a failure of the command).
   */
  stalled?: boolean;
}

interface InFlight<P> {
  offset: number;
  controller: AbortController;
  result: Promise<P>;
  /** How long the answer took, once it is there. */
  tookMs?: number;
}

export async function* walkPages<P>(opts: WalkOptions<P>): AsyncGenerator<WalkedPage<P>> {
  const now = opts.now ?? Date.now;
  const queue: Array<InFlight<P>> = [];
  let nextOffset = opts.start;
  let total: number | undefined;
  let agreeing = 0;
  let pausedUntil = 0;

  const launch = () => {
    const controller = new AbortController();
    const offset = nextOffset;
    nextOffset += opts.size;
    const result = opts.fetch(offset, opts.size, {
      signal: controller.signal,
      onRetryWait: (ms) => {
        pausedUntil = Math.max(pausedUntil, now() + ms);
      },
    });
    const started = now();
    const flight: InFlight<P> = { offset, controller, result };
    // awaited in order later; a page asked ahead may fail before then
    result.then(
      () => (flight.tookMs = now() - started),
      () => {},
    );
    queue.push(flight);
  };
  const dropAhead = () => {
    for (const f of queue.splice(0)) f.controller.abort();
  };
  const fill = () => {
    if (queue.length === 0) launch();
    const window = Math.min(opts.concurrency, agreeing);
    while (queue.length < window && total !== undefined && nextOffset < total && now() >= pausedUntil) launch();
  };

  try {
    fill();
    for (;;) {
      const head = queue.shift()!;
      let page: P;
      try {
        page = await head.result;
      } catch (err) {
        dropAhead();
        throw err;
      }
      const f = opts.facts(page);
      total = f.total;
      const after = head.offset + f.count;
      if (f.hasMore) {
        if (f.count === 0) {
          dropAhead();
          yield { page, offset: head.offset, stalled: true };
          return;
        }
        const agrees = f.count === opts.size && after < f.total;
        if (!agrees || (queue.length > 0 && queue[0].offset !== after)) {
          dropAhead();
          nextOffset = after;
          agreeing = 0;
          // a page that agrees but came at once (loopback) neither earns nor loses
        } else if ((head.tookMs ?? 0) >= (opts.askAheadAfterMs ?? 20)) {
          agreeing++;
        }
        fill();
      } else {
        dropAhead();
      }
      yield { page, offset: head.offset };
      if (!f.hasMore) return;
    }
  } finally {
    dropAhead();
  }
}

/**
 * Every page as one CarsPage (the reserve prompts, completions): the same walk as
 * `--all`, following has_more, collected.
 */
export async function fetchAll(
  query: CarsQuery,
  fetchPage: (q: CarsQuery, signal?: AbortSignal) => Promise<CarsPage>,
  onProgress: (done: number, total: number) => void = () => {},
  concurrency = 1,
): Promise<CarsPage> {
  const seen = new Set<string>();
  const cars: Car[] = [];
  let total = 0;
  for await (const { page } of walkPages<CarsPage>({
    start: query.offset ?? 0,
    size: query.limit ?? ALL_PAGE_SIZE,
    concurrency,
    fetch: (offset, limit, { signal }) => fetchPage({ ...query, offset, limit }, signal),
    facts: (p) => ({ count: p.cars.length, total: p.total, hasMore: p.has_more }),
  })) {
    total = page.total;
    for (const car of page.cars) {
      if (seen.has(car.car_alias)) continue;
      seen.add(car.car_alias);
      cars.push(car);
    }
    onProgress(cars.length, total);
  }
  return { cars, total, has_more: false };
}
