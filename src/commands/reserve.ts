// `carrental reserve`: validate, quote (with the key, so personal promo eligibility is
// checked), show the quote, confirm, then create the reservation through the journaled,
// idempotent write. A rerun of the same command after any failure reuses the same key.
import { NO_RETRY } from '../api/client.js';
import { payloadOf } from '../api/payload.js';
import type { Car, Quote, ReservationCreateRequest } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { requireKey, services } from '../session/services.js';
import { CliError, formatErrorLine, usageError } from '../errors.js';
import { isRelativeDate, zoneOf } from '../input/dates.js';
import { formatLocal } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import { Output } from '../render/output.js';
import { clean } from '../text/sanitize.js';
import { cliPrefix, requireConfirmable } from '../cmdkit/confirm.js';
import { formatAge, isDefinitiveRefusal, JournaledWrite, type WriteCommand } from '../booking/journaled-write.js';
import { cliWriteWords } from '../cmdkit/rerun.js';
import { createCommand, createReservation } from '../booking/reservations.js';
import { decisionKey, journalDecision, previewOf, printDryRun, refuseReadOnly, tripFromList } from '../cmdkit/dry-run.js';
import { parseAlias, parseWriteKey } from '../input/parse.js';
import { printQuote, QUOTE_CAVEAT } from '../render/quote.js';
import { equivalentCommand, inquirerPrompter, promptReservation, reaskRefused, refusedField, type PromptedReservation, type Prompter } from '../cmdkit/reserve-prompts.js';
import { buildCreateRequest, type ReserveDraft } from '../booking/create-request.js';
import { checkPartialDates, clockNow, refusePast, resolvedLine, resolvePartialDates, zoneOrRefuse } from '../cmdkit/trip-dates.js';

export type ReserveInput = InputOf<'reserve'>;

export function run(input: ReserveInput, ctx: Context): Promise<number> {
  return reserve(input, ctx, inquirerPrompter(ctx));
}

/** Every value the command line gave, validated; nothing is sent before this passes. */
export function parseReserveInput(input: ReserveInput): ReserveDraft & { key?: string } {
  const alias = input.alias !== undefined ? parseAlias(input.alias) : undefined;
  // absolute or relative (`tomorrow 10:00`, resolved once the car's zone is known), or --days
  const { from, to, days } = checkPartialDates({ from: input.from, to: input.to, days: input.days });
  let deliveryAddress: string | undefined;
  if (input.deliveryAddress !== undefined) {
    deliveryAddress = input.deliveryAddress.trim();
    if (!deliveryAddress) throw usageError('--delivery-address is empty');
  }
  let extras: string[] | undefined;
  if (input.extra !== undefined) {
    const trimmed = input.extra.map((e) => e.trim());
    if (trimmed.some((e) => !e)) throw usageError('--extra needs an item type (see `carrental car <alias>`)');
    extras = trimmed;
  }
  let promo: string | undefined;
  if (input.promo !== undefined) {
    // Promo codes are case-insensitive (the server upper-cases them): one spelling, so
    // `--promo save10` and `--promo SAVE10` are the same command and the same body.
    promo = input.promo.trim().toUpperCase();
    if (!promo) throw usageError('--promo is empty');
  }
  return {
    alias,
    city: input.city,
    from,
    to,
    days,
    protection: input.protection,
    mileage: input.mileage,
    deliveryAddress,
    extras,
    promo,
    key: parseWriteKey(input.idempotencyKey),
  };
}

function describeOptions(body: ReservationCreateRequest): string {
  const o = body.options;
  const where = o.delivery_type === 'delivery' ? `delivery to ${o.delivery_address}` : 'pickup';
  return `${o.protection_plan} protection, ${o.mileage_type} mileage, ${where}`;
}

/**
 * The conversation before the booking goes to stderr, so stdout carries only the result
 * (the uuid) in a pipe or with --json.
 */
function stderrOutput(ctx: Context): Output {
  return new Output({ io: { ...ctx.io, stdout: ctx.io.stderr }, globals: { ...ctx.globals, json: false } }, { forPeople: true });
}

/** A quote refused for an unknown extra: say which extras the car has. */
function withExtrasHint(err: unknown, car: Car): unknown {
  if (!(err instanceof CliError) || err.api?.error_code !== 'invalid_extra') return err;
  const offered = (car.prices.extras ?? []).flatMap((e) => (e.item_type ? [e.item_type] : []));
  return new CliError(err.kind, err.message, {
    api: err.api,
    hint: offered.length ? `this car offers: ${offered.join(', ')}` : 'this car offers no extras',
  });
}

