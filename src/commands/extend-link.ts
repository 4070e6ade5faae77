// `carrental extend-link <uuid> [--to D]`: with a target, preview what the extension
// costs, then get the link where the customer confirms it. The API never changes dates:
// the customer does, on the page.
//
// The link body names the target `checkout`, as the spec's machine-readable description
// does (its prose says `date_checkout`). Generated clients and the server's request
// validator are built from the machine-readable description, so that is the name the
// server checks; the `extend_reservation` URL carries the same `checkout` parameter.
import type { ApiResponse } from '../api/client.js';
import { payloadOf } from '../api/payload.js';
import type { ExtensionPrice, ManualAction, Trip } from '../api/schemas.js';
import { openUrl } from '../cli/browser.js';
import type { Context } from '../cli/context.js';
import { requireKey, sandboxLinkNote, services } from '../cli/services.js';
import { CliError } from '../errors.js';
import { formatLocal, parseLocalDateTime } from '../render/dates.js';
import { formatCents } from '../render/money.js';
import { clean } from '../render/sanitize.js';
import { NOT_STATED, renderPairs, stated } from '../render/table.js';
import { printAction } from '../render/action.js';
import { cliPrefix } from './confirm.js';
import { parseUuidRef, resolveReservation } from './resolve-id.js';
import { readReservation } from './trips.js';

export interface ExtendLinkInput {
  uuid?: string;
  to?: string;
  open?: boolean;
}

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
    const current = trip?.date_checkout ? ` later than the current check-out ${formatLocal(trip.date_checkout, trip.car?.city)}` : ' later than the current check-out';
    return new CliError(err.kind, `${to ? `${to.replace('T', ' ')} is not` : 'that is not'} a valid new check-out for reservation ${uuid}`, {
      api: err.api,
      hint: `give --to as car-local YYYY-MM-DDTHH:MM, in the future and${current}`,
    });
  }
  return err;
}

export async function run(input: ExtendLinkInput, ctx: Context): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the reservation uuid');
  const to = input.to !== undefined ? parseLocalDateTime(input.to, '--to') : undefined;

  const { api, out, target } = await services(ctx);
  requireKey(target);
  // a prefix becomes the one reservation of the customer it names, before anything else
  const uuid = await resolveReservation(api, ref, cliPrefix(ctx));
  const cli = cliPrefix(ctx);

  let trip: Trip | undefined;
  if (to) {
    // for the zone labels and the current check-out; a 404 stops here
    trip = (await readReservation(api, uuid, out)).data;
    let price: ExtensionPrice;
    try {
      price = (await api.extensionPrice(uuid, to)).data;
    } catch (err) {
      throw explain(err, uuid, to, trip, cli);
    }
    // the spec requires no member of the trip or of the preview: what is left out reads "not stated"
    const city = trip.car?.city;
    ctx.io.stderr.write(
      renderPairs(
        [
          ['car', trip.car ? `${clean(trip.car.name)} (${clean(trip.car.car_alias)})` : NOT_STATED],
          ['current check-out', stated(trip.date_checkout, (d) => formatLocal(d, city))],
          ['new check-out', formatLocal(to, city)],
          ['additional days', stated(price.additional_days)],
          ['extension total', stated(price.total_amount, formatCents)],
        ],
        { tty: !!ctx.io.stderr.isTTY },
      ),
    );
    out.info('a preview: nothing changes and nothing is charged until the customer confirms on the page, which shows the current price');
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
    note: sandboxLinkNote(target),
    payload: payloadOf(res),
    nextStep: `run \`${cli} trips ${uuid}\` to see the check-out (dates change only once the customer confirms, even at no cost)`,
  });
  return 0;
}
