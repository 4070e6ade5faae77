// Every error the sandbox can answer, in one table: the spec's Errors table first, then the
// codes the sandbox chose where the spec says "not shown" (docs/sandbox.md lists them).

export interface ErrorDef {
  status: number;
  error: string;
}

export const ERROR_CATALOG = {
  // The spec's Errors table.
  rate_limited: { status: 429, error: 'Rate limit exceeded' },
  invalid_credentials: { status: 401, error: 'Invalid credentials' },
  conflicting_credentials: { status: 401, error: 'Conflicting credentials' },
  api_key_operation_not_enabled: { status: 403, error: 'This operation is not available to API keys yet' },
  api_key_write_upgrade_required: { status: 403, error: 'This API key is read-only' },
  card_payments_not_enabled: { status: 403, error: 'Card payments are not enabled for this account' },
  authentication_unavailable: { status: 503, error: 'Authentication is temporarily unavailable' },
  rate_limit_unavailable: { status: 503, error: 'Rate limiting is temporarily unavailable' },
  manual_action_unavailable: { status: 503, error: 'The link could not be recorded' },
  operation_outcome_unknown: { status: 503, error: 'The outcome of the operation is unknown' },
  invalid_pagination: { status: 400, error: 'Invalid pagination' },
  date_range_incomplete: { status: 400, error: 'Incomplete date range' },
  invalid_date_format: { status: 400, error: 'Invalid date format' },
  invalid_date_range: { status: 400, error: 'Invalid date range' },
  promo_codes_disabled: { status: 400, error: 'Promo codes are disabled' },
  promo_code_not_found: { status: 400, error: 'Promo code not found' },
  promo_code_invalid: { status: 400, error: 'Promo code cannot be applied' },
  promo_already_used: { status: 400, error: 'Promo code already used' },
  active_reservation_exists: { status: 409, error: 'Maximum number of active reservations reached' },
  reservation_not_found: { status: 404, error: 'Reservation not found' },
  invalid_reservation_id: { status: 400, error: 'Invalid reservation id' },
  invalid_request_body: { status: 400, error: 'Invalid request body' },
  invalid_payment_type: { status: 400, error: 'Invalid payment type' },
  nothing_to_pay: { status: 409, error: 'Nothing to pay' },
  reservation_cancelled: { status: 409, error: 'Reservation is cancelled' },
  reservation_not_active: { status: 400, error: 'Reservation is not active' },
  invalid_checkout: { status: 400, error: 'Invalid checkout' },
  idempotency_key_required: { status: 400, error: 'Idempotency-Key header required' },
  idempotency_key_invalid: { status: 400, error: 'Invalid Idempotency-Key' },
  idempotency_mismatch: { status: 409, error: 'Idempotency key reused for a different request' },
  operation_in_progress: { status: 409, error: 'Operation in progress' },
  // Sandbox decisions where the spec leaves the code open.
  invalid_request: { status: 400, error: 'Invalid request' },
  invalid_query_parameter: { status: 400, error: 'Invalid query parameter' },
  credentials_not_accepted: { status: 400, error: 'This operation takes no credentials' },
  invalid_protection_plan: { status: 400, error: 'Unknown protection plan' },
  invalid_options: { status: 400, error: 'Invalid reservation options' },
  delivery_address_required: { status: 400, error: 'Delivery address required' },
  invalid_extra: { status: 400, error: 'Unknown extra' },
  date_in_past: { status: 400, error: 'Date is in the past' },
  outside_operating_hours: { status: 400, error: 'Outside operating hours' },
  trip_too_short: { status: 400, error: 'Trip too short' },
  trip_too_long: { status: 400, error: 'Trip too long' },
  reservation_not_cancellable: { status: 400, error: 'Reservation cannot be cancelled' },
  car_not_found: { status: 404, error: 'Car not found' },
  invoice_not_found: { status: 404, error: 'Invoice not found' },
  not_found: { status: 404, error: 'Not found' },
  method_not_allowed: { status: 405, error: 'Method not allowed' },
  admin_request_refused: { status: 403, error: 'Refused: not a local request' },
  unsupported_media_type: { status: 415, error: 'Unsupported media type' },
  car_not_available: { status: 409, error: 'Car not available for these dates' },
  driver_not_approved: { status: 409, error: 'Driver not approved to drive' },
  payment_in_progress: { status: 500, error: 'A payment is in progress' },
  // a definite refusal (nothing was created), so a 4xx: a 5xx would leave the create pending as of unknown outcome
  sandbox_state_full: { status: 409, error: 'The sandbox state is full' },
  sandbox_state_unavailable: { status: 503, error: 'The sandbox state file cannot be used' },
  internal_error: { status: 500, error: 'Internal error' },
} as const satisfies Record<string, ErrorDef>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Spec-mandated Retry-After values; 429 computes its own from the rate window. */
const FIXED_RETRY_AFTER: Partial<Record<ErrorCode, number>> = {
  authentication_unavailable: 1,
  rate_limit_unavailable: 1,
  manual_action_unavailable: 1,
  operation_outcome_unknown: 1,
  operation_in_progress: 2,
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly description: string;
  readonly retryAfter?: number;

  constructor(code: ErrorCode, description?: string, retryAfter?: number) {
    const def: ErrorDef = ERROR_CATALOG[code];
    super(def.error);
    this.code = code;
    this.status = def.status;
    this.description = description ?? def.error;
    this.retryAfter = retryAfter ?? FIXED_RETRY_AFTER[code] ?? (def.status === 503 ? 1 : undefined);
  }
}

export const apiError = (code: ErrorCode, description?: string, retryAfter?: number) =>
  new ApiError(code, description, retryAfter);
