// The next step to suggest for an error, in the CLI's words. The api layer records what
// failed (src/errors.ts: the API's answer and the request it answered, or what the
// transport saw); this module words it for a person at a terminal. A hint speaks the CLI's
// language (its commands and flags, never the API's field names or paths), says something
// the error line does not, and is left out where it would not apply: so it depends on the
// operation that failed as much as on the error code. (The MCP server words its own next
// steps: src/mcp/results.ts.)
import { CliError, type FailedRequest, type TransportFailure } from '../errors.js';
import { forUser } from '../render/for-user.js';
import { operationOf } from '../api/operations.js';
import { clean } from '../text/sanitize.js';

/** The request that failed: `raw` when the user typed it (`carrental api`). */
export interface HintContext {
  method: string;
  path: string;
  raw?: boolean;
}

/** The CLI command that sends each operation; how a hint names it. */
type Op =
  | 'cars'
  | 'car'
  | 'quote'
  | 'profile'
  | 'verification'
  | 'cards'
  | 'card-link'
  | 'trips'
  | 'trip'
  | 'cancel'
  | 'invoices'
  | 'invoice'
  | 'reserve'
  | 'pay-link'
  | 'extend-link';

/** By operation id (src/api/operations.ts). */
const COMMAND_OF: Record<string, Op> = {
  listCars: 'cars',
  getCar: 'car',
  quote: 'quote',
  getProfile: 'profile',
  getVerification: 'verification',
  listCards: 'cards',
  cardAddLink: 'card-link',
  listTrips: 'trips',
  getReservation: 'trip',
  cancelReservation: 'cancel',
  listReservationInvoices: 'invoices',
  getInvoice: 'invoice',
  createReservation: 'reserve',
  paymentLink: 'pay-link',
  extensionPrice: 'extend-link',
  extensionLink: 'extend-link',
};

/** The command an API request belongs to; undefined for a path no command sends. */
export function commandOf(method: string, path: string): Op | undefined {
  const id = operationOf(method, path);
  return id === undefined ? undefined : COMMAND_OF[id];
}

const TRIP_OPS: Op[] = ['trip', 'cancel', 'invoices', 'pay-link', 'extend-link'];
const DATED_OPS: Op[] = ['quote', 'reserve', 'cars'];

/** `--from` / `--to` for the API's date fields a description names. */
function dateFlags(description: string | undefined): string {
  const from = /date_checkin|date_from/.test(description ?? '');
  const to = /date_checkout|date_to/.test(description ?? '');
  return from && !to ? '--from' : to && !from ? '--to' : '--from and --to';
}

function settingsUrl(description?: string): string | undefined {
  return description?.match(/https?:\/\/\S+/)?.[0]?.replace(/[.,;)]+$/, '');
}

type Rule = (c: { op?: Op; raw: boolean; description?: string; retryAfter?: number; status: number }) => string | undefined;

const wrongBaseUrl =
  'the server at the base URL does not know this operation: check the base URL (`carrental config get base_url`; an API base usually ends in a version such as /v1) or run `carrental doctor`';

