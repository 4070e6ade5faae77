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
  const age = (e: JournalEntry) => formatAge(now - Date.parse(e.createdAt));
  const state = (e: JournalEntry & { expired: boolean }) => (e.expired ? 'expired' : 'pending');
  if (!out.tty) {
    // one line per entry, tab-separated, the finishing command last: `cut -f7`
    out.table(
      ['OPERATION', 'TARGET', 'PROFILE', 'IDEMPOTENCY KEY', 'AGE', 'STATE', 'RERUN TO FINISH'],
      entries.map((e) => [VERB[e.operation], e.target, e.profile, e.key, age(e), state(e), rerunCommand(e)]),
    );
    return 0;
  }
  out.table(
    ['#', 'OPERATION', 'TARGET', 'PROFILE', 'IDEMPOTENCY KEY', 'AGE', 'STATE'],
    entries.map((e, i) => [i + 1, VERB[e.operation], e.target, e.profile, e.key, age(e), state(e)]),
    { alignRight: [0], ids: [2, 4] },
  );
  out.line('To finish one, rerun the same command (it reuses the key, so it cannot book or cancel twice):');
  entries.forEach((e, i) => out.line(`  ${i + 1}. ${rerunCommand(e)}`));
  out.info('Each may or may not have happened on the server. Expired entries are no longer reused: check `carrental trips` first.');
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
