// Create and cancel, crash-safe: the Idempotency-Key is journaled durably before the
// request leaves, every in-process retry sends that same key, and a 2xx turns the entry
// "done" (with its result) instead of removing it. Whatever happens in between (a timeout,
// a dropped connection, a 5xx, Ctrl-C, kill -9), rerunning the same command finds the key
// and the server answers with the original result instead of booking or cancelling twice;
// and for the replay window after a 2xx the same command, even started at the same moment
// in another terminal, replays that key too (see docs/reliability.md).
import { writeFileSync } from 'node:fs';
import { isCertificateError, type Failure, type RetryPolicy } from '../api/client.js';
import { CliError, usageError } from '../errors.js';
import type { Output } from '../render/output.js';
import { SANDBOX_JOURNAL_URL } from './journal-url.js';
import {
  credentialFingerprint,
  SentElsewhere,
  DEFAULT_REPLAY_WINDOW_MS,
  Journal,
  unfinishedCommandError,
  type JournalEntry,
  type JournalOperation,
} from '../store/journal.js';

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

/**
 * The replay window in ms: CARRENTAL_REPLAY_WINDOW seconds (0..86400; 0 turns replays of
 * finished commands off), default 600.
 */
export function replayWindowMs(env: NodeJS.ProcessEnv): number {
  return envCount(env, 'CARRENTAL_REPLAY_WINDOW', DEFAULT_REPLAY_WINDOW_MS / 1000, 86_400) * 1000;
}

/** What a journaled write needs of the command running it (a front end's context is one). */
export interface WriteContext {
  env: NodeJS.ProcessEnv;
  now: () => Date;
  signal: AbortSignal;
  sleep: (ms: number) => Promise<void>;
}

/** The API and credential a write goes to: what makes two runs "the same command". */
export interface WriteTarget {
  profile: string;
  baseUrl: string;
  apiKey?: string;
  sandbox: boolean;
}

export function openJournal(ctx: Pick<WriteContext, 'env' | 'now'>, out: Output): Journal {
  const staleSeconds = ctx.env.CARRENTAL_TEST_LOCK_STALE_SECONDS;
  return new Journal({
    path: Journal.defaultPath(ctx.env),
    now: () => ctx.now(),
    replayWindowMs: replayWindowMs(ctx.env),
    onWarning: (m) => out.warn(m),
    lockStaleMs: staleSeconds ? envCount(ctx.env, 'CARRENTAL_TEST_LOCK_STALE_SECONDS', 10, 60) * 1000 : undefined,
    inLock: stopInLockForTest(ctx.env),
  });
}

/**
 * Test-only, undocumented, like the two variables beside it: with
 * CARRENTAL_TEST_STOP_IN_JOURNAL_LOCK=<step>:<file>, the first journal change named <step>
 * (begin: before the request is sent; complete: after the answer) creates <file> and stops
 * its own process with a real SIGSTOP while it holds the journal lock and has read the
 * journal, so that test/store/fencing.e2e.test.ts can let another process take the lock
 * over (CARRENTAL_TEST_LOCK_STALE_SECONDS lowers the stale time) and then SIGCONT it.
 */
function stopInLockForTest(env: NodeJS.ProcessEnv): ((step: string) => void) | undefined {
  const spec = env.CARRENTAL_TEST_STOP_IN_JOURNAL_LOCK;
  const at = spec?.indexOf(':') ?? -1;
  if (!spec || at < 0) return undefined;
  let fired = false;
  return (step) => {
    if (fired || step !== spec.slice(0, at)) return;
    fired = true;
    writeFileSync(spec.slice(at + 1), String(process.pid));
    process.kill(process.pid, 'SIGSTOP');
  };
}

export interface WriteCommand {
  operation: JournalOperation;
  /** Car alias or reservation uuid, shown by `pending`. */
  target: string;
  /** The canonical request: what makes two runs "the same command". */
  request: unknown;
  /** --idempotency-key, already validated. */
  key?: string;
  /** Start a new command even if this one finished within the replay window (reserve --new). */
  fresh?: boolean;
  /**
   * The request alone is the identity (a create, see createCommand): a live identical
   * command is resumed or replayed with its own key whatever `key` says.
   */
  keyYields?: boolean;
}

/** What a run learnt about its key, for the caller's report. */
export interface RunInfo {
  /** The entry as this run began it (its state then: pending, or done for a replay). */
  entry: JournalEntry;
  /** The key was journaled before this run: the answer may be the original one, not a new booking. */
  reused: boolean;
  /** When the same command was answered before (this run is a replay): by an earlier run, or by a concurrent one that finished first. */
  doneBefore?: string;
}

