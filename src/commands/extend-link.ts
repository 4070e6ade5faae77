// `carrental extend-link <uuid> [--to D] [--dry-run]`: with a target, preview what the
// extension costs, then get the link where the customer confirms it (--dry-run: the link
// request is printed, not sent). The API never changes dates: the customer does, on the page.
//
// The link body names the target `checkout`, as the spec's machine-readable description
// does (its prose says `date_checkout`). Generated clients and the server's request
// validator are built from the machine-readable description, so that is the name the
// server checks; the `extend_reservation` URL carries the same `checkout` parameter.
import type { ApiResponse } from '../api/client.js';
import { payloadOf } from '../api/payload.js';
import type { ExtensionPrice, ManualAction, Trip } from '../api/schemas.js';
import { openUrl } from '../cmdkit/browser.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { requireKey, services } from '../session/services.js';
import { sandboxLinkNote } from '../session/embedded-sandbox.js';
import { CliError, usageError } from '../errors.js';
import { isRelativeDate, resolveDateInput, zoneOf } from '../input/dates.js';
import { formatLocal } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import { clean } from '../text/sanitize.js';
import { NOT_STATED, renderPairs, stated } from '../render/table.js';
import { printAction } from '../render/action.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { LINK_NOTE, previewOf, printDryRun, tripFromList } from '../cmdkit/dry-run.js';
import { resolveReservation } from '../booking/resolve-id.js';
import { parseUuidRef } from '../input/uuid-ref.js';
import { readReservation } from '../booking/read.js';
import { checkPartialDates, clockNow, refusePast, zoneOrRefuse } from '../cmdkit/trip-dates.js';

export type ExtendLinkInput = InputOf<'extend-link'>;

/** reservation_not_active and invalid_checkout, said with the reservation's own dates when known. */
function explain(err: unknown, uuid: string, to: string | undefined, trip: Trip | undefined, cli: string): unknown {
  if (!(err instanceof CliError)) return err;
  const code = err.api?.error_code;
  if (code === 'reservation_not_active') {
    const state = trip?.status ? ` (it is ${clean(trip.status)})` : '';
    return new CliError(err.kind, `reservation ${uuid} cannot be extended${state}: only a reservation in status new can`, {
      api: err.api,
      hint: `\`${cli} trips ${uuid}\` shows its status`,
    });
  }
  if (code === 'invalid_checkout') {
    // the reason (opening hours, the past, not later, too long) is the server's description,
    // which the error line shows; the hint only says where to look
    const current = trip?.date_checkout ? ` ${formatLocal(trip.date_checkout, trip.car?.city)}` : '';
    return new CliError(err.kind, `${to ? `${to.replace('T', ' ')} is not` : 'that is not'} a valid new check-out for reservation ${uuid}`, {
      api: err.api,
      hint: `give another --to, later than the current check-out${current} and inside opening hours`,
    });
  }
  return err;
}

/** The preview, label by label; the spec requires no member of the trip or of the price: what is left out reads "not stated". */
function previewPairs(trip: Trip, to: string, price: ExtensionPrice): Array<[string, string]> {
  const city = trip.car?.city;
  return [
    ['car', trip.car ? `${clean(trip.car.name)} (${clean(trip.car.car_alias)})` : NOT_STATED],
    ['current check-out', stated(trip.date_checkout, (d) => formatLocal(d, city))],
    ['new check-out', formatLocal(to, city)],
    ['additional days', stated(price.additional_days)],
    ['extension total', stated(price.total_amount, formatCents)],
  ];
}

export async function run(input: ExtendLinkInput, ctx: Context): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the reservation uuid');
  // absolute, or relative (`+2d 10:00`) and read in the car's zone once the trip is read
  let to = input.to !== undefined ? checkPartialDates({ to: input.to }).to : undefined;
  if (input.dryRun && input.open) throw usageError('--dry-run creates no link, so there is nothing to --open');

  const { api, out, target } = await services(ctx, { dryRun: input.dryRun });
  requireKey(target);
  // the server's clock only when there is a date to read (on loopback it may be asked for)
  const now = to ? await clockNow(ctx, target) : ctx.now();
  if (to && !isRelativeDate(to)) refusePast(to, '--to', now, undefined);
  // a prefix becomes the one reservation of the customer it names, before anything else
  const uuid = await resolveReservation(api, ref, cliPrefix(ctx));
  const cli = cliPrefix(ctx);

  let trip: Trip | undefined;
  let price: unknown;
  if (to) {
    // for the zone labels and the current check-out; a 404 stops here (a dry run reads the
    // trips list: reading the reservation prepares a debt invoice when money is owed)
    trip = input.dryRun ? await tripFromList(api, uuid, cli) : (await readReservation(api, uuid, out)).data;
    if (isRelativeDate(to)) to = resolveDateInput(to, '--to', { now, zone: zoneOrRefuse(trip.car?.city) });
    refusePast(to, '--to', now, zoneOf(trip.car?.city));
    let priced: ApiResponse<ExtensionPrice>;
    try {
      priced = await api.extensionPrice(uuid, to);
    } catch (err) {
      throw explain(err, uuid, to, trip, cli);
    }
    const preview = previewPairs(trip, to, priced.data);
    price = (priced.body as { data?: unknown }).data; // as received, not as parsed
    ctx.io.stderr.write(renderPairs(preview, { tty: !!ctx.io.stderr.isTTY }));
    out.info('a preview: nothing changes and nothing is charged until the customer confirms on the page, which shows the current price');
  }

  if (input.dryRun) {
    const request = await previewOf(api, (a) => a.extensionLink(uuid, to));
    const notes = [...(to ? ['the price above was read from the API (a read: it changes nothing)'] : []), LINK_NOTE];
    return printDryRun(out, { command: 'extend-link', request, notes, extra: price === undefined ? undefined : { extension_price: price } });
  }
  let res: ApiResponse<ManualAction>;
  try {
    res = await api.extensionLink(uuid, to);
  } catch (err) {
    throw explain(err, uuid, to, trip, cli);
  }
  let opened: boolean | string | undefined;
  if (input.open) {
    const result = await openUrl(res.data.url, ctx);
    opened = result.opened ? true : result.reason;
  }
  printAction(out, res.data, {
    opened,
    ...sandboxLinkNote(target),
    payload: payloadOf(res),
    nextStep: `run \`${cli} trips ${uuid}\` to see the check-out (dates change only once the customer confirms, even at no cost)`,
  });
  return 0;
}
