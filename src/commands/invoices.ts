// `carrental invoices <reservation-uuid>`: every invoice of the trip, across types and
// states, with line items. The API answers a bare array; --json prints it as is.
import { payloadOf } from '../api/payload.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { invoiceNotes, renderInvoiceTable } from '../render/invoice.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { resolveReservation } from '../booking/resolve-id.js';
import { parseUuidRef } from '../input/uuid-ref.js';

export async function run(input: InputOf<'invoices'>, ctx: Context): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the reservation uuid');
  const { api, out } = await services(ctx);
  const uuid = await resolveReservation(api, ref, cliPrefix(ctx));
  const res = await api.reservationInvoices(uuid);
  if (out.json) {
    out.printJson(payloadOf(res, false));
    return 0;
  }
  if (res.data.length === 0) {
    out.info('no invoices for this reservation');
    return 0;
  }
  renderInvoiceTable(out, res.data);
  invoiceNotes(out, res.data);
  return 0;
}