const BY_CODE: Record<string, Rule> = {
  invalid_credentials: () => 'run `carrental auth login` with a current key, or fix CARRENTAL_API_KEY',
  conflicting_credentials: () => 'carrental sends one credential only: check for a proxy that adds its own',
  credentials_not_accepted: ({ op, raw }) => (raw || op === 'quote' ? 'this operation takes no key: rerun with --anonymous' : undefined),
  api_key_write_upgrade_required: ({ description }) => {
    const url = settingsUrl(description);
    return `create a booking_write key in your account settings${url ? ` (${url})` : ''}, then run \`carrental auth login\``;
  },
  api_key_operation_not_enabled: () => '`carrental doctor` shows which operations this deployment opens to API keys',
  card_payments_not_enabled: () => 'only the rental company can turn card payments on for an account: contact its support',
  rate_limited: ({ retryAfter }) => (retryAfter ? `wait ${retryAfter} s, then rerun the same command` : 'wait a little, then rerun the same command'),
  operation_outcome_unknown: () => 'rerun the same command: it reuses the same idempotency key, so it cannot book twice',
  operation_in_progress: () => 'rerun the same command in a few seconds',
  idempotency_mismatch: ({ raw }) => (raw ? 'send a fresh Idempotency-Key header' : 'drop --idempotency-key, or give a fresh one'),
  idempotency_key_invalid: ({ raw }) => (raw ? 'an Idempotency-Key is 16 to 128 printable ASCII characters' : '--idempotency-key takes 16 to 128 printable ASCII characters'),
  active_reservation_exists: () => '`carrental trips` lists your active reservations; `carrental cancel <uuid>` frees one you no longer need',
  nothing_to_pay: ({ op }) => (op === 'pay-link' ? '`carrental trips <uuid>` shows what is paid and what is owed' : undefined),
  reservation_cancelled: () => '`carrental trips <uuid>` shows the cancellation outcome',
  reservation_not_active: () => '`carrental trips <uuid>` shows its status',
  reservation_not_cancellable: () => '`carrental trips <uuid>` shows its status and dates',
  invalid_checkout: ({ raw }) => (raw ? undefined : '`carrental trips <uuid>` shows the current check-out; give another --to'),
  invalid_pagination: ({ op, raw }) => (!raw && op === 'cars' ? '--limit takes 1..200; --all fetches every page' : undefined),
  promo_codes_disabled: ({ raw }) => (raw ? undefined : 'leave --promo out'),
  promo_code_not_found: ({ raw }) => (raw ? undefined : 'check the spelling of --promo, or leave --promo out'),
  promo_code_invalid: ({ raw }) => (raw ? undefined : 'leave --promo out to go on without it'),
  promo_already_used: ({ raw }) => (raw ? undefined : 'leave --promo out, or give another code'),
  reservation_not_found: ({ raw }) => (raw ? undefined : '`carrental trips` lists your reservations and their uuids'),
  invalid_reservation_id: () => 'a reservation id is a uuid, as `carrental trips` prints it',
  invoice_not_found: ({ raw }) => (raw ? undefined : '`carrental invoices <reservation-uuid>` lists the invoices of a trip'),
  car_not_found: ({ raw }) => (raw ? undefined : '`carrental cars --city la` (or miami) lists the car aliases'),
  date_in_past: ({ op, raw }) => (raw || !op || !DATED_OPS.includes(op) ? undefined : 'give a later --from: by the server\'s clock this one is in the past'),
  outside_operating_hours: ({ op, raw, description }) =>
    raw || !op || !DATED_OPS.includes(op) ? undefined : `move ${dateFlags(description)} inside the opening hours, for example 10:00`,
  trip_too_short: ({ raw }) => (raw ? undefined : 'give a later --to, or --days'),
  trip_too_long: ({ raw }) => (raw ? undefined : 'give an earlier --to, or fewer --days; book a longer trip as two reservations'),
  invalid_date_range: ({ raw }) => (raw ? undefined : '--to must be after --from'),
  invalid_extra: ({ raw }) => (raw ? undefined : '`carrental car <alias>` lists the extras this car offers; --extra takes their item type'),
  invalid_protection_plan: ({ raw }) => (raw ? undefined : '--protection takes minimum or standard'),
  delivery_address_required: ({ raw }) => (raw ? undefined : 'give --delivery-address, or leave it out for pickup'),
  car_not_available: ({ raw }) => (raw ? undefined : '`carrental cars --from ... --to ...` shows which cars are free then; or change --from and --to'),
  driver_not_approved: () => '`carrental verification` shows what the rental company still needs from you',
};

/** The hint of the CLI for any error: the one its thrower gave, else one worded from the facts it carries. */
export function hintFor(err: CliError): string | undefined {
  if (err.hint !== undefined) return err.hint;
  if (err.journalKey !== undefined) return rerunHint(err.journalKey);
  if (err.transport) return transportHint(err.transport);
  // an API error without its request was built by hand, with whatever hint it wanted
  const api = err.api;
  if (api?.request) return apiHint(api.error_code, api.status, api.description, api.retryAfter, api.request);
  return undefined;
}

/**
 * The error as this user reads it: every backticked command in its line and its hint spelt
 * with `prefix` (`carrental --sandbox`, `carrental --profile ci`), so a hint copied as
 * printed reaches the same API. The error itself when nothing changes.
 */
export function forUserError(err: CliError, prefix: string): CliError {
  const hint = hintFor(err);
  const message = forUser(err.message, prefix);
  const spelt = hint === undefined ? undefined : forUser(hint, prefix);
  if (message === err.message && spelt === hint) return err;
  return new CliError(err.kind, message, { hint: spelt, api: err.api, transport: err.transport, journalKey: err.journalKey, cause: err.cause });
}

