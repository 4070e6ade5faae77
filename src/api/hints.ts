// The next step to suggest for an API error. A hint speaks the CLI's language (its
// commands and flags, never the API's field names or paths), says something the error
// line does not, and is left out where it would not apply: so it depends on the
// operation that failed as much as on the error code.

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

const ROUTES: Array<[string, RegExp, Op]> = [
  ['GET', /^\/cars$/, 'cars'],
  ['GET', /^\/cars\/[^/]+$/, 'car'],
  ['POST', /^\/reservation\/quote$/, 'quote'],
  ['GET', /^\/my\/profile$/, 'profile'],
  ['GET', /^\/my\/verification$/, 'verification'],
  ['GET', /^\/my\/billing\/cards$/, 'cards'],
  ['POST', /^\/my\/billing\/cards\/add-link$/, 'card-link'],
  ['GET', /^\/my\/trips$/, 'trips'],
  ['GET', /^\/my\/reservation\/[^/]+$/, 'trip'],
  ['DELETE', /^\/my\/reservation\/[^/]+$/, 'cancel'],
  ['GET', /^\/my\/reservation\/[^/]+\/invoices$/, 'invoices'],
  ['GET', /^\/my\/billing\/invoice\/[^/]+$/, 'invoice'],
  ['POST', /^\/my\/reservation$/, 'reserve'],
  ['POST', /^\/my\/reservation\/[^/]+\/payment-link$/, 'pay-link'],
  ['POST', /^\/my\/billing\/reservation\/[^/]+\/extension\/price$/, 'extend-link'],
  ['POST', /^\/my\/reservation\/[^/]+\/extension-link$/, 'extend-link'],
];

/** The command an API request belongs to; undefined for a path no command sends. */
export function operationOf(method: string, path: string): Op | undefined {
  const bare = path.split('?')[0].replace(/\/+$/, '') || '/';
  return ROUTES.find(([m, re]) => m === method.toUpperCase() && re.test(bare))?.[2];
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

export function hintFor(code: string | undefined, status: number, description?: string, retryAfter?: number, context?: HintContext): string | undefined {
  const raw = !!context?.raw;
  const op = context ? operationOf(context.method, context.path) : undefined;
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