export interface RunOptions<T> {
  /**
   * Shows the result. Runs after the 2xx and before the entry is marked done, so that a
   * crash before the result reached the user leaves the entry pending (rerun: the same
   * result), however late the rerun comes. If it throws, the entry stays pending.
   */
  report?: (result: T, info: RunInfo) => void | Promise<void>;
}

/** The `data` of an answer when it is a string (uuid, "OK"): what the journal keeps as the result. */
function resultText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  const data = value !== null && typeof value === 'object' ? (value as { data?: unknown }).data : undefined;
  return typeof data === 'string' ? data : null;
}

export { SANDBOX_JOURNAL_URL };

export function journalBaseUrl(target: Pick<WriteTarget, 'sandbox' | 'baseUrl'>): string {
  return target.sandbox ? SANDBOX_JOURNAL_URL : target.baseUrl;
}

/**
 * What a front end adds, in its own words, to the lines a write prints: the core names no
 * command of either front end (the CLI's words are src/cmdkit/rerun.ts's cliWriteWords).
 */
export interface WriteWords {
  /** After "replaying idempotency key K" of a create: how to book another instead (the CLI names its flag). */
  bookAnother?: string;
  /** What the embedded sandbox is called where a refusal says a write went (default "the embedded sandbox"). */
  sandbox?: string;
  /** How to finish a write whose outcome is unknown, after "finish it where it was sent" (the CLI: its `pending` line). */
  finishPending?: (entry: JournalEntry) => string;
  /**
   * What shows a reservation (or, without a uuid, the reservations): "X shows it". `sentTo`
   * is the journal entry of a write sent to another address, whose API the answer names.
   */
  seeReservation?: (uuid: string | undefined, sentTo?: Pick<JournalEntry, 'baseUrl' | 'profile'>) => string;
}

const seeDefault = () => 'the list of trips';

export class JournaledWrite {
  private announced?: string;

  constructor(
    private readonly ctx: WriteContext,
    private readonly out: Output,
    private readonly target: WriteTarget,
    readonly journal: Journal = openJournal(ctx, out),
    private readonly words: WriteWords = {},
  ) {}

  private command(cmd: WriteCommand) {
    return {
      profile: this.target.profile,
      baseUrl: journalBaseUrl(this.target),
      credential: credentialFingerprint(this.target.apiKey ?? ''),
      operation: cmd.operation,
      target: cmd.target,
      request: cmd.request,
      key: cmd.key,
      fresh: cmd.fresh,
      keyYields: cmd.keyYields,
    };
  }

  /**
   * The live journal entry this run will resume or replay, if any (nothing is written). A
   * given --idempotency-key that differs from the journaled one starts a new command
   * instead, unless the command's key yields (a create: the identical request wins); `fresh`
   * starts a new command over a done entry; `fresh` with an unfinished one is a usage error
   * (a new key could book twice). `readOnly` (a dry run) reads without the lock and
   * changes no file.
   */
  async pending(cmd: WriteCommand, opts: { readOnly?: boolean } = {}): Promise<JournalEntry | undefined> {
    // a dry run writes nothing at all: not even the lock, nor a corrupt journal set aside
    const look = opts.readOnly ? this.journal.peek(this.command(cmd)) : this.journal.lookup(this.command(cmd));
    const found = await look.catch((err: unknown) => this.reword(err));
    if (!found || (cmd.key !== undefined && cmd.key !== found.key && !cmd.keyYields)) return undefined;
    if (cmd.fresh) {
      if (found.state === 'pending') throw unfinishedCommandError(found, this.ctx.now());
      return undefined;
    }
    return found;
  }

  /**
   * The same request with the same credential is live under another base URL (a proxy's
   * rewritten path, the address a 307 points at, an old spelling of a moved API): the
   * identity is not the address, so nothing is sent; the error says where it went, how to
   * finish it and how to book another anyway.
   */
  private reword(err: unknown): never {
    if (!(err instanceof SentElsewhere)) throw err;
    const e = err.entry;
    const where = e.baseUrl === SANDBOX_JOURNAL_URL ? (this.words.sandbox ?? 'the embedded sandbox') : e.baseUrl;
    const see = this.words.seeReservation ?? seeDefault;
    const create = e.operation === 'createReservation';
    const another = create ? `; ${this.words.bookAnother ?? 'a create with fresh books another'} anyway` : '';
    const now = this.ctx.now().getTime();
    if (e.state === 'pending') {
      const finish = this.words.finishPending?.(e);
      throw new CliError(
        'usage',
        `an identical ${NOUN[e.operation]} was sent to ${where} ${formatAge(now - Date.parse(e.createdAt))} ago and its outcome is not known yet (idempotency key ${e.key}): nothing was sent`,
        {
          hint: `it is the same request with the same API key, whatever the address: finish it where it was sent${finish ? `, ${finish}` : ''}${another}`,
        },
      );
    }
    const age = formatAge(now - Date.parse(e.doneAt!));
    if (!create) throw new CliError('usage', `already cancelled by this same command through ${where} ${age} ago: nothing was sent`);
    throw new CliError('usage', `already reserved by this same command through ${where} ${age} ago${e.result ? `: ${e.result}` : ''}; nothing was sent`, {
      hint: `${e.result ? `${see(e.result, e)} shows it` : `check ${see(undefined, e)}`}${another}`,
    });
  }

