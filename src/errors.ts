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
}

export class CliError extends Error {
  readonly kind: ErrorKind;
  readonly hint?: string;
  readonly api?: ApiErrorDetails;

  constructor(kind: ErrorKind, message: string, opts: { hint?: string; api?: ApiErrorDetails; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CliError';
    this.kind = kind;
    this.hint = opts.hint;
    this.api = opts.api;
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
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
  const d = norm(description);
  return d !== '' && !norm(error).includes(d);
}

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

/** The lines printed for an error: the error line and, where there is one, the hint. */
export function formatError(err: CliError, secrets: Array<string | undefined> = [], color = false): string {
  const hint = err.hint ? `hint: ${scrubSecrets(clean(err.hint), secrets)}\n` : '';
  return `${formatErrorLine(err, secrets, color)}\n${hint}`;
}
