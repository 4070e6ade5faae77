// Create and cancel, crash-safe: the Idempotency-Key is journaled durably before the
// request leaves, every in-process retry sends that same key, and only a definitive
// answer removes it. Whatever happens in between (a timeout, a dropped connection, a
// 5xx, Ctrl-C, kill -9), rerunning the same command finds the key and the server
// answers with the original result instead of booking or cancelling twice.
import type { Failure, RetryPolicy } from '../api/client.js';
import type { Context } from '../cli/context.js';
import type { Target } from '../cli/services.js';
import { CliError, usageError } from '../errors.js';
import type { Output } from '../render/output.js';
import { commandId, isValidIdempotencyKey, Journal, type JournalEntry, type JournalOperation } from '../store/journal.js';

/** Attempts of one create/cancel inside one process: the first plus this many retries. */
export const DEFAULT_WRITE_RETRIES = 4;
/** No new attempt starts after this long; the server's idempotency makes a rerun safe anyway. */
export const DEFAULT_WRITE_RETRY_SECONDS = 60;

const NOUN: Record<JournalOperation, string> = { createReservation: 'reserve', cancelReservation: 'cancel' };

/**
 * An attempt whose outcome we cannot know: the server may or may not have committed.
 * Timeouts and dropped connections, any 5xx (503 operation_outcome_unknown included),
 * 429, and 409 operation_in_progress (the same command is still running server-side).
 */
export function isOutcomeUnknown(failure: Failure): boolean {
  if (failure.kind === 'network') return true;
  if (failure.status >= 500 || failure.status === 429) return true;
  return failure.status === 409 && failure.errorCode === 'operation_in_progress';
}

function envCount(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text.trim()) || Number(text) > max) throw usageError(`${name} must be a whole number 0..${max}, got "${text}"`);
  return Number(text);
}

/**
 * Retries for create and cancel. The bounds can be lowered (tests) or raised (a flaky
 * link) with the undocumented CARRENTAL_WRITE_RETRIES and CARRENTAL_WRITE_RETRY_SECONDS.
 */
export function writeRetryPolicy(env: NodeJS.ProcessEnv): RetryPolicy {
  const retries = envCount(env, 'CARRENTAL_WRITE_RETRIES', DEFAULT_WRITE_RETRIES, 50);
  const seconds = envCount(env, 'CARRENTAL_WRITE_RETRY_SECONDS', DEFAULT_WRITE_RETRY_SECONDS, 3600);
  return {
    maxAttempts: retries + 1,
    maxTotalMs: seconds * 1000,
    retryable: (failure) => isOutcomeUnknown(failure),
  };
}

/**
 * A 2xx, or a 4xx other than 429 and 409 operation_in_progress: the server has decided,
 * so the command is over and its key must not be reused. A malformed 2xx body (no api
 * details) is not definitive: the server committed something we could not read, and a
 * rerun with the same key replays it.
 */
export function isDefinitiveRefusal(err: unknown): boolean {
  if (!(err instanceof CliError) || !err.api) return false;
  const { status, error_code: code } = err.api;
  if (status < 400 || status >= 500 || status === 429) return false;
  return !(status === 409 && code === 'operation_in_progress');
}

/** "12 s", "4 min", "3 h", "2 d". */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `${min} min`;
  const h = Math.round(min / 60);
  if (h < 36) return `${h} h`;
  return `${Math.round(h / 24)} d`;
}

export function openJournal(ctx: Context, out: Output): Journal {
  return new Journal({ path: Journal.defaultPath(ctx.env), now: () => ctx.now(), onWarning: (m) => out.warn(m) });
}

export interface WriteCommand {
  operation: JournalOperation;
  /** Car alias or reservation uuid, shown by `pending`. */
  target: string;
  /** The canonical request: what makes two runs "the same command". */
  request: unknown;
  /** --idempotency-key, already validated. */
  key?: string;
}

/** Validates --idempotency-key against the journal's rule (no spaces at either end). */
export function parseWriteKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isValidIdempotencyKey(value)) {
    throw usageError('--idempotency-key must be 16 to 128 printable ASCII characters, without spaces at either end');
  }
  return value;
}