/** A create or cancel whose outcome is unknown: its key is journaled, so the same command finishes it. */
export function rerunHint(key: string): string {
  return `rerunning the same command is safe: it reuses idempotency key ${key} (see \`carrental pending\`)`;
}

/** Appended to the line that says a reserve replays an earlier answer: how to book another instead. */
export const BOOK_ANOTHER = '--new books another';

/** The hint for an API error answering the request `context` describes. */
export function hintForApiError(code: string | undefined, status: number, description?: string, retryAfter?: number, context?: HintContext): string | undefined {
  const request = context && { operation: operationOf(context.method, context.path), typed: !!context.raw };
  return apiHint(code, status, description, retryAfter, request);
}

function apiHint(code: string | undefined, status: number, description: string | undefined, retryAfter: number | undefined, request: Pick<FailedRequest, 'operation' | 'typed'> | undefined): string | undefined {
  const raw = !!request?.typed;
  const op = request?.operation === undefined ? undefined : COMMAND_OF[request.operation];
  const rule = code ? BY_CODE[code] : undefined;
  if (rule) return rule({ op, raw, description, retryAfter, status });
  if (status === 401) return 'run `carrental auth login`, or set CARRENTAL_API_KEY';
  if (status === 404 || status === 405) {
    // a path the user typed: theirs to check; one carrental sent: the base URL is wrong
    if (raw) return op ? undefined : 'no such API path here: `carrental sandbox openapi` prints the paths the API has';
    if (!code || code === 'not_found' || status === 405) return wrongBaseUrl;
    if (op && TRIP_OPS.includes(op)) return '`carrental trips` lists your reservations and their uuids';
    if (op === 'invoice') return '`carrental invoices <reservation-uuid>` lists the invoices of a trip';
    if (op === 'car') return '`carrental cars --city la` (or miami) lists the car aliases';
    return undefined;
  }
  if (status === 429 || status >= 500) {
    return retryAfter ? `the service asked to wait ${retryAfter} s (Retry-After); then rerunning the same command is safe` : 'rerunning the same command is safe';
  }
  return undefined;
}

const NEVER_TURN_OFF = 'never turn verification off';

/** What to do about a request that got no usable answer. */
function transportHint(failure: TransportFailure): string {
  switch (failure.kind) {
    case 'no_key':
      return 'run `carrental auth login`, set CARRENTAL_API_KEY, or try `carrental --sandbox ...`';
    case 'key_over_http':
      return 'use the https address of the API (`carrental config set base_url https://<host>/v1` or --base-url); anonymous commands (cars, car, quote --anonymous) still work over http';
    case 'timeout':
      return 'the outcome is unknown; rerunning the same command is safe (raise --timeout if the API is slow)';
    case 'unreachable':
      return 'check the base URL (`carrental config get base_url`) or run `carrental doctor`; rerunning is safe';
    case 'proxy':
      return failure.tunnelStatus === 407
        ? 'the proxy wants credentials: put them in its URL (http://user:password@proxy:port)'
        : `check ${failure.setting}, or list the API's host in NO_PROXY to go direct; rerunning is safe`;
    case 'tls':
      // trusting another CA cannot help a certificate outside its dates, nor one for another name
      if (failure.reason === 'expired' || failure.reason === 'not_yet_valid') return `the server must renew its certificate (or this machine's clock is wrong: check \`date\`); ${NEVER_TURN_OFF}`;
      if (failure.reason === 'wrong_host') return `put a host name the certificate names in the base URL (\`carrental config get base_url\`); ${NEVER_TURN_OFF}`;
      if (failure.reason === 'revoked') return `the server must replace its certificate; ${NEVER_TURN_OFF}`;
      return `if the API uses a private CA, trust it: NODE_EXTRA_CA_CERTS=/path/to/ca.pem (a PEM file, read when node starts); ${NEVER_TURN_OFF}`;
    case 'redirect':
      if (failure.why === 'too_many' || failure.why === 'multiple_choices') return `check the base URL (${failure.origin}); \`carrental doctor\` shows where it leads`;
      return `check the base URL${failure.baseUrlToConfigure ? `; if the API moved, use its new base URL: \`carrental config set base_url ${clean(failure.baseUrlToConfigure)}\` (or --base-url)` : ''}`;
    case 'too_large':
      return 'check the base URL; if the API really answers this much, raise CARRENTAL_MAX_RESPONSE_BYTES';
    case 'malformed':
      return failure.why === 'schema' ? 'the server does not match the API this version of carrental knows; rerun with --debug to see the response' : 'rerun with --debug to see the response';
  }
}
