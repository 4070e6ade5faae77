// `carrental invoice <invoice-uuid>`: one invoice with its line items.
import { payloadOf } from '../api/payload.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { invoiceNotes, renderInvoice } from '../render/invoice.js';
import { cliPrefix } from '../cmdkit/confirm.js';
import { resolveInvoice } from '../booking/resolve-id.js';
import { parseUuidRef } from '../input/uuid-ref.js';

export async function run(input: InputOf<'invoice'>, ctx: Context): Promise<number> {
  const ref = parseUuidRef(input.uuid, 'the invoice uuid');
  const { api, out } = await services(ctx);
  const uuid = await resolveInvoice(api, ref, cliPrefix(ctx));
  const res = await api.invoice(uuid);
  if (out.json) {
    out.printJson(payloadOf(res));
    return 0;
  }
  renderInvoice(out, res.data);
  invoiceNotes(out, [res.data]);
  return 0;
}
