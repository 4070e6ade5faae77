// `carrental cancel <uuid>`: show what will be cancelled, confirm, send the DELETE through
// the journaled idempotent write, then read the reservation and show its
// cancellation_outcome (the DELETE itself only says "OK").
import { NO_RETRY, type ApiResponse } from '../api/client.js';
import { payloadOf } from '../api/payload.js';
import type { Trip } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { requireKey, services } from '../session/services.js';
import { CliError } from '../errors.js';
import { formatLocal } from '../render/dates.js';
import type { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { NOT_STATED, renderPairs, stated } from '../render/table.js';
import { renderCancellationMoney } from '../render/cancellation.js';
import type { JournalEntry } from '../store/journal.js';
import { cliPrefix, requireConfirmable } from '../cmdkit/confirm.js';
import { JournaledWrite, type WriteCommand } from '../booking/journaled-write.js';
import { cliWriteWords } from '../cmdkit/rerun.js';
import { parseWriteKey } from '../input/parse.js';
import { cancelCommand, commitCancel, planCancel } from '../booking/reservations.js';
import { decisionKey, journalDecision, previewOf, printDryRun, refuseReadOnly, tripFromList } from '../cmdkit/dry-run.js';
import { resolveReservation } from '../booking/resolve-id.js';
import { parseUuidRef } from '../input/uuid-ref.js';
import { inquirerPrompter, type Prompter } from '../cmdkit/reserve-prompts.js';

export type CancelInput = InputOf<'cancel'>;

export function run(input: CancelInput, ctx: Context): Promise<number> {
  return cancel(input, ctx, inquirerPrompter(ctx));
}

function summaryPairs(trip: Trip, uuid: string): Array<[string, string | undefined]> {
  const city = trip.car?.city;
  return [
    ['reservation', trip.uuid ?? uuid],
    ['car', trip.car ? `${clean(trip.car.name)} (${clean(trip.car.car_alias)})` : NOT_STATED],
    ['check-in', stated(trip.date_checkin, (d) => formatLocal(d, city))],
    ['check-out', stated(trip.date_checkout, (d) => formatLocal(d, city))],
    ['status', stated(trip.status, clean)],
  ];
}

function printOutcome(out: Output, res: ApiResponse<Trip>, uuid: string): void {
  if (out.json) {
    out.printJson(payloadOf(res));
    return;
  }
  const trip = res.data;
  out.pairs([['reservation', trip.uuid ?? uuid], ['trip status', stated(trip.status, clean)]]);
  if (trip.cancellation_outcome) renderCancellationMoney(out, trip, trip.cancellation_outcome);
  else out.info('the API reported no cancellation outcome for this reservation');
}

export async function cancel(input: CancelInput, ctx: Context, prompter: Prompter): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the reservation uuid');
  const key = parseWriteKey(input.idempotencyKey);
  if (!input.dryRun) requireConfirmable(ctx, 'cancel');

  const { api, out, target } = await services(ctx, { dryRun: input.dryRun });
  requireKey(target);
  // a prefix becomes the one reservation of the customer it names, before anything else
  const uuid = await resolveReservation(api, ref, cliPrefix(ctx));
  const writer = new JournaledWrite(ctx, out, target, undefined, cliWriteWords({ create: false }));
  if (input.dryRun) return dryCancel(ctx, uuid, key, await writer.pending(cancelCommand(uuid, key), { readOnly: true }));
  const deps = { api, writer, out, now: () => ctx.now() };
  const plan = await planCancel(deps, uuid, key);
  const { before: beforeRes, resuming } = plan;
  const before = beforeRes.data;
  if (plan.alreadyCancelled) {
    out.info(`reservation ${uuid} is already cancelled: nothing was sent`);
    printOutcome(out, beforeRes, uuid);
    return 0;
  }

  ctx.io.stderr.write(renderPairs(summaryPairs(before, uuid), { tty: !!ctx.io.stderr.isTTY }));
  // A done entry needs no confirmation: replaying its key cannot cancel (or charge) anything new.
  if (resuming?.state !== 'done') {
    out.info('a cancellation fee may apply under the cancellation rules; an eligible deposit hold is released');
    if (!ctx.globals.yes && !(await prompter.confirm(`Cancel the reservation${before.car ? ` of ${clean(before.car.name)}` : ` ${uuid}`}?`, false))) {
      out.info('not cancelled: nothing was sent');
      return 1;
    }
  }

  const { after, readError } = await commitCancel(deps, plan);
  if (!after) {
    const why = readError instanceof CliError ? readError.message : String(readError);
    out.warn(`cancelled, but the outcome could not be read (${why}); see \`${cliPrefix(ctx)} trips ${uuid}\``);
    return 0;
  }
  // the cancellation is done: a failure to print it is exit 7 naming it, not an API failure
  await out.committed(`cancelled reservation ${uuid}`, () => printOutcome(out, after, uuid), `\`${cliPrefix(ctx)} trips ${uuid}\` shows its cancellation outcome; do not cancel again`);
  out.info(`\`${cliPrefix(ctx)} trips ${uuid}\` shows the invoices and the payment status`);
  return 0;
}

/** `cancel --dry-run`: the status from the trips list (tripFromList), then the DELETE it would send. */
async function dryCancel(ctx: Context, uuid: string, key: string | undefined, resuming: JournalEntry | undefined): Promise<number> {
  const { api, out, target } = await services(ctx);
  refuseReadOnly(target);
  const trip = await tripFromList(api, uuid, cliPrefix(ctx));
  if (!resuming && trip.status === 'cancelled') {
    out.info(`reservation ${uuid} is already cancelled: cancel would send nothing`);
    if (out.json) out.printJson({ dry_run: true, command: 'cancel', request: null, journal: null, notes: ['already cancelled: nothing would be sent'] });
    return 0;
  }
  const journal = journalDecision(resuming, ctx.now(), key);
  const request = await previewOf(api, (a) => a.cancelReservation(uuid, decisionKey(journal), NO_RETRY));
  const notes = [`reservation ${uuid}: ${clean(trip.status ?? 'status not stated')}${trip.car ? `, ${clean(trip.car.name)}` : ''}`];
  return printDryRun(out, { command: 'cancel', request, journal, notes });
}
