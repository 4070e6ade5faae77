// The next step to suggest for an API error, by error code and status.

const BY_CODE: Record<string, string | ((d?: string) => string)> = {
  invalid_credentials: 'the key is invalid, revoked or inactive: run `carrental auth login` with a current key, or fix CARRENTAL_API_KEY',
  conflicting_credentials: 'send one credential only (carrental never sends two; check proxies that add headers)',
  credentials_not_accepted: 'this operation is anonymous and takes no key; with `carrental api`, add --anonymous',
  api_key_write_upgrade_required: (d) =>
    `this key is read_only; create a booking_write key in your account settings${settingsUrl(d) ? ` (${settingsUrl(d)})` : ''} and run \`carrental auth login\``,
  api_key_operation_not_enabled: 'this operation is not yet available to API keys on this deployment (see `carrental doctor`)',
  card_payments_not_enabled: 'card payments are not enabled for this account; contact support',
  rate_limited: 'rate limited: wait and rerun',
  operation_outcome_unknown: 'the outcome is unknown; rerun the same command: it reuses the same idempotency key, so it cannot book twice',
  operation_in_progress: 'the same command is still being processed; rerun the same command in a few seconds',
  idempotency_mismatch: 'this idempotency key was already used for a different command; drop --idempotency-key or use a fresh one',
  idempotency_key_invalid: 'an idempotency key is 16 to 128 printable ASCII characters',
  active_reservation_exists: 'you already have the maximum number of active reservations; see `carrental trips`',
  nothing_to_pay: 'there is no unpaid invoice of that type; `carrental trips <uuid>` shows the payment status',
  reservation_cancelled: 'the reservation is cancelled; there is nothing to pay',
  reservation_not_active: 'only a reservation in status new can be extended',
  invalid_checkout: 'the new check-out must be a valid car-local YYYY-MM-DDTHH:MM, in the future and after the current check-out',
  invalid_pagination: '--limit is 1..200',
  promo_code_not_found: 'check the promo code spelling',
  promo_already_used: 'this one-time promo code was already used on your account',
  reservation_not_found: 'no such reservation for this customer; `carrental trips` lists yours',
};

function settingsUrl(description?: string): string | undefined {
  return description?.match(/https?:\/\/\S+/)?.[0]?.replace(/[.,;)]+$/, '');
}

export function hintFor(code: string | undefined, status: number, description?: string, retryAfter?: number): string | undefined {
  const entry = code ? BY_CODE[code] : undefined;
  if (typeof entry === 'function') return entry(description);
  if (entry) return code === 'rate_limited' && retryAfter ? `rate limited: wait ${retryAfter} s and rerun` : entry;
  if (status === 401) return 'run `carrental auth login`, or set CARRENTAL_API_KEY';
  if (status === 404) return 'check the alias or uuid';
  if (status === 429 || status >= 500) {
    return retryAfter ? `the service asked to wait ${retryAfter} s (Retry-After); then rerunning the same command is safe` : 'the service is busy or failing; rerunning the same command is safe';
  }
  return description;
}
