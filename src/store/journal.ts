// The idempotency journal: the Idempotency-Key of every create/cancel, written durably
// before the request leaves, so that rerunning the same command after a timeout, a 5xx or
// a killed process sends the same key and the server answers with the original result
// instead of booking (or cancelling) twice.
//
// An entry is "pending" from before the first send until a 2xx; then it is "done" with
// its result (the reservation uuid, "OK") and kept for the replay window, so that the
// same command started at the same moment, or rerun soon after, replays the same key
// instead of minting a new one (which is how two identical commands used to book twice).
// A definitive refusal (4xx) removes the entry: the command is over and changed nothing.
//
// An entry belongs to one API base URL, one credential (a fingerprint of the key, never
// the key), one operation and one canonical request; a run with another customer's key
// neither sees nor removes it.
//
// File format (JSON, 0600, in a 0700 directory):
//   { "version": 2, "entries": [JournalEntry, ...] }
// Format 1 (no credential, no state) is read and migrated: its entries stay pending and
// are bound to the first credential that resumes them.
//
// Every read-modify-write runs under a cross-process lock and rereads the file inside
// it, so concurrent carrental processes never lose each other's entries; every write is
// whole or nothing (atomic-file.ts).

import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { canonicalBaseUrl } from '../api/base-url.js';
import { CliError, usageError } from '../errors.js';
import { clean } from '../text/sanitize.js';
import { fsyncDirSync, type AtomicFs } from './atomic-file.js';
import { randomUUID } from './lazy-crypto.js';
import { LockedFile, type HeldFile } from './locked-file.js';
import {
  canonicalJson,
  commandId,
  FORMAT_VERSION,
  isValidIdempotencyKey,
  legacyCommandId,
  normalizeBaseUrl,
  OPERATIONS,
  parseJournal,
  rawUrlCommandId,
  type JournalCommand,
  type JournalEntry,
  type JournalOperation,
} from './journal-entry.js';
import { stateDir } from './paths.js';

// The entry model is its own module; callers keep importing it from here.
export { canonicalJson, commandId, credentialFingerprint, isValidIdempotencyKey } from './journal-entry.js';
export type { JournalCommand, JournalEntry, JournalOperation, JournalState } from './journal-entry.js';

export interface JournalOptions {
  path: string;
  now?: () => Date;
  /** How long after its last use a pending entry stops being reused. Default DEFAULT_TTL_MS. */
  ttlMs?: number;
  /** How long after its answer a done entry is replayed. Default DEFAULT_REPLAY_WINDOW_MS; 0 turns replays off. */
  replayWindowMs?: number;
  /** Receives problems that do not stop the command (a corrupt file set aside, ...). */
  onWarning?: (message: string) => void;
  /**
   * After how long an un-refreshed lock counts as abandoned (its holder was killed).
   * Default 10 s; proper-lockfile enforces at least 2 s. Tests lower it.
   */
  lockStaleMs?: number;
  /** Tests inject a short write here (atomic-file.ts); default node:fs. */
  fs?: AtomicFs;
  /**
   * Test-only: runs inside the lock, after a change's read and before its write, with the
   * change's name (test/store/fencing.e2e.test.ts stops the process there).
   */
  inLock?: (step: JournalStep) => void;
}

/** The journal's changes, as `inLock` names them. */
export type JournalStep = 'begin' | 'touch' | 'complete' | 'settle' | 'clear';

/**
 * 24 hours. The server keeps idempotent results forever, but rerunning an unfinished
 * reservation a day after the last attempt is far more likely a new intent than a retry.
 */
export const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * 10 minutes: long enough for identical commands started together, a rerun after a crash
 * or a lost terminal, a script's retry loop; short enough that the same booking wanted
 * again later is not mistaken for a retry (and --new books again at once).
 */
export const DEFAULT_REPLAY_WINDOW_MS = 10 * 60 * 1000;
export const JOURNAL_FILE = 'journal.json';
const DEFAULT_LOCK_STALE_MS = 10_000;


function isNodeError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}

function fsError(action: string, file: string, err: unknown, hint?: string): CliError {
  if (err instanceof CliError) return err;
  const detail = isNodeError(err) ? (err.code ?? err.message) : String(err);
  return new CliError('api', `cannot ${action} the idempotency journal ${file} (${detail})`, { cause: err, hint });
}