export async function reserve(input: ReserveInput, ctx: Context, prompter: Prompter): Promise<number> {
  const { key, ...draft } = parseReserveInput(input);
  const missing = [!draft.alias && 'a car alias', !draft.from && '--from', !draft.to && draft.days === undefined && '--to'].filter(Boolean) as string[];
  if (missing.length && !ctx.canPrompt()) {
    throw usageError(`missing ${missing.join(', ')}`, 'on a terminal `carrental reserve` asks for what is missing; in a script give the alias, --from and --to');
  }
  if (input.quote === false && !input.dryRun) throw usageError('--no-quote goes with --dry-run (a reservation is always quoted and confirmed first)');
  // a dry run sends nothing, so there is nothing to confirm
  if (!input.dryRun) requireConfirmable(ctx, 'reserve');
  const dry = input.dryRun ? { quote: input.quote !== false } : undefined;

  const { api, out, target } = await services(ctx, { dryRun: input.dryRun });
  requireKey(target);

  let car: Car;
  let complete: ReserveDraft & { alias: string; from: string; to: string };
  // relative dates and prompts use the API's clock (the sandbox's, when moved)
  const now = await clockNow(ctx, target);
  const promptDeps = { api, prompter, defaultCity: target.profileData.city, info: (l: string) => out.info(l), now };
  let prompted: PromptedReservation | undefined;
  if (missing.length) {
    prompted = await promptReservation(draft, promptDeps);
    car = prompted.car;
    complete = prompted;
  } else {
    if (!isRelativeDate(draft.from!)) refusePast(draft.from!, '--from', now, undefined);
    car = (await api.getCar(draft.alias!)).data;
    complete = draft as typeof complete;
    if (draft.days !== undefined || isRelativeDate(draft.from!) || isRelativeDate(draft.to ?? '')) {
      complete = { ...draft, ...resolvePartialDates(draft, now, zoneOrRefuse(car.city)) } as typeof complete;
      out.info(resolvedLine(complete, zoneOf(car.city)));
    }
    refusePast(complete.from, '--from', now, zoneOf(car.city));
  }
  // the choice as last settled (re-asked answers included), for the equivalent command
  const settled = { choice: complete };
  try {
    for (;;) {
      try {
        return await book(ctx, prompter, settled, car, key, input.new === true, prompted && { prompted, deps: promptDeps }, dry);
      } catch (err) {
        // After prompts, the create itself may refuse an answer the quote accepted (the car
        // taken meanwhile, a one-time promo used): the server decided and nothing was booked
        // (the journal entry is settled), so ask again for that answer only, quote again.
        const field = prompted && isDefinitiveRefusal(err) ? refusedField(err) : undefined;
        if (!prompted || !field || !(err instanceof CliError)) throw err;
        out.warn(`${formatErrorLine(err)}; nothing was booked, asking again`.replace(/^error: /, ''));
        prompted = await reaskRefused(field, { ...prompted, ...settled.choice }, promptDeps);
        settled.choice = prompted;
      }
    }
  } finally {
    // after prompts: the same reservation as one line, booked or not (to rerun or script it)
    if (prompted) out.info(`the same without prompts: ${equivalentCommand(cliPrefix(ctx), settled.choice)}`);
  }
}

