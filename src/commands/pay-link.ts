// `carrental pay-link <uuid>`: the link where the customer pays rent or the deposit. The
// API never pays; with --wait we re-read the reservation (no faster than every 5 s) until
// its payment status reads `settled`.
import type { ApiResponse } from '../api/client.js';
import type { Api } from '../api/endpoints.js';
import { payloadOf } from '../api/payload.js';
import type { ManualAction, Trip } from '../api/schemas.js';
import { openUrl } from '../cli/browser.js';
import type { Context } from '../cli/context.js';
import { requireKey, sandboxLinkNote, services } from '../cli/services.js';
import { CliError, usageError } from '../errors.js';
import { printAction } from '../render/action.js';
import type { Output } from '../render/output.js';
import { clean } from '../render/sanitize.js';
import { describePaymentStatus } from '../render/trip.js';
import { cliPrefix } from './confirm.js';
import { parseSeconds } from './parse.js';
import { parseUuidRef, resolveReservation } from './resolve-id.js';
import { askedWaitMs, readReservation } from './trips.js';

export interface PayLinkInput {
  uuid?: string;
  type?: 'rent' | 'deposit';
  open?: boolean;
  wait?: boolean;
  waitTimeout?: string;
}

/** The spec's polling guidance: not faster than every few seconds. */
export const WAIT_INTERVAL_MS = 5_000;
/** --wait gives up after an hour unless told otherwise, so a forgotten --wait never hangs a script forever. */
export const DEFAULT_WAIT_TIMEOUT_S = 3_600;

/** 409s of the payment link, said plainly (exit 5). */
function explainLinkError(err: unknown, uuid: string, type: 'rent' | 'deposit', cli: string): unknown {
  if (!(err instanceof CliError)) return err;
  const code = err.api?.error_code;
  if (code === 'nothing_to_pay') {
    return new CliError('conflict', `nothing to pay: reservation ${uuid} has no unpaid ${type === 'rent' ? 'rent' : 'deposit'} invoice`, {
      api: err.api,
      hint: `\`${cli} trips ${uuid}\` shows its payment status${type === 'rent' ? '; a deposit is paid with --type deposit' : ''}`,
    });
  }
  if (code === 'reservation_cancelled') {
    return new CliError('conflict', `reservation ${uuid} is cancelled: there is nothing to pay`, {
      api: err.api,
      hint: `\`${cli} trips ${uuid}\` shows the cancellation outcome`,
    });
  }
  return err;
}

export async function run(input: PayLinkInput, ctx: Context): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the reservation uuid');
  const type = input.type ?? 'rent';
  const timeoutS = parseSeconds(input.waitTimeout, '--wait-timeout', 1);
  if (timeoutS !== undefined && !input.wait) throw usageError('--wait-timeout goes with --wait');

  const { api, out, target } = await services(ctx);
  requireKey(target);
  // a prefix becomes the one reservation of the customer it names, before anything else
  const uuid = await resolveReservation(api, ref, cliPrefix(ctx));
  const cli = cliPrefix(ctx);
  let res: ApiResponse<ManualAction>;
  try {
    res = await api.paymentLink(uuid, type);
  } catch (err) {
    throw explainLinkError(err, uuid, type, cli);
  }
  let opened: boolean | string | undefined;
  if (input.open) {
    const result = await openUrl(res.data.url, ctx);
    opened = result.opened ? true : result.reason;
  }
  printAction(out, res.data, {
    opened,
    note: input.wait && target.embedded?.ownsStablePort ? undefined : sandboxLinkNote(target),
    payload: payloadOf(res),
    nextStep: input.wait ? 'this command waits until the reservation reads as settled' : `run \`${cli} trips ${uuid}\` to see whether it is settled`,
  });
  if (!input.wait) return 0;
  return waitUntilSettled(ctx, api, out, uuid, (timeoutS ?? DEFAULT_WAIT_TIMEOUT_S) * 1000);
}

/**
 * Reads the reservation every WAIT_INTERVAL_MS until payment_status.type is `settled`.
 * Elapsed time is the larger of the wall clock and the time slept, so an injected sleep
 * (tests) advances the deadline too. A read that fails transiently (a 500 while the
 * payment is being processed is expected) is tried again at the next tick.
 */
export async function waitUntilSettled(ctx: Context, api: Api, out: Output, uuid: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let slept = 0;
  let checks = 0;
  const elapsed = () => Math.max(slept, Date.now() - started);
  const stopHint = `the link stays valid; \`${cliPrefix(ctx)} trips ${uuid}\` shows the payment status`;
  // the Retry-After of the last read, when it failed: the next read waits at least that long
  let asked = 0;
  try {
    for (;;) {
      const left = timeoutMs - elapsed();
      if (left <= 0) {
        out.clearProgress();
        throw new CliError('unavailable', `not settled after ${Math.round(elapsed() / 1000)} s of waiting`, {
          hint: `${stopHint}; rerun with --wait to keep waiting (safe: it only reads)`,
        });
      }
      if (asked > left) {
        // the API asked us not to read again before the wait ends: stop now, sending nothing
        out.clearProgress();
        throw new CliError('unavailable', `stopped waiting: the API asked to wait ${Math.ceil(asked / 1000)} s before reading again (Retry-After), past --wait-timeout`, {
          hint: `${stopHint}; rerun with --wait later to keep waiting (safe: it only reads)`,
        });
      }
      const delay = Math.min(Math.max(WAIT_INTERVAL_MS, asked), left);
      await ctx.sleep(delay);
      slept += delay;
      asked = 0;
      let trip: Trip;
      try {
        trip = (await readReservation(api, uuid, out)).data;
      } catch (err) {
        if (err instanceof CliError && err.kind === 'unavailable') {
          asked = askedWaitMs(err);
          out.progress(`could not read the reservation (${clean(err.message)}); trying again${asked ? ` in ${Math.ceil(asked / 1000)} s, as the API asked` : ''} (Ctrl-C to stop)`);
          continue;
        }
        throw err;
      }
      checks += 1;
      if (trip.payment_status?.type === 'settled') {
        out.clearProgress();
        out.info(`settled: reservation ${uuid} has nothing left to pay`);
        return 0;
      }
      if (trip.status === 'cancelled') {
        out.clearProgress();
        throw new CliError('conflict', `reservation ${uuid} was cancelled while waiting for the payment`, { hint: stopHint });
      }
      const status = trip.payment_status ? describePaymentStatus(trip.payment_status, trip.car?.city) : 'payment status not reported';
      out.progress(`waiting for the payment: ${status} (checked ${checks}×, ${Math.round(elapsed() / 1000)} s; Ctrl-C to stop)`);
    }
  } catch (err) {
    if (err instanceof CliError && err.kind === 'interrupted') {
      out.clearProgress();
      out.info(`stopped waiting; ${stopHint}`);
    }
    throw err;
  }
}