const defaultWarning = (message: string) => {
  process.stderr.write(`warning: ${message}\n`);
};

async function fsyncDir(dir: string): Promise<void> {
  fsyncDirSync(dir);
}

interface LockedIo {
  read(): Promise<JournalEntry[]>;
  write(entries: JournalEntry[]): Promise<void>;
}

export class Journal {
  readonly path: string;
  private readonly dir: string;
  private readonly lockPath: string;
  private readonly now: () => Date;
  private readonly ttlMs: number;
  readonly replayWindowMs: number;
  private readonly warn: (message: string) => void;
  private readonly file: LockedFile;
  private readonly inLock?: (step: JournalStep) => void;

  constructor(opts: JournalOptions) {
    this.inLock = opts.inLock;
    this.path = path.resolve(opts.path);
    this.dir = path.dirname(this.path);
    this.lockPath = `${this.path}.lock`;
    this.now = opts.now ?? (() => new Date());
    this.ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
    if (!(this.ttlMs > 0)) throw new TypeError(`Journal ttlMs must be a positive number, got ${opts.ttlMs}`);
    this.replayWindowMs = opts.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
    if (!(this.replayWindowMs >= 0)) throw new TypeError(`Journal replayWindowMs must be >= 0, got ${opts.replayWindowMs}`);
    const warn = opts.onWarning ?? defaultWarning;
    // a warning may quote the file's own bytes (a corrupt journal): one terminal-safe line
    this.warn = (message) => warn(clean(message));
    const staleMs = opts.lockStaleMs ?? DEFAULT_LOCK_STALE_MS;
    this.file = new LockedFile({
      path: this.path,
      lockPath: this.lockPath,
      what: 'the idempotency journal',
      lockWhat: 'the idempotency journal lock',
      staleMs,
      // About twice the stale time, so that a lock left by a SIGKILLed process is taken
      // over instead of failing the command.
      waitMs: 2 * staleMs,
      fail: (action, err) => fsError(action, this.path, err),
      fs: opts.fs,
      // write-file-atomic's `journal.json.<digits>`, from versions that used it
      legacyTempSuffix: /^\d+$/,
    });
  }

  /** `<stateDir>/journal.json`. */
  static defaultPath(env: NodeJS.ProcessEnv = process.env): string {
    return path.join(stateDir(env), JOURNAL_FILE);
  }

  /**
   * Finds the live entry for this command (pending, or done within the replay window) or
   * creates a pending one with a fresh UUID v4 key (or `key` if given); durable (whole
   * file, fsync of file and dir) before it resolves, so a failure here means nothing may
   * be sent. Counts one attempt: the caller sends right after.
   *
   * - A format-1 entry of the same profile and request, not yet bound to a credential,
   *   is adopted by this credential.
   * - `key` given and different from the journaled one: with `keyYields` (a create) the
   *   journaled entry is reused all the same (the request is the identity); otherwise the
   *   given key wins (new entry, `reused` false, a warning). An invalid `key` is a usage
   *   error (nothing written).
   * - `fresh`: a done entry is replaced by a new command; a pending one is refused
   *   (usage error), since its outcome is unknown and a new key could book twice.
   */
  async begin(cmd: JournalCommand): Promise<{ entry: JournalEntry; reused: boolean }> {
    if (!OPERATIONS.includes(cmd.operation)) throw new TypeError(`unknown journal operation ${String(cmd.operation)}`);
    if (cmd.key !== undefined && !isValidIdempotencyKey(cmd.key)) {
      throw usageError(
        'the idempotency key must be 16 to 128 printable ASCII characters, without leading or trailing spaces',
      );
    }
    const id = commandId(cmd);
    // What is stored is what was hashed, so `pending` shows exactly what identifies it.
    const request: unknown = JSON.parse(canonicalJson(cmd.request));

    return this.locked(async (io) => {
      const now = this.now();
      const stamp = now.toISOString();
      const entries = this.live(await io.read(), now);
      const index = this.indexOf(entries, cmd, id);
      const existing = index >= 0 ? entries[index] : undefined;
      if (!existing && !cmd.fresh) this.refuseElsewhere(entries, cmd);

      let entry: JournalEntry;
      let reused: boolean;
      if (existing && cmd.fresh && existing.state === 'pending') throw unfinishedCommandError(existing, now);
      if (existing && !cmd.fresh && (cmd.key === undefined || cmd.key === existing.key || cmd.keyYields)) {
        entry = { ...existing, id, credential: cmd.credential, updatedAt: stamp, attempts: existing.attempts + 1 };
        reused = true;
      } else {
        if (existing && !cmd.fresh) {
          this.warn(
            `replacing the journaled idempotency key ${existing.key} of this ${cmd.operation} (${existing.target}) ` +
              `with the given key ${cmd.key}; the server treats it as a new command`,
          );
        }
        entry = {
          id,
          key: cmd.key ?? randomUUID(),
          profile: cmd.profile,
          baseUrl: normalizeBaseUrl(cmd.baseUrl),
          credential: cmd.credential,
          operation: cmd.operation,
          target: cmd.target,
          request,
          createdAt: stamp,
          updatedAt: stamp,
          attempts: 1,
          state: 'pending',
        };
        reused = false;
      }
      if (index >= 0) entries[index] = entry;
      else entries.push(entry);
      await io.write(entries, 'nothing was sent');
      return { entry: structuredClone(entry), reused };
    }, 'begin');
  }

