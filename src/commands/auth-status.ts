// `carrental auth status`: which profile and API are in use, which key (masked) and where
// it comes from, and whose key it is according to GET /my/profile. Exit 3 when there is
// no key or the API refuses it, so CI can gate on it.
import { maskKey } from '../text/redact.js';
import type { Profile } from '../api/schemas.js';
import type { Context } from '../session/context.js';
import { services, type Target } from '../session/services.js';
import { CliError } from '../errors.js';
import type { Output } from '../render/output.js';
import { stated } from '../render/table.js';

const SOURCES: Record<NonNullable<Target['keySource']>, string> = {
  env: 'CARRENTAL_API_KEY',
  profile: 'profile',
  'sandbox-demo': 'the sandbox demo customer',
};

interface Status {
  profile: string;
  base_url: string;
  sandbox: boolean;
  key: string | null;
  key_source: Target['keySource'] | null;
  valid: boolean | null;
  /** read_only or booking_write when the server tells it; null when it cannot be known. */
  capability: string | null;
  customer: Profile | null;
}

const CANNOT_KNOW = 'unknown: the API does not say what a key may do (a read_only key is refused with 403 when it books or cancels)';

function print(status: Status, out: Output, json: boolean): void {
  if (json) {
    out.printJson(status);
    return;
  }
  const who = status.customer;
  // a terminal gets sentences; a pipe one bare value per field (labels lower-case, as elsewhere)
  const card = who?.payment_methods?.[0];
  out.pairs([
    ['profile', status.profile, status.profile],
    ['base url', status.base_url, status.sandbox ? `${status.base_url} (embedded sandbox)` : status.base_url],
    ['sandbox', status.sandbox ? 'yes' : 'no', null],
    ['key', status.key ?? '', status.key ? `${status.key} (from ${SOURCES[status.key_source!]})` : 'none'],
    ['key source', status.key_source ?? '', null],
    ['capability', status.capability ?? 'unknown', status.capability ? `${status.capability}${status.capability === 'booking_write' ? ' (can book and cancel)' : ' (reads and links only: cannot book or cancel)'}` : status.key ? CANNOT_KNOW : null],
    // the spec requires no profile field: what is left out reads "not stated"
    ['customer', who?.uuid ?? '', who ? `${stated(who.first_name)} (${stated(who.uuid)})` : null],
    ['first name', who?.first_name ?? '', null],
    ['approved to drive', who?.is_approved_to_drive === undefined ? '' : who.is_approved_to_drive ? 'yes' : 'no', who ? stated(who.is_approved_to_drive, (yes) => (yes ? 'yes' : 'no')) : null],
    // the card's id, as `profile` gives it: brand and digits together would be two values in one column
    ['saved card', card ? (card.id ?? '') : who?.payment_methods ? 'none' : '', who ? stated(who.payment_methods, ([c]) => (c ? `${c.card_brand} ending ${c.last4}` : 'none')) : null],
  ]);
}

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const { api, out, target } = await services(ctx);
  const status: Status = {
    profile: target.profile,
    base_url: target.baseUrl,
    sandbox: target.sandbox,
    key: target.apiKey ? maskKey(target.apiKey) : null,
    key_source: target.keySource ?? null,
    valid: null,
    capability: (target.apiKey && target.capability) || null,
    customer: null,
  };
  if (!target.apiKey) {
    print(status, out, ctx.globals.json);
    throw new CliError('auth', `no API key for profile "${target.profile}"`, {
      hint: 'run `carrental auth login`, or set CARRENTAL_API_KEY',
    });
  }
  try {
    status.customer = (await api.profile()).data;
    status.valid = true;
  } catch (err) {
    if (err instanceof CliError && err.api?.error_code === 'api_key_operation_not_enabled') {
      // the key was not refused; this deployment just cannot tell whose it is yet
      print(status, out, ctx.globals.json);
      out.warn('this deployment does not let keys read /my/profile yet: whose key this is cannot be checked');
      return 0;
    }
    if (err instanceof CliError && err.kind === 'auth') {
      status.valid = false;
      print(status, out, ctx.globals.json);
    }
    throw err;
  }
  print(status, out, ctx.globals.json);
  return 0;
}
