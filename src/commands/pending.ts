// `carrental pending [list|clear]`: the reserve and cancel commands whose outcome is not
// known yet. They are finished by rerunning the same command (which reuses the journaled
// idempotency key); clearing them gives that up.
import type { Context } from '../cli/context.js';
import { output } from '../cli/services.js';
import type { ReservationCreateRequest } from '../api/schemas.js';
import type { JournalEntry } from '../store/journal.js';
import { formatAge, openJournal, SANDBOX_JOURNAL_URL } from './idempotent-write.js';

const VERB = { createReservation: 'reserve', cancelReservation: 'cancel' } as const;

/** Quotes a word for a POSIX shell only when it needs it. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line that finishes a pending entry (same profile, same API, same request). */
export function rerunCommand(entry: JournalEntry): string {
  const words = ['carrental'];
  if (entry.baseUrl === SANDBOX_JOURNAL_URL) words.push('--sandbox');
  else words.push('--base-url', entry.baseUrl);
  if (entry.profile !== 'default') words.push('--profile', entry.profile);
  if (entry.operation === 'cancelReservation') {
    const { uuid } = entry.request as { uuid: string };
    words.push('cancel', uuid);
    return words.map(shellWord).join(' ');
  }
  const r = entry.request as ReservationCreateRequest;
  words.push('reserve', r.car_alias, '--from', r.date_checkin, '--to', r.date_checkout);
  if (r.options.protection_plan !== 'minimum') words.push('--protection', r.options.protection_plan);
  if (r.options.mileage_type !== 'limited') words.push('--mileage', r.options.mileage_type);
  if (r.options.delivery_type === 'delivery' && r.options.delivery_address) words.push('--delivery-address', r.options.delivery_address);
  for (const extra of r.extras ?? []) words.push('--extra', extra);
  if (r.promo_code) words.push('--promo', r.promo_code);
  return words.map(shellWord).join(' ');
}

export async function list(_input: unknown, ctx: Context): Promise<number> {
  const out = output(ctx);
  const entries = await openJournal(ctx, out).list();
  const now = ctx.now().getTime();
  if (out.json) {
    out.printJson(entries.map((e) => ({ ...e, rerun: rerunCommand(e) })));
    return 0;
  }
  if (entries.length === 0) {
    out.info('no pending reserve or cancel commands');
    return 0;
  }
  out.table(
    ['OPERATION', 'TARGET', 'PROFILE', 'IDEMPOTENCY KEY', 'AGE', 'STATE', 'RERUN TO FINISH'],
    entries.map((e) => [VERB[e.operation], e.target, e.profile, e.key, formatAge(now - Date.parse(e.createdAt)), e.expired ? 'expired' : 'pending', rerunCommand(e)]),
  );
  out.info(
    'each of these may or may not have happened on the server. Rerun the same command to finish it: it reuses the idempotency key, so it cannot book or cancel twice. Expired entries are no longer reused.',
  );
  return 0;
}

export async function clear(input: { all?: boolean }, ctx: Context): Promise<number> {
  const out = output(ctx);
  const journal = openJournal(ctx, out);
  const dropped = await journal.clear(input.all ? { all: true } : { profile: ctx.globals.profile });
  if (out.json) out.printJson({ cleared: dropped });
  const scope = input.all ? 'every profile' : `profile "${ctx.globals.profile}"`;
  out.info(`dropped ${dropped} pending command${dropped === 1 ? '' : 's'} of ${scope}`);
  if (dropped > 0) out.info('their outcome stays unknown: check `carrental trips` before running any of them again (a rerun now sends a new key)');
  return 0;
}