  /** The live entry this command would resume (pending, or done within the window); writes nothing. */
  async lookup(cmd: Omit<JournalCommand, 'key' | 'target'>): Promise<JournalEntry | undefined> {
    if (!(await this.fileExists())) return undefined;
    const id = commandId(cmd);
    return this.locked(async (io) => {
      const entries = this.live(await io.read(), this.now());
      const index = this.indexOf(entries, cmd, id);
      if (index < 0 && !cmd.fresh) this.refuseElsewhere(entries, cmd);
      return index >= 0 ? structuredClone(entries[index]) : undefined;
    });
  }

  /**
   * The identity of a command is its request and credential, not the address it went to:
   * a live entry (pending, or done within the replay window) of the same request and
   * credential journaled under another base URL (the path a proxy rewrites to, the
   * address a 307 points at) stops this command before anything is sent. The front end
   * words it (SentElsewhere carries the entry); `fresh` goes ahead anyway.
   */
  private refuseElsewhere(entries: JournalEntry[], cmd: Omit<JournalCommand, 'key' | 'target'>): void {
    const request = canonicalJson(cmd.request);
    const here = canonicalBaseUrl(cmd.baseUrl);
    const twin = entries.find(
      (e) => e.credential === cmd.credential && e.operation === cmd.operation && canonicalBaseUrl(e.baseUrl) !== here && canonicalJson(e.request) === request,
    );
    if (twin) throw new SentElsewhere(structuredClone(twin));
  }