  /**
   * Tells the user this run reuses an earlier key (once per entry); `givenKey`, a key the
   * caller gave that yields to the journaled one, is named as not sent.
   */
  announceResume(entry: JournalEntry, givenKey?: string): void {
    // by key: a format-1 entry found by pending() gets a new id when begin() adopts it
    if (this.announced === entry.key) return;
    this.announced = entry.key;
    const now = this.ctx.now().getTime();
    const notGiven = givenKey !== undefined && givenKey !== entry.key ? `, not the given ${givenKey}` : '';
    if (entry.state === 'done') {
      const age = formatAge(now - Date.parse(entry.doneAt!));
      const what = entry.operation === 'createReservation' ? `already reserved by this same command ${age} ago${entry.result ? `: ${entry.result}` : ''}` : `already cancelled by this same command ${age} ago`;
      const fresh = entry.operation === 'createReservation' && this.words.bookAnother ? `; ${this.words.bookAnother}` : '';
      this.out.info(`${what} (replaying idempotency key ${entry.key}${notGiven}${fresh})`);
      return;
    }
    const age = formatAge(now - Date.parse(entry.createdAt));
    this.out.info(`resuming a pending ${NOUN[entry.operation]} from ${age} ago with the same idempotency key (${entry.key}${notGiven})`);
  }

  /**
   * Journals the key (durably: if that fails, nothing is sent), sends with in-process
   * retries under that key, and on a 2xx reports the result and marks the entry done
   * (kept for the replay window). A definitive refusal removes the entry; any other
   * ending leaves it pending for a rerun and says so. Returns what `send` returned.
   */
  async run<T>(
    cmd: WriteCommand,
    send: (key: string, retry: RetryPolicy, onRetry: (info: { attempt: number; maxAttempts: number; delayMs: number; failure: Failure }) => Promise<void>) => Promise<T>,
    opts: RunOptions<T> = {},
  ): Promise<T> {
    const policy = writeRetryPolicy(this.ctx.env);
    if (this.ctx.signal.aborted) throw new CliError('interrupted', 'interrupted');
    const command = this.command(cmd);
    const { entry, reused } = await this.journal.begin(command).catch((err: unknown) => this.reword(err));
    if (reused) this.announceResume(entry, cmd.key);
    const noun = NOUN[cmd.operation];

    const onRetry = async ({ attempt, maxAttempts, delayMs, failure }: { attempt: number; maxAttempts: number; delayMs: number; failure: Failure }) => {
      await this.journal.touch(entry.id);
      this.out.progress(`${describeFailure(failure)}: retrying the ${noun} with the same idempotency key in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts})`);
    };

    let result: T;
    try {
      result = await this.sendWhileInProgress(() => send(entry.key, policy, onRetry), policy, entry, noun);
      this.out.clearProgress();
    } catch (err) {
      this.out.clearProgress();
      if (isDefinitiveRefusal(err)) {
        await this.journal.settle(entry.id);
        throw err;
      }
      if (entry.state === 'done' && !(err instanceof CliError && err.kind === 'usage') && !isCertificateError(err)) {
        // A replay of a finished command: its outcome is known, and `pending` lists nothing.
        throw this.replayFailed(entry, err);
      }
      if (err instanceof CliError && err.kind === 'interrupted') {
        // one line, printed once by the caller: what is known (the front end adds what to do)
        throw new CliError('interrupted', `interrupted: the outcome of this ${noun} is unknown`, { journalKey: entry.key, cause: err });
      }
      // The client refuses some requests before sending anything (a key over plain http to
      // a remote host): that is a usage error, exit 2, not an unknown outcome.
      if (err instanceof CliError && err.kind === 'usage') throw err;
      // A certificate that cannot be trusted stops the connection before the request is
      // sent: the outcome is known (nothing happened), and a rerun fails the same way until
      // the trust changes. A first attempt's entry goes; an earlier unknown outcome stays.
      if (isCertificateError(err)) {
        if (!reused) await this.journal.settle(entry.id);
        throw err;
      }
      const cause = err instanceof Error ? err.message : String(err);
      const api = err instanceof CliError ? err.api : undefined;
      throw new CliError('unavailable', `the outcome of this ${noun} is unknown: ${cause}`, { api, journalKey: entry.key, cause: err });
    }

    await pauseForCrashTest(this.ctx.env);
    let doneBefore = entry.state === 'done' ? entry.doneAt : undefined;
    if (reused && !doneBefore && opts.report) {
      // A concurrent run of the same command may have been answered first: then ours is its replay.
      const now = await this.journal.lookup(command).catch(() => undefined);
      if (now?.state === 'done' && now.key === entry.key) doneBefore = now.doneAt;
    }
    let printFailed: CliError | undefined;
    try {
      await opts.report?.(result, { entry, reused, doneBefore });
    } catch (err) {
      // Printing failed after the answer (exit 7, the error names what was done): the
      // command is finished all the same, so its entry is completed, not left pending.
      if (!(err instanceof CliError && err.kind === 'output')) throw err;
      printFailed = err;
    }
    try {
      await this.journal.complete(entry.id, resultText(result));
    } catch (err) {
      // The answer is in hand (and reported); the entry stays pending, so a rerun replays it.
      this.out.warn(`could not record the finished ${noun} in the journal (${err instanceof Error ? err.message : String(err)}); a rerun replays the same key`);
    }
    if (printFailed) throw printFailed;
    return result;
  }

