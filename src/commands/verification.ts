// `carrental verification`: identity verification and the driver's licence, with a warning
// when the licence has expired or expires within 30 days. Never starts or submits anything.
import { payloadOf } from '../api/payload.js';
import type { VerificationStatus } from '../api/schemas.js';
import type { Context } from '../session/context.js';
import { services } from '../session/services.js';
import { daysUntil } from '../input/dates.js';

const STATUS_MEANING: Record<string, string> = {
  verified: 'approved to drive',
  pending: "a driver's-licence submission awaits a decision",
  unknown: 'neither verified nor pending',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The expiry line and, when it calls for one, the warning. The API's flags decide; the clock only counts days. */
export function licenceExpiry(licence: VerificationStatus['drivers_license'], now: Date): { text: string; warning?: string } {
  const date = licence.expires_at;
  if (!date) return { text: licence.expired ? 'expired (date not recorded)' : 'not recorded', warning: licence.expired ? "the driver's licence has expired" : undefined };
  const days = daysUntil(date, now);
  if (licence.expired) {
    const ago = days < 0 ? ` (${plural(-days, 'day')} ago)` : '';
    return { text: `${date}: expired${ago}`, warning: `the driver's licence expired on ${date}; a current licence is needed to drive` };
  }
  if (licence.expiring_soon) {
    const when = days > 0 ? `in ${plural(days, 'day')}` : 'today';
    return { text: `${date}: expires ${when}`, warning: `the driver's licence expires ${when} (${date}); renew it before your trip` };
  }
  return { text: date };
}

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const { api, out } = await services(ctx);
  const res = await api.verification();
  if (out.json) {
    out.printJson(payloadOf(res));
    return 0;
  }
  const v = res.data;
  const expiry = licenceExpiry(v.drivers_license, ctx.now());
  out.pairs([
    // a pipe gets the status as the API spells it; a terminal what it means
    ['status', v.status, STATUS_MEANING[v.status] ? `${v.status} (${STATUS_MEANING[v.status]})` : v.status],
    ['approved to drive', v.is_approved_to_drive ? 'yes' : 'no'],
    ['licence status', v.drivers_license.status],
    ['licence expiry', expiry.text],
  ]);
  if (expiry.warning) out.warn(expiry.warning);
  return 0;
}
