// `carrental invoice <invoice-uuid>`: one invoice with its line items.
import { payloadOf } from '../api/payload.js';
import type { InputOf } from '../cli/commands.js';
import type { Context } from '../cli/context.js';
import { services } from '../cli/services.js';
import { invoiceNotes, renderInvoice } from '../render/invoice.js';
import { cliPrefix } from '../cli/confirm.js';
import { parseUuidRef, resolveInvoice } from '../booking/resolve-id.js';

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
