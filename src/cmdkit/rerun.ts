// The command line that finishes a journal entry (same profile, same API, same request):
// what `carrental pending` prints, and what a refusal names when the same command was
// sent to another address. It is the CLI's wording, so it lives in the kit: the booking
// core takes it as WriteWords (cliWriteWords below), and MCP words its own.
import type { ReservationCreateRequest } from '../api/schemas.js';
import { SANDBOX_JOURNAL_URL } from '../booking/journal-url.js';
import type { WriteWords } from '../booking/journaled-write.js';
import type { JournalEntry } from '../store/journal.js';
import { BOOK_ANOTHER } from './hints.js';

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

/**
 * What the CLI adds to the lines a journaled write prints: its flag for booking another,
 * its name for the sandbox, the `pending` line that finishes a write, the `trips` line
 * that shows a reservation. `create` says whether the command books (reserve, api, the
 * contract check) or cancels (cancel): only a create has another to book.
 */
export function cliWriteWords(opts: { create: boolean }): WriteWords {
  return {
    ...(opts.create ? { bookAnother: BOOK_ANOTHER } : {}),
    sandbox: 'the embedded sandbox (--sandbox)',
    finishPending: (entry) => {
      const rerun = rerunCommand(entry);
      return `as \`carrental pending\` shows${rerun ? ` (\`${rerun}\`)` : ''}`;
    },
    seeReservation: (uuid, sentTo) => `\`${sentTo && uuid ? tripsCommand(sentTo, uuid) : `carrental trips${uuid ? ` ${shellWord(uuid)}` : ''}`}\``,
  };
}
