// Errors are values with a kind; the kind decides the exit code, in this one place.
// Only bin/carrental.js turns the code into the process's exit status.
import { scrubSecrets } from './text/redact.js';
import { clean } from './text/sanitize.js';

export type ErrorKind =
  | 'usage' // bad or missing argument; no request was sent
  | 'api' // the API refused or failed in a way no other kind covers
  | 'auth' // 401 / 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'unavailable' // outcome unknown / service unavailable after retries; rerun is safe
  | 'output' // a booking or cancellation went through, then printing its result failed: do not rerun
  | 'interrupted'; // Ctrl-C

export const EXIT_CODES: Record<ErrorKind, number> = {
  usage: 2,
  api: 1,
  auth: 3,
  not_found: 4,
  conflict: 5,
  unavailable: 6,
  output: 7,
  interrupted: 130,
};

export interface ApiErrorDetails {
  status: number;
  error_code?: string;
  request_id?: string;
  description?: string;
  /** The error object as the API sent it (printed to stderr with --json). */
  body?: unknown;
  retryAfter?: number;
  /** The request the API refused; absent when the error was built without one. */
  request?: FailedRequest;
}

/** Which request an API error answers. */
export interface FailedRequest {
  method: string;
  path: string;
  /** Its id in src/api/operations.ts; undefined for a path no operation has. */
  operation?: string;
  /** The user typed the path (`carrental api`); otherwise a command built it. */
  typed: boolean;
}

/**
 * A request that failed without an API error to show: what the transport saw, as facts.
 * What to do about it is the front end's to say (src/cmdkit/hints.ts for the CLI).
 */
export type TransportFailure =
  /** A request that needs a key, and none is configured: nothing was sent. */
  | { kind: 'no_key' }
  /** The key would cross plain http to another machine: nothing was sent. */
  | { kind: 'key_over_http' }
  /** No answer within the timeout: the outcome is unknown. */
  | { kind: 'timeout' }
  /** No connection to the API (refused, unknown host, closed early). */
  | { kind: 'unreachable' }
  /** No connection through the proxy; `setting` names where it was configured (HTTPS_PROXY, ...). */
  | { kind: 'proxy'; setting: string; tunnelStatus?: number }
  /** The server's certificate cannot be trusted: nothing was sent. */
  | { kind: 'tls'; reason: 'untrusted' | 'expired' | 'not_yet_valid' | 'wrong_host' | 'revoked' }
  /**
   * A redirect not followed: to another origin, or one that would change the method
   * (refused), or too many or a 300. `baseUrlToConfigure` is where the API now answers,
   * when the paths line up.
   */
  | { kind: 'redirect'; why: 'other_origin' | 'method' | 'too_many' | 'multiple_choices'; location: string; origin: string; baseUrlToConfigure?: string }
  /** The body was longer than the cap (CARRENTAL_MAX_RESPONSE_BYTES): reading stopped. */
  | { kind: 'too_large'; capBytes: number }
  /** An answer that is not what the API sends: not JSON, no `data` envelope, or not the schema. */
  | { kind: 'malformed'; why: 'not_json' | 'no_envelope' | 'schema' };

export class CliError extends Error {
  readonly kind: ErrorKind;
  /** The next step, when whoever threw it knows one; otherwise the front end words one from the facts. */
  readonly hint?: string;
  readonly api?: ApiErrorDetails;
  readonly transport?: TransportFailure;
  /** A create or cancel whose outcome is unknown left this idempotency key journaled: rerunning the same command reuses it. */
  readonly journalKey?: string;

  constructor(
    kind: ErrorKind,
    message: string,
    opts: { hint?: string; api?: ApiErrorDetails; transport?: TransportFailure; journalKey?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CliError';
    this.kind = kind;
    this.hint = opts.hint;
    this.api = opts.api;
    this.transport = opts.transport;
    this.journalKey = opts.journalKey;
  }

  get exitCode(): number {
    return EXIT_CODES[this.kind];
  }
}

export const usageError = (message: string, hint?: string) => new CliError('usage', message, { hint });

/** The kind an HTTP error status maps to (exit codes of the contract). */
export function kindForStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429 || status >= 500) return 'unavailable';
  if (status === 400 || status === 422) return 'api';
  return 'api';
}

/**
 * True when the server's description says more than its `error` line: not empty, not the
 * same words, not contained in it.
 */
export function describesMore(error: string, description: string | undefined): boolean {
  if (!description) return false;
  // by words, not as a substring: "The car is not available for these dates" says nothing
  // that "Car not available for these dates" did not (issue 36: no error repeats its title)
  const words = (s: string) => s.toLowerCase().split(/[^a-z0-9_-]+/).filter((w) => w !== '' && !GLUE.has(w));
  const said = new Set(words(error));
  return words(description).some((w) => !said.has(w));
}

/** Words that carry no meaning of their own: a description that adds only these repeats the title. */
const GLUE = new Set(['a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'been', 'this', 'these', 'that', 'those', 'it', 'its', 'of', 'for', 'to', 'in', 'on', 'at', 'by', 'with', 'and', 'or', 'yet']);

/**
 * One line: `error: <message>[: <description>] (<error_code>, request <request_id>)`; the
 * server's description is shown when it says more than the message (often the real reason). Every part may hold a
 * server's string or the user's own typing, so each is cleaned of terminal controls and
 * of the given secrets (the active key), whatever field a server echoed it in; cleaned
 * first, so a key split by an escape sequence is still found.
 */
export function formatErrorLine(err: CliError, secrets: Array<string | undefined> = [], color = false): string {
  // red as `warning:` is yellow (chalk's codes, written out: this file loads on every start)
  const paint = (text: string) => (color ? `\u001b[31m${text}\u001b[39m` : text);
  const safe = (text: string) => scrubSecrets(clean(text), secrets);
  const tags: string[] = [];
  if (err.api?.error_code) tags.push(safe(err.api.error_code));
  if (err.api?.request_id) tags.push(`request ${safe(err.api.request_id)}`);
  const description = err.api?.description;
  // compared with the message shown and with the API's own `error` (a command may reword it)
  const sent = (err.api?.body as { error?: unknown } | undefined)?.error;
  const adds = description !== undefined && describesMore(err.message, description) && (typeof sent !== 'string' || describesMore(sent, description));
  const more = adds ? `: ${safe(description).trim().replace(/\.$/, '')}` : '';
  return `${paint('error:')} ${safe(err.message)}${more}${tags.length ? ` (${tags.join(', ')})` : ''}`;
}

/** The lines printed for an error: the error line and, where there is one, the hint (the front end's words). */
export function formatError(err: CliError, secrets: Array<string | undefined> = [], color = false, hint = err.hint): string {
  const hintLine = hint ? `hint: ${scrubSecrets(clean(hint), secrets)}\n` : '';
  return `${formatErrorLine(err, secrets, color)}\n${hintLine}`;
}