/** What the journal records as the API: the embedded sandbox gets a fresh port every run, so it is just "sandbox". */
export const SANDBOX_JOURNAL_URL = 'sandbox';

export function journalBaseUrl(target: Pick<Target, 'sandbox' | 'baseUrl'>): string {
  return target.sandbox ? SANDBOX_JOURNAL_URL : target.baseUrl;
}

export class JournaledWrite {
  private announced?: string;

  constructor(
    private readonly ctx: Context,
    private readonly out: Output,
    private readonly target: Target,
    readonly journal: Journal = openJournal(ctx, out),
  ) {}

  private command(cmd: WriteCommand) {
    return { profile: this.target.profile, baseUrl: journalBaseUrl(this.target), operation: cmd.operation, target: cmd.target, request: cmd.request, key: cmd.key };
  }

  /**
   * The live journal entry this run will resume, if any (nothing is written). A given
   * --idempotency-key that differs from the journaled one starts a new command instead.
   */
  async pending(cmd: WriteCommand): Promise<JournalEntry | undefined> {
    const id = commandId(this.target.profile, journalBaseUrl(this.target), cmd.operation, cmd.request);
    const found = (await this.journal.list()).find((e) => e.id === id && !e.expired);
    if (!found || (cmd.key !== undefined && cmd.key !== found.key)) return undefined;
    return found;
  }

  /** Tells the user this run reuses an earlier key (once per entry). */
  announceResume(entry: JournalEntry): void {
    if (this.announced === entry.id) return;
    this.announced = entry.id;
    const age = formatAge(this.ctx.now().getTime() - Date.parse(entry.createdAt));
    this.out.info(`resuming a pending ${NOUN[entry.operation]} from ${age} ago with the same idempotency key (${entry.key})`);
  }

  /**
   * Journals the key (durably), sends with in-process retries under that key, and settles
   * the entry on a definitive answer. Any other ending leaves the entry for a rerun and
   * says so.
   */
  async run<T>(cmd: WriteCommand, send: (key: string, retry: RetryPolicy, onRetry: (info: { attempt: number; maxAttempts: number; delayMs: number; failure: Failure }) => Promise<void>) => Promise<T>): Promise<T> {
    const policy = writeRetryPolicy(this.ctx.env);
    const { entry, reused } = await this.journal.begin(this.command(cmd));
    if (reused) this.announceResume(entry);
    const noun = NOUN[cmd.operation];
    const rerun = `rerunning the same command is safe: it reuses idempotency key ${entry.key} (see \`carrental pending\`)`;

    const onRetry = async ({ attempt, maxAttempts, delayMs, failure }: { attempt: number; maxAttempts: number; delayMs: number; failure: Failure }) => {
      await this.journal.touch(entry.id);
      this.out.progress(`${describeFailure(failure)}: retrying the ${noun} with the same idempotency key in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts})`);
    };

    try {
      if (this.ctx.signal.aborted) throw new CliError('interrupted', 'interrupted');
      await this.journal.touch(entry.id);
      const result = await send(entry.key, policy, onRetry);
      this.out.clearProgress();
      await this.journal.settle(entry.id);
      return result;
    } catch (err) {
      this.out.clearProgress();
      if (isDefinitiveRefusal(err)) {
        await this.journal.settle(entry.id);
        throw err;
      }
      if (err instanceof CliError && err.kind === 'interrupted') {
        // one line, printed once by the caller: what is known and what to do
        throw new CliError('interrupted', `interrupted: the outcome of this ${noun} is unknown; ${rerun}`, { cause: err });
      }
      const cause = err instanceof Error ? err.message : String(err);
      const api = err instanceof CliError ? err.api : undefined;
      throw new CliError('unavailable', `the outcome of this ${noun} is unknown: ${cause}`, { hint: rerun, api, cause: err });
    }
  }
}

export function describeFailure(failure: Failure): string {
  if (failure.kind === 'status') return `HTTP ${failure.status}${failure.errorCode ? ` ${failure.errorCode}` : ''}`;
  if (failure.timedOut) return 'timed out';
  return `connection failed${failure.code ? ` (${failure.code})` : ''}`;
}
