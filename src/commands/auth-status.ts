// `carrental auth status`: which profile and API are in use, which key (masked) and where
// it comes from, and whose key it is according to GET /my/profile. Exit 3 when there is
// no key or the API refuses it, so CI can gate on it.
import { maskKey } from '../api/redact.js';
import type { Profile } from '../api/schemas.js';
import type { Context } from '../cli/context.js';
import { services, type Target } from '../cli/services.js';
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
  customer: Profile | null;
}

function print(status: Status, out: Output, json: boolean): void {
  if (json) {
    out.printJson(status);
    return;
  }
  const who = status.customer;
  out.pairs([
    ['Profile', status.profile],
    ['Base URL', status.sandbox ? `${status.base_url} (embedded sandbox)` : status.base_url],
    ['Key', status.key ? `${status.key} (from ${SOURCES[status.key_source!]})` : 'none'],
    // the spec requires no profile field: what is left out reads "not stated"
    ['Customer', who ? `${stated(who.first_name)} (${stated(who.uuid)})` : undefined],
    ['Approved to drive', who ? stated(who.is_approved_to_drive, (yes) => (yes ? 'yes' : 'no')) : undefined],
    ['Saved card', who ? stated(who.payment_methods, ([card]) => (card ? `${card.card_brand} ending ${card.last4}` : 'none')) : undefined],
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
