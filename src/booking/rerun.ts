// The command line that finishes a journal entry (same profile, same API, same request):
// what `carrental pending` prints, and what a refusal names when the same command was
// sent to another address.
import type { ReservationCreateRequest } from '../api/schemas.js';
import type { JournalEntry } from '../store/journal.js';

/** What the journal records as the API: the embedded sandbox gets a fresh port every run, so it is just "sandbox". */
export const SANDBOX_JOURNAL_URL = 'sandbox';

/** Quotes a word for a POSIX shell only when it needs it. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * What an entry's request lacks for its rerun line (an entry of an older or partial shape:
 * a hand-edited journal, an older carrental), or undefined when it is whole. The journal
 * keeps such an entry; only its rerun line cannot be built.
 */
export function requestProblem(entry: JournalEntry): string | undefined {
  const r = entry.request as Record<string, unknown> | null;
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return 'no request recorded';
  if (entry.operation === 'cancelReservation') return isText(r.uuid) ? undefined : 'no reservation uuid';
  const missing = (['car_alias', 'date_checkin', 'date_checkout'] as const).filter((k) => !isText(r[k]));
  if (missing.length) return `no ${missing.join(', ')}`;
  const o = r.options as Record<string, unknown> | undefined;
  if (o === null || typeof o !== 'object' || !(['protection_plan', 'mileage_type', 'delivery_type'] as const).every((k) => isText(o[k]))) return 'no options';
  if (r.extras !== undefined && !(Array.isArray(r.extras) && r.extras.every(isText))) return 'extras that are not a list of names';
  if (r.promo_code !== undefined && typeof r.promo_code !== 'string') return 'a promo code that is not text';
  return undefined;
}

/**
 * The command line that finishes a pending entry (same profile, same API, same request);
 * undefined for an entry whose request is not whole (requestProblem says what it lacks).
 */
export function rerunCommand(entry: JournalEntry): string | undefined {
  if (requestProblem(entry) !== undefined) return undefined;
  const words = prefixWords(entry);
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


/** `carrental` with the entry's API and profile: the start of any command about it. */
function prefixWords(entry: Pick<JournalEntry, 'baseUrl' | 'profile'>): string[] {
  const words = ['carrental'];
  if (entry.baseUrl === SANDBOX_JOURNAL_URL) words.push('--sandbox');
  else words.push('--base-url', entry.baseUrl);
  if (entry.profile !== 'default') words.push('--profile', entry.profile);
  return words;
}

/** `carrental --base-url <its API> trips <uuid>`: where a finished create can be seen. */
export function tripsCommand(entry: Pick<JournalEntry, 'baseUrl' | 'profile'>, uuid: string): string {
  return [...prefixWords(entry), 'trips', uuid].map(shellWord).join(' ');
}
