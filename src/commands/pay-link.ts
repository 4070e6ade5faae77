// `carrental pay-link <uuid>`: the link where the customer pays rent or the deposit. The
// API never pays; with --wait we re-read the reservation (no faster than every 5 s) until
// the payment asked for is made: rent, nothing owed; deposit, the DEPOSIT invoice held or
// paid. While this command's own embedded sandbox serves the page, it keeps serving it a
// short grace period after that (LINK_GRACE_MS, sandboxLinkNote in src/session/services.ts).
import type { ApiResponse } from '../api/client.js';
import type { Api } from '../api/endpoints.js';
import { payloadOf } from '../api/payload.js';
import type { Invoice, ManualAction, Trip } from '../api/schemas.js';
import { openUrl } from '../cmdkit/browser.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { requireKey, services } from '../session/services.js';
import { LINK_GRACE_MS, sandboxLinkNote } from '../session/embedded-sandbox.js';
import { CliError, usageError } from '../errors.js';
import { printAction } from '../render/action.js';
import type { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { describePaymentStatus } from '../render/trip.js';
import { depositState } from '../render/trip-booking.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { LINK_NOTE, previewOf, printDryRun } from '../cmdkit/dry-run.js';
import { parseSeconds } from '../input/parse.js';
import { resolveReservation } from '../booking/resolve-id.js';
import { parseUuidRef } from '../input/uuid-ref.js';
import { askedWaitMs, readReservation } from '../booking/read.js';

export type PayLinkInput = InputOf<'pay-link'>;

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
  if (input.dryRun && (input.open || input.wait)) throw usageError(`--dry-run creates no link, so there is nothing to ${input.open ? '--open' : '--wait'} for`);

  const { api, out, target } = await services(ctx, { dryRun: input.dryRun });
  requireKey(target);
  // a prefix becomes the one reservation of the customer it names, before anything else
  const uuid = await resolveReservation(api, ref, cliPrefix(ctx));
  const cli = cliPrefix(ctx);
  if (input.dryRun) return printDryRun(out, { command: 'pay-link', request: await previewOf(api, (a) => a.paymentLink(uuid, type)), notes: [LINK_NOTE] });
  const served = target.embedded?.links === 'shared' ? undefined : target.embedded;
  if (input.wait && served) {
    // the done page is honest about its own end: it closes with this command
    served.setDonePageNotice(
      `This page is served by the command that gave you the link (${cli} pay-link ${uuid} --wait). It closes when that command stops: ${LINK_GRACE_MS / 1000} s after it sees the payment (sooner on Ctrl-C or at its --wait-timeout); afterwards, ${cli} trips ${uuid} shows the trip.`,
    );
  }
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
    ...sandboxLinkNote(target, input.wait ? 'wait' : 'can-wait'),
    payload: payloadOf(res),
    nextStep: input.wait
      ? `this command waits until ${type === 'rent' ? 'nothing is owed' : 'the deposit is authorised (held) or paid'}`
      : `run \`${cli} trips ${uuid}\` to see whether it is settled`,
  });
  if (!input.wait) return 0;
  const code = await waitUntilPaid(ctx, api, out, uuid, type, (timeoutS ?? DEFAULT_WAIT_TIMEOUT_S) * 1000);
  if (code === 0 && served) await keepServing(ctx, out, served.linkPort);
  return code;
}

/**
 * The payment is seen, but the customer's browser may still be on its way to the done page
 * (and its "View the trip" link): this command's own sandbox keeps serving LINK_GRACE_MS
 * before it exits and takes the page down. Ctrl-C ends the grace early; the payment is
 * made either way, so that is still exit 0.
 */
async function keepServing(ctx: Context, out: Output, port: number): Promise<void> {
  out.info(`the page and its done page stay served on port ${port} for ${LINK_GRACE_MS / 1000} s more, then this command exits and they close (Ctrl-C closes them now)`);
  try {
    await ctx.sleep(LINK_GRACE_MS);
  } catch (err) {
    if (!(err instanceof CliError && err.kind === 'interrupted')) throw err;
  }
}

/** What one read of the reservation says about the payment the command asked for. */
export interface PaymentSeen {
  /** The asked-for payment is made (rent: nothing owed; deposit: held or paid). */
  done: boolean;
  /** What was seen, in the user's words, for the progress line and the final line. */
  saw: string;
}

const DEPOSIT_WORDS = {
  held: 'the deposit is authorised (a hold on the card, not a charge)',
  paid: 'the deposit is paid',
  due: 'the deposit is still due',
  none: 'no deposit invoice is open',
  unknown: 'the deposit state is not reported',
} as const;

function rentWords(trip: Trip): string {
  const ps = trip.payment_status;
  if (!ps) return 'the payment status is not reported';
  if (ps.type === 'settled') return 'nothing is owed (payment status settled)';
  if (ps.type === 'refund') return `nothing is owed (${describePaymentStatus(ps, trip.car?.city)})`;
  return `rent ${describePaymentStatus(ps, trip.car?.city)}`;
}