  /**
   * lookup() for a run that must write nothing at all (--dry-run): no lock, no directory,
   * and a corrupt file is left where it is (a warning says what a real run would do).
   */
  async peek(cmd: Omit<JournalCommand, 'key' | 'target'>): Promise<JournalEntry | undefined> {
    let text: string | undefined;
    try {
      text = this.file.read();
    } catch (err) {
      if (isNodeError(err) && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return undefined;
      throw fsError('read', this.path, err);
    }
    if (text === undefined) return undefined;
    const parsed = parseJournal(text);
    if (!parsed.ok) {
      this.warn(`the idempotency journal ${this.path} is corrupt (${parsed.reason}); a real run would move it aside and start a new one (this dry run left it as it is)`);
      return undefined;
    }
    const entries = this.live(parsed.entries, this.now());
    const index = this.indexOf(entries, cmd, commandId(cmd));
    if (index < 0 && !cmd.fresh) this.refuseElsewhere(entries, cmd);
    return index >= 0 ? structuredClone(entries[index]) : undefined;
  }

  private indexOf(entries: JournalEntry[], cmd: Omit<JournalCommand, 'key' | 'fresh' | 'target'>, id: string): number {
    const index = entries.findIndex((e) => e.id === id);
    if (index >= 0) return index;
    const rawUrlId = rawUrlCommandId(cmd);
    const before = entries.findIndex((e) => e.credential !== null && e.id === rawUrlId);
    if (before >= 0) return before;
    const legacy = legacyCommandId(cmd.profile, cmd.baseUrl, cmd.operation, cmd.request);
    return entries.findIndex((e) => e.credential === null && e.id === legacy);
  }

  /**
   * Records one more attempt (updatedAt, attempts). If the entry is gone (cleared by
   * `pending clear` in another terminal, or expired) a warning says a rerun will not
   * reuse the key; the command itself carries on.
   */
  async touch(id: string): Promise<void> {
    if (!(await this.fileExists())) {
      this.warnMissing(id);
      return;
    }
    await this.locked(async (io) => {
      const now = this.now();
      const all = await io.read();
      const entries = this.live(all, now);
      const entry = entries.find((e) => e.id === id);
      if (!entry) {
        this.warnMissing(id);
        if (entries.length !== all.length) await io.write(entries);
        return;
      }
      entry.attempts += 1;
      entry.updatedAt = now.toISOString();
      await io.write(entries);
    }, 'touch');
  }

  /**
   * Records a 2xx: the entry becomes done with its result and is replayed for the replay
   * window. Returns when it was done already (another process finished the same command
   * first), so the caller can say the answer is a replay. An absent entry is left absent.
   */
  async complete(id: string, result: string | null): Promise<{ doneBefore?: string }> {
    if (!(await this.fileExists())) return {};
    return this.locked(async (io) => {
      const now = this.now();
      const all = await io.read();
      const entries = this.live(all, now);
      const entry = entries.find((e) => e.id === id);
      if (entry?.state === 'done') {
        if (entries.length !== all.length) await io.write(entries);
        return { doneBefore: entry.doneAt };
      }
      if (entry) {
        entry.state = 'done';
        entry.doneAt = now.toISOString();
        entry.result = result;
      }
      if (entry || entries.length !== all.length) await io.write(entries);
      return {};
    }, 'complete');
  }

  /** Removes a pending entry after a definitive refusal. A done or absent entry is left as it is. */
  async settle(id: string): Promise<void> {
    if (!(await this.fileExists())) return;
    await this.locked(async (io) => {
      const all = await io.read();
      const entries = this.live(all, this.now()).filter((e) => e.id !== id || e.state === 'done');
      if (entries.length !== all.length) await io.write(entries);
    }, 'settle');
  }

  /**
   * Every entry, oldest first, expired ones included and flagged (`pending` can show
   * them as expired; they are dropped by the next write). Does not create anything
   * when there is no journal yet.
   */
  async list(): Promise<Array<JournalEntry & { expired: boolean }>> {
    if (!(await this.fileExists())) return [];
    const entries = await this.locked((io) => io.read());
    const now = this.now();
    return entries
      .map((e) => ({ ...structuredClone(e), expired: this.isExpired(e, now) }))
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  }

  /**
   * Drops unfinished entries: `all`, or those of one credential (plus the format-1
   * entries of `profile`, whose credential is unknown); returns how many were dropped
   * (expired ones included). Done entries stay until their replay window ends: they hold
   * no unknown outcome, and dropping one would make the next identical command book anew
   * (`reserve --new` does that on purpose).
   */
  async clear(filter: { all?: boolean; credential?: string; profile?: string }): Promise<number> {
    if (!filter.all && filter.credential === undefined && filter.profile === undefined) {
      throw new TypeError('Journal.clear needs a credential, a profile or all: true');
    }
    if (!(await this.fileExists())) return 0;
    const owned = (e: JournalEntry) => filter.all === true || (e.credential !== null && e.credential === filter.credential) || (e.credential === null && e.profile === filter.profile);
    const matches = (e: JournalEntry) => e.state === 'pending' && owned(e);

    return this.locked(async (io) => {
      const now = this.now();
      const all = await io.read();
      const dropped = all.filter(matches).length;
      const kept = all.filter((e) => !matches(e) && !this.isExpired(e, now));
      if (kept.length !== all.length) await io.write(kept);
      return dropped;
    }, 'clear');
  }

  private isExpired(entry: JournalEntry, now: Date): boolean {
    if (entry.state === 'done') return Date.parse(entry.doneAt!) + this.replayWindowMs <= now.getTime();
    return Date.parse(entry.updatedAt) + this.ttlMs <= now.getTime();
  }

  private live(entries: JournalEntry[], now: Date): JournalEntry[] {
    return entries.filter((e) => !this.isExpired(e, now));
  }

  private warnMissing(id: string): void {
    this.warn(
      `idempotency journal entry ${id.slice(0, 12)} is gone (cleared or expired); ` +
        'rerunning this command will send a new idempotency key',
    );
  }

  private async fileExists(): Promise<boolean> {
    try {
      await fsp.stat(this.path);
      return true;
    } catch (err) {
      // ENOTDIR: a file where a directory should be; begin() reports it when it creates the directory.
      if (isNodeError(err) && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return false;
      throw fsError('read', this.path, err);
    }
  }

  private locked<T>(fn: (io: LockedIo & { write(entries: JournalEntry[], hint?: string): Promise<void> }) => Promise<T>, step?: JournalStep): Promise<T> {
    return this.file.withLock((held) =>
      fn({
        read: async () => {
          const entries = await this.read(held);
          if (step) this.inLock?.(step);
          return entries;
        },
        write: (entries: JournalEntry[], hint?: string) => this.write(held, entries, hint),
      }),
    );
  }

  /** Must run under the lock: it may set a corrupt file aside. */
  private async read(held: HeldFile): Promise<JournalEntry[]> {
    let text: string | undefined;
    try {
      text = held.read();
    } catch (err) {
      throw fsError('read', this.path, err);
    }
    if (text === undefined) return [];
    const parsed = parseJournal(text);
    if (parsed.ok) return parsed.entries;
    const aside = await this.setAside();
    this.warn(
      `the idempotency journal ${this.path} is corrupt (${parsed.reason}); moved it to ${aside} and started ` +
        'a new one. Create/cancel commands recorded in it will not reuse their keys: check `carrental trips` ' +
        'before rerunning them',
    );
    return [];
  }

  private async setAside(): Promise<string> {
    const stamp = this.now().toISOString().replace(/[:.]/g, '-');
    for (let n = 0; ; n++) {
      const target = `${this.path}.corrupt-${stamp}${n === 0 ? '' : `-${n}`}`;
      try {
        // rename() would silently replace an earlier set-aside file of the same millisecond.
        await fsp.lstat(target);
        continue;
      } catch (err) {
        if (!isNodeError(err) || err.code !== 'ENOENT') throw fsError('set aside', this.path, err);
      }
      try {
        await fsp.rename(this.path, target);
        await fsyncDir(this.dir);
      } catch (err) {
        throw fsError('set aside', this.path, err);
      }
      return target;
    }
  }

  // The temp files a writer killed mid-write leaves (`journal.json.<pid>.<n>.tmp`) are swept
  // by LockedFile as soon as the lock is taken, before the read, while it is certainly ours.
  private async write(held: HeldFile, entries: JournalEntry[], hint?: string): Promise<void> {
    const text = `${JSON.stringify({ version: FORMAT_VERSION, entries }, null, 2)}\n`;
    try {
      // Whole or nothing: a short write, ENOSPC, EIO or EROFS leaves the old file as it was.
      held.write(text, hint);
    } catch (err) {
      throw fsError('write', this.path, err, hint);
    }
  }
}

/** An identical live command was journaled under another base URL (refuseElsewhere). */
export class SentElsewhere extends CliError {
  constructor(readonly entry: JournalEntry) {
    super('usage', `an identical ${entry.operation === 'createReservation' ? 'reserve' : 'cancel'} was sent to ${entry.baseUrl}`);
  }
}

function stampAge(stamp: string, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(stamp)) / 1000));
  return s < 90 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** reserve --new while an identical reserve is unfinished: a new key could book twice. */
export function unfinishedCommandError(entry: JournalEntry, now: Date): CliError {
  return usageError(
    `an identical ${entry.operation === 'createReservation' ? 'reserve' : 'cancel'} begun ${stampAge(entry.createdAt, now)} ago has not finished (idempotency key ${entry.key}); --new could book twice`,
    'rerun without --new to finish it (it may still be running in another terminal); `carrental pending` lists it',
  );
}