async function book(
  ctx: Context,
  prompter: Prompter,
  settled: { choice: ReserveDraft & { alias: string; from: string; to: string } },
  car: Car,
  key: string | undefined,
  fresh: boolean,
  reask: { prompted: PromptedReservation; deps: Parameters<typeof reaskRefused>[2] } | undefined,
  dry?: { quote: boolean },
): Promise<number> {
  const { api, out, target } = await services(ctx);
  let complete = settled.choice;
  let body = buildCreateRequest(complete);
  let command = createCommand(body, { key, fresh });
  const writer = new JournaledWrite(ctx, out, target, undefined, cliWriteWords({ create: true }));

  let resuming = await writer.pending(command, { readOnly: !!dry });
  const talk = stderrOutput(ctx);
  const carLine = `${clean(car.name)} (${clean(car.car_alias)})`;
  let confirmText: string | undefined;
  if (!resuming && (!dry || dry.quote)) {
    let quote: Quote | undefined;
    for (;;) {
      try {
        quote = (await api.quote(body, true)).data;
        break;
      } catch (err) {
        // An identical reserve in another terminal may have taken the car meanwhile: then
        // this one joins it (same key) instead of failing.
        resuming = err instanceof CliError && err.api?.status === 409 ? await writer.pending(command, { readOnly: !!dry }) : undefined;
        if (resuming) break;
        // after prompts, an answer the API refused is asked again, and only that one
        const field = reask && refusedField(err);
        if (!reask || !field || !(err instanceof CliError)) throw withExtrasHint(err, car);
        out.warn(`${formatErrorLine(err)}; asking again`.replace(/^error: /, ''));
        reask.prompted = await reaskRefused(field, { ...reask.prompted, ...complete }, reask.deps);
        complete = settled.choice = reask.prompted;
        body = buildCreateRequest(complete);
        command = createCommand(body, { key, fresh });
      }
    }
    if (quote) {
      printQuote(quote, body, talk, car, 'words');
      talk.pairs([
        ['Car', carLine],
        ['Options', describeOptions(body)],
      ]);
      out.info(QUOTE_CAVEAT);
      confirmText = `Reserve ${clean(car.name)} for ${formatCents(quote.final_total)} (plus a ${formatCents(quote.deposit_cents)} refundable deposit)?`;
    }
  }
  if (resuming) {
    if (!dry) writer.announceResume(resuming, key);
    if (resuming.state === 'pending') {
      // If the earlier attempt committed, the car is now taken by that very reservation and
      // a fresh quote would be refused; the rerun must reach the server with the old key.
      out.info('no new quote: the earlier attempt may already have booked this car');
      talk.pairs([
        ['Car', carLine],
        ['Check-in', formatLocal(body.date_checkin, car.city)],
        ['Check-out', formatLocal(body.date_checkout, car.city)],
        ['Options', describeOptions(body)],
      ]);
      confirmText = `Finish reserving ${clean(car.name)}?`;
    }
    // A done entry needs no confirmation: the same key cannot book anything new.
  }

  if (dry) {
    refuseReadOnly(target);
    const journal = journalDecision(resuming, ctx.now(), key);
    const request = await previewOf(api, (a) => a.createReservation(body, decisionKey(journal), NO_RETRY));
    const quoted = !resuming && dry.quote;
    const notes = [quoted ? 'the quote above was read from the API (a read; --no-quote skips it)' : !resuming ? 'no quote was asked (--no-quote)' : 'no quote was asked: the journal already holds this command'];
    if (journal.decision === 'replay' && journal.result) {
      // the real run reads the replayed reservation and refuses to claim a cancelled one
      const trip = await tripFromList(api, journal.result, cliPrefix(ctx)).catch(() => undefined);
      if (trip?.status === 'cancelled') notes.push(`reservation ${journal.result} has been cancelled since: the real run books nothing and exits 5 (--new books anew)`);
    }
    return printDryRun(out, { command: 'reserve', request, journal, notes });
  }

  if (confirmText !== undefined && !ctx.globals.yes && !(await prompter.confirm(confirmText, false))) {
    out.info('not reserved: nothing was sent');
    return 1;
  }

  const created = await createReservation({ api, writer, out, now: () => ctx.now() }, command, body, {
    report: async (c) => {
      // a cancelled one is not a booking: reported below as the refusal it is
      if (c.cancelledSince) return;
      if (c.answeredByAnotherRun) {
        out.info(`already reserved by this same command ${formatAge(ctx.now().getTime() - Date.parse(c.doneBefore!))} ago (another run): ${c.uuid}`);
      }
      await printCreated(ctx, out, c.uuid, c.status);
    },
  });
  if (created.cancelledSince) {
    throw new CliError('conflict', `reservation ${created.uuid}, made by this same command ${created.cancelledSince} ago, has been cancelled since: nothing new was booked`, {
      hint: `to book this car again, rerun the command with --new (\`${cliPrefix(ctx)} trips ${created.uuid}\` shows the cancelled one)`,
    });
  }
  return 0;
}

/**
 * `status` is the reservation's current status when it was read (a replayed answer), else
 * it is new. `--json` prints an object (the API's payload is a bare uuid string), so that
 * `--jq .uuid` and `--json uuid` work; a failure to print is exit 7 naming the reservation.
 */
async function printCreated(ctx: Context, out: Output, uuid: string, status?: string): Promise<void> {
  const cli = cliPrefix(ctx);
  const isNew = status === undefined || status === 'new';
  const next = isNew ? `${cli} pay-link ${uuid}` : `${cli} trips ${uuid}`;
  await out.committed(
    `reserved ${uuid}`,
    () => {
      if (out.json) out.printJson(reserveJson(uuid, status ?? 'new', next));
      else if (!out.tty) out.line(uuid);
      else out.pairs([
        ['reservation', uuid],
        ['status', isNew ? 'new: unpaid, not yet a paid booking or a guaranteed hold' : clean(status)],
      ]);
    },
    `the reservation exists (do not book again): \`${cli} trips ${uuid}\` shows it; next: \`${next}\``,
  );
  if (isNew) {
    out.info(`next: pay the rent with \`${next}\` (--open opens the page, --wait waits until it is paid)`);
  } else {
    out.info(`\`${next}\` shows it`);
  }
}

/** The fields of `reserve --json`, known before anything is sent (so `--json FIELDS` is checked first). */
export const RESERVE_JSON_FIELDS = ['uuid', 'status', 'next'] as const;

function reserveJson(uuid: string, status: string, next: string): Record<(typeof RESERVE_JSON_FIELDS)[number], string> {
  return { uuid, status: clean(status), next };
}
