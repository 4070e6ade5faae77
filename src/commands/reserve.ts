// `carrental reserve`: validate, quote (with the key, so personal promo eligibility is
// checked), show the quote, confirm, then create the reservation through the journaled,
// idempotent write. A rerun of the same command after any failure reuses the same key.
import { payloadOf } from '../api/payload.js';
import type { Car, Quote, ReservationCreateRequest } from '../api/schemas.js';
import type { Context } from '../cli/context.js';
import { requireKey, services } from '../cli/services.js';
import { CliError, formatErrorLine, usageError } from '../errors.js';
import { formatLocal, isRelativeDate, zoneOf } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import { Output } from '../render/output.js';
import { clean } from '../render/sanitize.js';
import { cliPrefix, requireConfirmable } from './confirm.js';
import { JournaledWrite, parseWriteKey, type WriteCommand } from './idempotent-write.js';
import { parseAlias } from './parse.js';
import { printQuote } from './quote.js';
import { equivalentCommand, inquirerPrompter, promptReservation, reaskRefused, refusedField, type PromptedReservation, type Prompter, type ReserveDraft } from './reserve-prompts.js';
import { checkPartialDates, clockNow, resolvedLine, resolvePartialDates, zoneOrRefuse } from './trip-dates.js';

export interface ReserveInput {
  alias?: string;
  city?: string;
  from?: string;
  to?: string;
  days?: string;
  protection?: 'minimum' | 'standard';
  mileage?: 'limited' | 'unlimited';
  deliveryAddress?: string;
  extra?: string[];
  promo?: string;
  idempotencyKey?: string;
}

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
    promo = input.promo.trim();
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

/**
 * The ReservationCreateRequest. Extras are a set: sorted and deduplicated, so that the
 * same choice in another order is the same command (same journal entry, same body).
 */
export function buildCreateRequest(d: ReserveDraft & { alias: string; from: string; to: string }): ReservationCreateRequest {
  const body: ReservationCreateRequest = {
    car_alias: d.alias,
    date_checkin: d.from,
    date_checkout: d.to,
    options: {
      protection_plan: d.protection ?? 'minimum',
      mileage_type: d.mileage ?? 'limited',
      delivery_type: d.deliveryAddress ? 'delivery' : 'pickup',
      ...(d.deliveryAddress ? { delivery_address: d.deliveryAddress } : {}),
    },
    extras: [...new Set(d.extras ?? [])].sort(),
  };
  if (d.promo) body.promo_code = d.promo;
  return body;
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
  return new Output({ io: { ...ctx.io, stdout: ctx.io.stderr }, globals: { ...ctx.globals, json: false } });
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
  requireConfirmable(ctx, 'reserve');

  const { api, out, target } = await services(ctx);
  requireKey(target);

  let car: Car;
  let complete: ReserveDraft & { alias: string; from: string; to: string };
  // relative dates and prompts use the API's clock (the sandbox's, when moved)
  const now = clockNow(ctx, target.sandbox);
  const promptDeps = { api, prompter, defaultCity: target.profileData.city, info: (l: string) => out.info(l), now };
  let prompted: PromptedReservation | undefined;
  if (missing.length) {
    prompted = await promptReservation(draft, promptDeps);
    car = prompted.car;
    complete = prompted;
  } else {
    car = (await api.getCar(draft.alias!)).data;
    complete = draft as typeof complete;
    if (draft.days !== undefined || isRelativeDate(draft.from!) || isRelativeDate(draft.to ?? '')) {
      complete = { ...draft, ...resolvePartialDates(draft, now, zoneOrRefuse(car.city)) } as typeof complete;
      out.info(resolvedLine(complete, zoneOf(car.city)));
    }
  }
  // the choice as last settled (re-asked answers included), for the equivalent command
  const settled = { choice: complete };
  try {
    return await book(ctx, prompter, settled, car, key, prompted && { prompted, deps: promptDeps });
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
  reask: { prompted: PromptedReservation; deps: Parameters<typeof reaskRefused>[2] } | undefined,
): Promise<number> {
  const { api, out, target } = await services(ctx);
  let complete = settled.choice;
  let body = buildCreateRequest(complete);
  let command: WriteCommand = { operation: 'createReservation', target: body.car_alias, request: body, key };
  const writer = new JournaledWrite(ctx, out, target);

  const resuming = await writer.pending(command);
  const talk = stderrOutput(ctx);
  const carLine = `${clean(car.name)} (${clean(car.car_alias)})`;
  let confirmText: string;
  if (resuming) {
    writer.announceResume(resuming);
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
  } else {
    let quote: Quote;
    for (;;) {
      try {
        quote = (await api.quote(body, true)).data;
        break;
      } catch (err) {
        // after prompts, an answer the API refused is asked again, and only that one
        const field = reask && refusedField(err);
        if (!reask || !field || !(err instanceof CliError)) throw withExtrasHint(err, car);
        out.warn(`${formatErrorLine(err)}; asking again`.replace(/^error: /, ''));
        reask.prompted = await reaskRefused(field, { ...reask.prompted, ...complete }, reask.deps);
        complete = settled.choice = reask.prompted;
        body = buildCreateRequest(complete);
        command = { operation: 'createReservation', target: body.car_alias, request: body, key };
      }
    }
    printQuote(quote, body, talk, car.city);
    talk.pairs([
      ['Car', carLine],
      ['Options', describeOptions(body)],
    ]);
    out.info('a quote holds neither the car nor the price: both are checked again when the reservation is created');
    confirmText = `Reserve ${clean(car.name)} for ${formatCents(quote.final_total)} (plus a ${formatCents(quote.deposit_cents)} refundable deposit)?`;
  }

  if (!ctx.globals.yes && !(await prompter.confirm(confirmText, false))) {
    out.info('not reserved: nothing was sent');
    return 1;
  }

  const res = await writer.run(command, (idempotencyKey, retry, onRetry) => api.createReservation(body, idempotencyKey, retry, { onRetry }));

  printCreated(ctx, out, res.data, payloadOf(res));
  return 0;
}

function printCreated(ctx: Context, out: Output, uuid: string, payload: unknown): void {
  if (out.json) out.printJson(payload);
  else if (!out.tty) out.line(uuid);
  else out.pairs([
    ['reservation', uuid],
    ['status', 'new: unpaid, not yet a paid booking or a guaranteed hold'],
  ]);
  const cli = cliPrefix(ctx);
  out.info(`next: pay the rent with \`${cli} pay-link ${uuid}\` (--open opens the page, --wait waits until it is paid)`);
}