/**
 * Rent: done once nothing is owed (`payment_status` settled, or a refund on its way);
 * `payment_status` speaks only of what is owed, never of the deposit. Deposit: done once
 * the DEPOSIT invoice is a HOLD (authorised) or PAID. Each line also says the other half,
 * so a settled rent with the deposit still due reads as such.
 */
export function paymentSeen(type: 'rent' | 'deposit', trip: Trip, invoices: readonly Invoice[] | undefined): PaymentSeen {
  const deposit = depositState(invoices);
  const rentDone = trip.payment_status?.type === 'settled' || trip.payment_status?.type === 'refund';
  if (type === 'rent') {
    const other = deposit === 'due' ? `; ${DEPOSIT_WORDS.due}` : '';
    return { done: rentDone, saw: `${rentWords(trip)}${other}` };
  }
  const other = trip.payment_status && !rentDone ? `; ${rentWords(trip)}` : '';
  return { done: deposit === 'held' || deposit === 'paid', saw: `${DEPOSIT_WORDS[deposit]}${other}` };
}

/** The line --wait ends with: what it saw, and the other half when it is still open. */
export function finalLine(type: 'rent' | 'deposit', uuid: string, trip: Trip, invoices: readonly Invoice[] | undefined, cli: string): string {
  const deposit = depositState(invoices);
  const ps = trip.payment_status;
  if (type === 'rent') {
    const refund = ps?.type === 'refund' ? ` (${describePaymentStatus(ps, trip.car?.city)})` : '';
    const other = deposit === 'due' ? `; the deposit is still due (\`${cli} pay-link ${uuid} --type deposit\`)` : '';
    return `settled: reservation ${uuid} has nothing left to pay${refund}${other}`;
  }
  const other = ps && ps.type === 'to_pay' ? `; rent is still owed, ${describePaymentStatus(ps, trip.car?.city)} (\`${cli} pay-link ${uuid}\`)` : '';
  return `deposit ${deposit === 'held' ? 'authorised' : 'paid'}: reservation ${uuid}: ${DEPOSIT_WORDS[deposit]}${other}`;
}

/**
 * Reads the reservation every WAIT_INTERVAL_MS until the payment asked for is made (see
 * paymentSeen). Elapsed time is the larger of the wall clock and the time slept, so an
 * injected sleep (tests) advances the deadline too. A read that fails transiently (a 500
 * while the payment is being processed is expected) is tried again at the next tick.
 */
export async function waitUntilPaid(
  ctx: Context,
  api: Api,
  out: Output,
  uuid: string,
  type: 'rent' | 'deposit',
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  let slept = 0;
  let checks = 0;
  const elapsed = () => Math.max(slept, Date.now() - started);
  const cli = cliPrefix(ctx);
  const stopHint = `the link stays valid; \`${cli} trips ${uuid}\` shows the payment status`;
  const askedFor = type === 'rent' ? 'the rent payment' : 'the deposit';
  // the Retry-After of the last read, when it failed: the next read waits at least that long
  let asked = 0;
  let last = '';
  try {
    for (;;) {
      const left = timeoutMs - elapsed();
      if (left <= 0) {
        out.clearProgress();
        throw new CliError('unavailable', `${type === 'rent' ? 'not settled' : 'deposit not authorised'} after ${Math.round(elapsed() / 1000)} s of waiting${last ? `: ${last}` : ''}`, {
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
      let invoices: readonly Invoice[] | undefined;
      try {
        trip = (await readReservation(api, uuid, out)).data;
        invoices = trip.invoices;
        // the detail normally carries its invoices; a server that leaves them out is asked for them
        if (type === 'deposit' && !invoices) invoices = (await api.reservationInvoices(uuid)).data;
      } catch (err) {
        if (err instanceof CliError && err.kind === 'unavailable') {
          asked = askedWaitMs(err);
          out.progress(`could not read the reservation (${clean(err.message)}); trying again${asked ? ` in ${Math.ceil(asked / 1000)} s, as the API asked` : ''} (Ctrl-C to stop)`);
          continue;
        }
        throw err;
      }
      checks += 1;
      const seen = paymentSeen(type, trip, invoices);
      last = seen.saw;
      if (seen.done) {
        out.clearProgress();
        out.info(finalLine(type, uuid, trip, invoices, cli));
        return 0;
      }
      if (trip.status === 'cancelled') {
        out.clearProgress();
        throw new CliError('conflict', `reservation ${uuid} was cancelled while waiting for ${askedFor}`, { hint: stopHint });
      }
      out.progress(`waiting for ${askedFor}: ${seen.saw} (checked ${checks}×, ${Math.round(elapsed() / 1000)} s; Ctrl-C to stop)`);
    }
  } catch (err) {
    if (err instanceof CliError && err.kind === 'interrupted') {
      out.clearProgress();
      out.info(`stopped waiting; ${stopHint}`);
    }
    throw err;
  }
}
