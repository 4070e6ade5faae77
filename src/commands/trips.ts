// `carrental trips [uuid] [--watch]`: the active and past trips, or one reservation with its
// payment status, money, invoices and cancellation outcome; --watch re-reads it until the
// status or the payment status changes.
import type { Api } from '../api/endpoints.js';
import { payloadOf } from '../api/payload.js';
import type { Trip } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { CliError, usageError } from '../errors.js';
import type { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { describePaymentStatus, groupByZone, renderTripDetail, TRIP_HEADERS, TRIP_LAYOUT, TRIP_PIPE_FIELDS, tripPipeRow, tripRow } from '../render/trip.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { parseSeconds } from '../input/parse.js';
import { resolveReservation } from '../booking/resolve-id.js';
import { parseUuidRef, type UuidRef } from '../input/uuid-ref.js';

export type TripsInput = InputOf<'trips'>;

/** The spec: "do not poll faster than every few seconds"; --watch never goes below this. */
export const MIN_WATCH_INTERVAL_S = 5;
import { askedWaitMs, readReservation } from '../booking/read.js';

interface WatchOptions {
  intervalMs: number;
  timeoutMs?: number;
}

function parseInput(input: TripsInput): { uuid?: UuidRef; watch?: WatchOptions } {
  const uuid = input.uuid === undefined ? undefined : parseUuidRef(input.uuid, 'the reservation uuid');
  const interval = parseSeconds(input.interval, '--interval', MIN_WATCH_INTERVAL_S);
  const timeout = parseSeconds(input.watchTimeout, '--watch-timeout', 1);
  if (!input.watch) {
    if (interval !== undefined || timeout !== undefined) throw usageError('--interval and --watch-timeout go with --watch');
    return { uuid };
  }
  if (!uuid) throw usageError('--watch needs a reservation uuid', 'run `carrental trips` to list them, then `carrental trips <uuid> --watch`');
  return {
    uuid,
    watch: {
      intervalMs: Math.round((interval ?? MIN_WATCH_INTERVAL_S) * 1000),
      timeoutMs: timeout === undefined ? undefined : Math.round(timeout * 1000),
    },
  };
}

export async function run(input: TripsInput, ctx: Context): Promise<number> {
  const { uuid: ref, watch } = parseInput(input);
  const { api, out } = await services(ctx);
  const cli = cliPrefix(ctx);
  if (!ref) return list(api, out, cli);
  const uuid = await resolveReservation(api, ref, cli);

  const res = await readReservation(api, uuid, out);
  if (!watch) {
    if (out.json) out.printJson(payloadOf(res));
    else renderTripDetail(out, res.data, cli, uuid);
    return 0;
  }
  const final = nothingLeftToWatch(res.data);
  if (final) {
    // nothing it watches can change any more: show it once and say why, instead of polling forever
    if (out.json) out.printJson(payloadOf(res));
    else renderTripDetail(out, res.data, cli, uuid);
    out.info(`not watching: ${final}`);
    return 0;
  }
  if (!out.json) renderTripDetail(out, res.data, cli, uuid);
  return watchTrip(ctx, api, out, uuid, res.data, watch);
}

/**
 * Why --watch would never see a change, or undefined. A cancelled or complete reservation
 * keeps its status; once nothing is owed and no refund is on its way (payment status
 * `settled`), its payment status stays too. A refund or an amount still owed can still move.
 */
export function nothingLeftToWatch(trip: Trip): string | undefined {
  if (trip.status !== 'cancelled' && trip.status !== 'complete') return undefined;
  if (trip.payment_status?.type !== 'settled') return undefined;
  return `the reservation is ${trip.status} and settled (nothing owed, no refund on its way): neither its status nor its payment status can change any more`;
}

async function list(api: Api, out: Output, cli: string): Promise<number> {
  const res = await api.trips();
  if (out.json) {
    out.printJson(payloadOf(res));
    return 0;
  }
  if (!out.tty) {
    // one trip per line, its section a field: no heading lines in the data
    out.table(TRIP_PIPE_FIELDS, [
      ...res.data.active.map((t) => tripPipeRow('active', t)),
      ...res.data.history.map((t) => tripPipeRow('history', t)),
    ]);
    if (res.data.active.length + res.data.history.length === 0) out.info('no trips');
    return 0;
  }
  const sections: Array<[string, Trip[]]> = [
    ['Active', res.data.active],
    ['History', res.data.history],
  ];
  // a short uuid is unique among all the trips listed, not only within its own table
  const layout = { ...TRIP_LAYOUT, uuidsAmong: [...res.data.active, ...res.data.history].flatMap((t) => (t.uuid ? [t.uuid] : [])) };
  sections.forEach(([title, trips], i) => {
    if (i > 0) out.line();
    if (trips.length === 0) {
      out.heading(title);
      out.info(`no ${title.toLowerCase()} trips`);
      return;
    }
    // the zone in the heading, not in each row, keeps every date on one line
    groupByZone(trips).forEach(([zone, group], j) => {
      if (j > 0) out.line();
      out.heading(zone === 'car-local' ? `${title} · car-local times (the car's city is not stated)` : `${title} · times in ${zone}`);
      out.table(TRIP_HEADERS, group.map(tripRow), layout);
    });
  });
  if (out.tty && res.data.active.length + res.data.history.length > 0) out.info(`details: \`${cli} trips <uuid>\``);
  return 0;
}

const watchKey = (trip: Trip) => JSON.stringify([trip.status, trip.payment_status ?? null]);
const paymentText = (trip: Trip) => (trip.payment_status ? describePaymentStatus(trip.payment_status, trip.car?.city) : 'payment status not stated');
const statusText = (trip: Trip) => trip.status ?? 'status not stated';

/**
 * Re-reads every interval until the status or the payment status changes (exit 0), the
 * timeout passes (exit 6) or Ctrl-C (ctx.sleep rejects: exit 130). A read that fails as
 * busy or unreachable is tried again, no sooner than its Retry-After. Time waited counts both
 * the sleeps and the clock, so an injected sleep drives it in tests.
 */
async function watchTrip(ctx: Context, api: Api, out: Output, uuid: string, first: Trip, opts: WatchOptions): Promise<number> {
  const started = ctx.now().getTime();
  let slept = 0;
  let reads = 1;
  const elapsed = () => Math.max(slept, ctx.now().getTime() - started);
  // the Retry-After of the last read, when it failed: the next read waits at least that long
  let asked = 0;
  let problem = '';
  for (;;) {
    const remaining = opts.timeoutMs === undefined ? Infinity : opts.timeoutMs - elapsed();
    if (remaining <= 0) throw timedOut(uuid, opts.timeoutMs!, reads);
    const wait = Math.max(opts.intervalMs, asked);
    if (asked > remaining) {
      // the API asked us not to read again before the watch ends: stop now, sending nothing
      out.clearProgress();
      throw new CliError('unavailable', `stopped watching ${uuid}: the API asked to wait ${Math.ceil(asked / 1000)} s before reading again (Retry-After), past --watch-timeout`, {
        hint: 'nothing changed yet as far as we know; rerun the same command later to keep watching',
      });
    }
    out.progress(`watching ${uuid}: ${statusText(first)}, ${paymentText(first)}; read ${reads}${problem}, next in ${Math.round(wait / 1000)} s (Ctrl-C to stop)`);
    if (remaining < wait) {
      // a last read sooner than the interval would poll faster than allowed: give up instead
      await ctx.sleep(remaining);
      throw timedOut(uuid, opts.timeoutMs!, reads);
    }
    await ctx.sleep(wait);
    slept += wait;
    asked = 0;
    problem = '';
    let res: Awaited<ReturnType<typeof readReservation>>;
    try {
      res = await readReservation(api, uuid, out);
    } catch (err) {
      // busy, rate limited or unreachable after the sender's retries: keep watching, no sooner than asked
      if (!(err instanceof CliError) || err.kind !== 'unavailable') throw err;
      asked = askedWaitMs(err);
      problem = ` (the last read failed: ${clean(err.message)})`;
      continue;
    }
    reads += 1;
    const trip = res.data;
    if (watchKey(trip) === watchKey(first)) continue;
    out.clearProgress();
    const changes: string[] = [];
    if (trip.status !== first.status) changes.push(`status ${statusText(first)} → ${statusText(trip)}`);
    if (paymentText(trip) !== paymentText(first)) changes.push(`payment ${paymentText(first)} → ${paymentText(trip)}`);
    out.info(`changed: ${changes.join('; ') || 'payment status'}`);
    if (out.json) out.printJson(payloadOf(res));
    else {
      out.line();
      renderTripDetail(out, trip, cliPrefix(ctx), uuid);
    }
    return 0;
  }
}

function timedOut(uuid: string, timeoutMs: number, reads: number): CliError {
  return new CliError('unavailable', `no change in the status or payment status of ${uuid} after ${Math.round(timeoutMs / 1000)} s (${reads} reads)`, {
    hint: 'nothing changed yet; rerun the same command to keep watching',
  });
}