  /** A replay that got no answer: say what is true (it was done, and what it made), not "unknown" and `pending`. */
  private replayFailed(entry: JournalEntry, err: unknown): CliError {
    const age = formatAge(this.ctx.now().getTime() - Date.parse(entry.doneAt!));
    const cause = err instanceof Error ? err.message : String(err);
    const noun = NOUN[entry.operation];
    const what = entry.operation === 'createReservation' ? `reserved${entry.result ? ` ${entry.result}` : ''}` : 'cancelled';
    const uuid = entry.operation === 'createReservation' ? entry.result : entry.target;
    const kind = err instanceof CliError && err.kind === 'interrupted' ? 'interrupted' : 'unavailable';
    return new CliError(kind, `this same ${noun} ${what} ${age} ago; replaying its answer failed (${cause}), and nothing new was done`, {
      hint: `${(this.words.seeReservation ?? seeDefault)(uuid ?? undefined)} shows it; rerunning replays the same answer (idempotency key ${entry.key})`,
      cause: err,
    });
  }

  /**
   * 409 operation_in_progress means the same command (our key) is being processed right
   * now, by an identical run in another terminal or by our own earlier attempt: its answer
   * will be ours. The client's attempt count is meant for failures, and N identical
   * commands started at once on a busy machine can see more of these than it allows, so
   * rounds of attempts continue, each after the server's Retry-After, for as long as the
   * write's time budget (CARRENTAL_WRITE_RETRY_SECONDS) lasts.
   */
  private async sendWhileInProgress<T>(attempt: () => Promise<T>, policy: RetryPolicy, entry: JournalEntry, noun: string): Promise<T> {
    const started = Date.now();
    for (;;) {
      try {
        return await attempt();
      } catch (err) {
        const api = err instanceof CliError ? err.api : undefined;
        if (api?.status !== 409 || api.error_code !== 'operation_in_progress') throw err;
        const waitMs = (api.retryAfter ?? 2) * 1000;
        if (Date.now() - started + waitMs > policy.maxTotalMs) throw err;
        await this.journal.touch(entry.id);
        this.out.progress(`the same ${noun} is in progress (HTTP 409 operation_in_progress): asking again with the same idempotency key in ${Math.ceil(waitMs / 1000)} s`);
        await this.ctx.sleep(waitMs);
      }
    }
  }
}

/**
 * Test-only, undocumented: with CARRENTAL_TEST_PAUSE_AFTER_ANSWER=<file>, a run that has
 * the server's 2xx in hand, before it shows or records anything, creates <file> and
 * waits, so that test/booking/crash.e2e.test.ts can SIGKILL it in exactly the window
 * where a crash used to lose the answer. A timing-based kill would hit that window only
 * by luck, and a proxy cannot see when the process has read the answer.
 */
async function pauseForCrashTest(env: NodeJS.ProcessEnv): Promise<void> {
  const marker = env.CARRENTAL_TEST_PAUSE_AFTER_ANSWER;
  if (!marker) return;
  const { writeFileSync } = await import('node:fs');
  writeFileSync(marker, String(process.pid));
  await new Promise<void>(() => {
    setInterval(() => undefined, 60_000); // keeps the process alive until it is killed
  });
}

export function describeFailure(failure: Failure): string {
  if (failure.kind === 'status') return `HTTP ${failure.status}${failure.errorCode ? ` ${failure.errorCode}` : ''}`;
  if (failure.timedOut) return 'timed out';
  return `connection failed${failure.code ? ` (${failure.code})` : ''}`;
}
