// Reading one reservation back: what every front end shows after a write, and what a
// replayed write checks before it claims a booking is live.
import { READ_RETRY, type RetryPolicy } from '../api/client.js';
import type { Api } from '../api/endpoints.js';
import type { Output } from '../render/output.js';
import { CliError } from '../errors.js';

/** The spec: a 500 while a payment is in progress is temporary; wait a few seconds and read again. */
export const PAYMENT_IN_PROGRESS_WAIT_MS = 3_000;

/** Reading one reservation: the usual read retries, plus a 500 (payment in progress) after ≥ 3 s. */
export const RESERVATION_READ_RETRY: RetryPolicy = {
  maxAttempts: 5,
  maxTotalMs: 60_000,
  retryable: (f, method) => (f.kind === 'status' && f.status === 500) || READ_RETRY.retryable(f, method),
  minDelayMs: (f) => (f.kind === 'status' && f.status === 500 ? PAYMENT_IN_PROGRESS_WAIT_MS : 0),
};

/** Reads a reservation, retrying a payment in progress; `--json` callers want `payloadOf(res)`. */
export function readReservation(api: Api, uuid: string, out: Output) {
  return api.reservation(uuid, {
    retry: RESERVATION_READ_RETRY,
    onRetry: ({ attempt, maxAttempts, delayMs, failure }) => {
      const why =
        failure.kind === 'status' && failure.status === 500
          ? 'a payment may be in progress (HTTP 500)'
          : failure.kind === 'status'
            ? `HTTP ${failure.status}${failure.errorCode ? ` ${failure.errorCode}` : ''}`
            : 'connection failed';
      out.progress(`${why}: reading again in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts})`);
    },
  });
}

/**
 * How long the API asked to wait before the next request (Retry-After, sent with 429 and
 * 503), from a read that failed after the request sender's own retries; 0 when it did not say.
 * The waits of --watch and pay-link --wait never read again sooner.
 */
export function askedWaitMs(err: unknown): number {
  return err instanceof CliError && err.api?.retryAfter !== undefined ? err.api.retryAfter * 1000 : 0;
}
