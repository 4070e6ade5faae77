// Persistence of the sandbox state: in memory, or an append-only log shared by every process
// that embeds the sandbox (see docs/sandbox.md, "The state file").
//
// Why a log: rewriting one JSON document per write made a write cost the size of the whole
// history (22 MB at 10k reservations). A write now appends only the records it changed, so
// its cost does not grow with history; the log is compacted (rewritten whole, atomically)
// when it holds more than twice what is live. node:sqlite is not in Node 20 and a native
// addon would be a runtime dependency, which carrental does not ship.
//
// The file: a header line, then groups. A group is one line per changed record
//   <hash>\t<collection>\t<key>\t<tags>\t<json>\n
// closed by a commit line `#\t<records>\t<bytes>\n`. Appends happen under a lock
// (proper-lockfile), check every byte count, and are fsynced before any caller is answered.
// A group without its commit line is an append that was never acknowledged (a writer killed
// mid-write): readers ignore it and the next writer cuts it off. Anything else that does not
// parse, a record whose hash does not match, or a file without a complete first group is
// reported (StateFileError), never re-seeded.
//
// With a sidecar index that matches the file (state-index.ts, read in place), every process
// looks records up in the index when asked for and scans only the lines appended after the
// index's commit: an embedded `--sandbox` command pays for what it reads, and a server holds
// in memory only what changed since the index plus the records it read lately (trimmed), so
// its memory does not grow with the state. A server (`verify`) also checks every record's
// hash when it opens, a chunk at a time. Without an index, opening reads every line header
// and writes one. A record's JSON is parsed when something asks for it. An existing file is
// opened without the lock; the lock is taken to write.
//
// Transactions run on the live records, remember each touched record's JSON as it was, and
// after the transaction compare: what changed is appended, a transaction that throws is
// restored from those before-images, as is a whole group whose append fails.
import { hash as oneShotHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { AtomicFileWriter, writeFileAtomicSync } from '../store/atomic-file.js';
import { lineChunks, readAt } from './file-reads.js';
import { seedState } from './fixtures.js';
import { type IndexedRecord, IndexWriter, type Placed, StateIndex, TAIL_BYTES, buildIndex, indexPathOf, sha1, writeMergedIndex } from './state-index.js';
import {
  COLLECTIONS,
  type Collection,
  type SandboxState,
  STATE_FORMAT,
  STATE_VERSION,
  attachIndex,
  tagsOf,
} from './state.js';

export interface StoreOptions {
  /** State file; omitted = in memory only. */
  statePath?: string;
  /** Discard existing contents (even a corrupt file) and re-seed. */
  reset?: boolean;
  /** When given, must match the seed recorded in an existing file. */
  seed?: number;
  /** When given, must match the fleet size recorded in an existing file. */
  fleetSize?: number;
  /** Clock used for the anchor when seeding. */
  now: () => Date;
  /** How long a lock of a dead holder blocks others (proper-lockfile's minimum is 2000). */
  lockStaleMs?: number;
  /** Check every record's hash when opening (a long-running server does; a CLI command checks what it reads). */
  verify?: boolean;
  /** Records held in memory before a trim, and read records a trim keeps (defaults: RESIDENT_LIMIT, HOT_RECORDS_LIMIT; for tests). */
  memoryLimits?: { resident: number; hot: number };
}

export interface Store {
  readonly path: string | null;
  /** The current state; in file mode it includes what other processes committed. Never mutate it. */
  read(): SandboxState;
  /** Applies `fn` to the freshest state and commits what it changed; nothing is kept if `fn` throws. */
  transact<T>(fn: (draft: SandboxState) => T): Promise<T>;
  /** Replaces the whole state with a freshly seeded world anchored at the current time. */
  reseed(): Promise<SandboxState>;
  /** Sizes, for stats and benchmarks. */
  stats(): { file_bytes: number; live_bytes: number; records: number; resident: number; parsed: number };
  close(): Promise<void>;
}

const DEFAULT_SEED = 1;
const DEFAULT_FLEET_SIZE = 300;
const HEADER = `${STATE_FORMAT}-log 2\n`;
/**
 * When the records a process keeps in memory are trimmed: once it holds more than
 * RESIDENT_LIMIT and twice what the last trim left, or, when it holds every record (no
 * index), once it has parsed PARSED_CACHE_LIMIT of them from the file since the last trim.
 */
const PARSED_CACHE_LIMIT = 2_000;
const RESIDENT_LIMIT = 20_000;
/**
 * A trim keeps up to this many of the records read most recently (a create reads the trips
 * that hold the car, and a busy server would otherwise read them from the file again and
 * again): memory is bounded by it, never by the state.
 */
const HOT_RECORDS_LIMIT = 20_000;
/** Compaction once the file is more than twice the live records, plus this slack. */
const COMPACT_SLACK_BYTES = 1 << 20;
/**
 * The index is written again once this many bytes were appended after the commit it covers:
 * what an embedded command scans line by line stays small.
 */
const INDEX_SLACK_BYTES = 1 << 20;
/** ... and this fraction of the live bytes: writing the index costs their size, so its cost per write stays flat. */
const INDEX_LIVE_FRACTION = 1 / 32;
/** A server writes the index when its writes pause this long (or at once past four times the due size) ... */
const INDEX_IDLE_MS = 200;
/**
 * ... or at once past this many appended bytes: the records changed since the index are held
 * in memory until it is written, so this bounds them whatever the size of the state.
 */
const INDEX_FORCE_BYTES = 8 << 20;

export class StateFileError extends Error {
  constructor(path: string, reason: string) {
    super(`sandbox state file ${path}: ${reason} (start the sandbox with reset to discard it and re-seed)`);
    this.name = 'StateFileError';
  }
}

// ---------------------------------------------------------------- the meta record

/** Everything that is not a keyed collection: seed, fleet size, anchor, clock, customers. */
type Meta = Omit<SandboxState, Collection | 'format' | 'version'>;
const META_KEY = 'meta';

function metaOf(s: SandboxState): Meta {
  return { seed: s.seed, fleetSize: s.fleetSize, anchor: s.anchor, clockOffsetMs: s.clockOffsetMs, customers: s.customers };
}

function checkMeta(path: string, m: (Partial<Meta> & { snapshot?: unknown }) | null): Meta {
  if (
    !m ||
    typeof m !== 'object' ||
    typeof m.seed !== 'number' ||
    typeof m.fleetSize !== 'number' ||
    typeof m.anchor !== 'string' ||
    Number.isNaN(Date.parse(m.anchor)) ||
    typeof m.clockOffsetMs !== 'number' ||
    !Array.isArray(m.customers)
  ) {
    throw new StateFileError(path, 'missing or malformed fields');
  }
  // A snapshot's first record carries the snapshot's random id (what its index names); it is not state.
  if ('snapshot' in m) {
    const { snapshot: _, ...rest } = m;
    return rest as Meta;
  }
  return m as Meta;
}

/** A version 1 file (one JSON document): read once, then rewritten as a log. */
function parseVersion1(path: string, text: string): SandboxState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new StateFileError(path, `not valid JSON (${(err as Error).message})`);
  }
  const s = raw as Partial<SandboxState> | null;
  if (!s || typeof s !== 'object' || s.format !== STATE_FORMAT) throw new StateFileError(path, 'not a carrental sandbox state');
  if (s.version !== 1) throw new StateFileError(path, `unsupported state version ${String(s.version)}`);
  checkMeta(path, s as Meta);
  if (COLLECTIONS.some((k) => typeof s[k] !== 'object' || s[k] === null)) throw new StateFileError(path, 'missing or malformed fields');
  return s as SandboxState;
}

// ---------------------------------------------------------------- log lines

// crypto.hash, not a Hash object per record: those left their native allocations in the
// RSS of a server that checks every record when it opens (18 MB at 10k reservations,
// measured on Node 20.20.2); the one-shot call keeps none
const hashOf = (body: string | Uint8Array) => oneShotHash('sha1', body, 'hex').slice(0, 16);

function recordLine(coll: string, key: string, tags: readonly string[], body: string): string {
  // Keys are uuids, customer ids and Idempotency-Keys (printable ASCII): never a tab or newline.
  if (/[\t\n]/.test(key)) throw new Error(`a state key cannot hold a tab or newline: ${JSON.stringify(key)}`);
  return `${hashOf(body)}\t${coll}\t${key}\t${tags.join(' ')}\t${body}\n`;
}

/** A record line as found in the file; it becomes the record's index entry as it is. */
interface ScannedRecord {
  obj: null;
  coll: string;
  key: string;
  hash: string;
  /** Absolute file offset and length of the JSON body. */
  pos: number;
  len: number;
  /** The whole line's length, newline included. */
  lineLen: number;
  tags: string[];
  /** A deletion: the JSON `null`. */
  deleted: boolean;
}

/** Shared by every record without tags; never mutated (tags are replaced, not changed). */
const NO_TAGS: string[] = [];

const COLLECTION_BY_NAME = new Map<string, string>([[META_KEY, META_KEY], ...COLLECTIONS.map((c): [string, string] => [c, c])]);

/** What the log is read by at a time: opening never holds more of it than this (and one line). */
const SCAN_CHUNK_BYTES = 4 << 20;

/**
 * Reads the log from `from` to `to` a chunk at a time and splits it into committed groups.
 * Returns the records of complete groups (none when `keep` is false: the lines are only
 * checked) and the offset just past the last commit line; bytes after it are an unfinished
 * append. With `verify`, every record of a complete group is checked against its hash.
 * Every string kept is a copy of its few bytes, never a slice of a chunk, so nothing holds
 * the file's bytes in memory after the scan.
 */
function scanRange(path: string, file: number, from: number, to: number, opts: { verify: boolean; keep: boolean }): { records: ScannedRecord[]; end: number } {
  const records: ScannedRecord[] = [];
  let groupFirst = 0;
  let groupCount = 0;
  let groupStart = from;
  let committed = from;
  /** Body offset of the first record of the open group whose hash did not match (-1: none). */
  let badHash = -1;
  let base = from;
  for (const buf of lineChunks(file, from, to, SCAN_CHUNK_BYTES)) {
    let pos = 0;
    const corrupt = (what: string) => new StateFileError(path, `damaged at byte ${base + pos}: ${what}`);
    for (;;) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0) break;
      if (buf[pos] === 0x23) {
        const [mark, n, bytes, extra] = buf.toString('latin1', pos, nl).split('\t');
        if (mark !== '#' || extra !== undefined || Number(n) !== groupCount || Number(bytes) !== base + pos - groupStart) throw corrupt('a commit line that does not match its group');
        if (badHash >= 0) throw new StateFileError(path, `the record at byte ${badHash} does not match its hash`);
        groupFirst = records.length;
        groupCount = 0;
        groupStart = base + nl + 1;
        committed = groupStart;
      } else {
        const t1 = pos + 16;
        const t2 = buf.indexOf(9, t1 + 1);
        const t3 = t2 < 0 ? -1 : buf.indexOf(9, t2 + 1);
        const t4 = t3 < 0 ? -1 : buf.indexOf(9, t3 + 1);
        if (buf[t1] !== 9 || t4 < 0 || t4 > nl) throw corrupt('not a record');
        const coll = COLLECTION_BY_NAME.get(buf.toString('latin1', t1 + 1, t2));
        if (coll === undefined) throw corrupt(`unknown collection ${buf.toString('latin1', t1 + 1, t2)}`);
        groupCount++;
        if (opts.verify && badHash < 0 && hashOf(buf.subarray(t4 + 1, nl)) !== buf.toString('latin1', pos, pos + 16)) badHash = base + t4 + 1;
        if (opts.keep) {
          records.push({
            obj: null,
            coll,
            key: buf.toString('latin1', t2 + 1, t3),
            // read from the line when the record is (no string per record until then)
            hash: '',
            pos: base + t4 + 1,
            len: nl - t4 - 1,
            lineLen: nl + 1 - pos,
            tags: t4 === t3 + 1 ? NO_TAGS : buf.toString('latin1', t3 + 1, t4).split(' '),
            deleted: nl - t4 - 1 === 4 && t4 === t3 + 1 && buf.toString('latin1', t4 + 1, nl) === 'null',
          });
        }
      }
      pos = nl + 1;
    }
    base += buf.length;
  }
  // Records after the last commit line belong to an unfinished append.
  records.length = groupFirst;
  return { records, end: committed };
}

// ---------------------------------------------------------------- the store

interface Entry {
  /** The parsed record, or null until something reads it. */
  obj: unknown;
  /** Found through the index: its log line must start with this after the hash (`\tcoll\tkey\ttags\t`). */
  head?: string;
  /** Where its JSON is in the file (-1: not yet written). */
  pos: number;
  len: number;
  hash: string;
  lineLen: number;
  tags: string[];
  /** The read turn (see `read`) it was last read in. */
  seen?: number;
}

type Step = { kind: 'apply'; fn: (draft: SandboxState) => unknown } | { kind: 'reseed' } | { kind: 'index' };

interface Pending {
  step: Step;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

const MISSING = Symbol('missing');
type Before = string | typeof MISSING;

/** What one transaction touched, as it was before: enough to undo it. */
interface Undo {
  records: Map<string, Before>;
  /** The entry each record had (its place in the file), or undefined for a new one. */
  entries: Map<string, Entry | undefined>;
  meta: string;
}

/** What a group of transactions touched, as it was before the group. */
interface GroupBefore {
  records: Map<string, Before>;
  entries: Map<string, Entry | undefined>;
}

const ck = (coll: string, key: string) => `${coll}\t${key}`;

export async function openStore(opts: StoreOptions): Promise<Store> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const fleetSize = opts.fleetSize ?? DEFAULT_FLEET_SIZE;
  if (!Number.isInteger(seed)) throw new Error(`sandbox seed must be an integer, got ${seed}`);
  if (!Number.isInteger(fleetSize) || fleetSize < 1) throw new Error(`sandbox fleetSize must be a positive integer, got ${fleetSize}`);
  const path = opts.statePath ?? null;
  /** A command (no `verify`) writes a due index at once, before it exits; a server waits for its writes to pause. */
  const isCommand = !(opts.verify ?? false);
  const stale = Math.max(2000, opts.lockStaleMs ?? 5000);

  let meta: Meta = { seed, fleetSize, anchor: '', clockOffsetMs: 0, customers: [] };
  let metaEntry: Entry | null = null;
  const maps = Object.fromEntries(COLLECTIONS.map((c) => [c, new Map<string, Entry>()])) as Record<Collection, Map<string, Entry>>;
  /** Per collection: tag -> keys in `maps` carrying the tag. */
  const tagIndex = Object.fromEntries(COLLECTIONS.map((c) => [c, new Map<string, Set<string>>()])) as Record<Collection, Map<string, Set<string>>>;
  /** Tag lookups answered by the index, kept until it is replaced (at most this many). */
  const baseTags = new Map<string, readonly string[]>();
  const BASE_TAGS_LIMIT = 4096;
  let fd: number | null = null;
  /** Offset just past the last commit we have applied. */
  let end = 0;
  let liveBytes = 0;
  let parsed = 0;
  let inGroup = false;
  /**
   * The index the file was opened through: records not in `maps` are looked up there, unless
   * `gone` says they were deleted since. Null once every record is in `maps` (as after a scan).
   */
  let base: StateIndex | null = null;
  const gone = Object.fromEntries(COLLECTIONS.map((c) => [c, new Set<string>()])) as Record<Collection, Set<string>>;
  /**
   * Keys whose record changed since the index's commit (appended by this process or read from
   * another's appends): what the next index is merged from, and never dropped from `maps`.
   * Every other record in `maps` is as the index has it, and may be dropped to bound memory.
   */
  const dirty = Object.fromEntries(COLLECTIONS.map((c) => [c, new Set<string>()])) as Record<Collection, Set<string>>;
  /** Counts the event-loop turns in which the state was read (see `read`): how recently a record was. */
  let turn = 0;
  /** Replaces the index lookups go through, closing the one before. */
  const setBase = (index: StateIndex | null) => {
    if (base !== null && base !== index) base.close();
    base = index;
    baseTags.clear();
  };
  /** Collection and key, in pairs, of lines read after the index's commit that may replace a record of the index. */
  let superseded: string[] = [];
  /** Hash of the snapshot's first line when it carries a snapshot id (an index can name it), else null. */
  let snapshotStamp: string | null = null;
  /** The commit the index on disk covers, as far as this process knows (0: none). */
  let indexedEnd = 0;

  // ------------------------------------------------ index and records

  /**
   * Collections whose tag index is built. An index is built when first asked for, from the
   * entries' tags: a command that never looks a collection up by tag never pays for it.
   */
  const indexed = new Set<Collection>();
  const indexAdd = (coll: Collection, key: string, tags: readonly string[]) => {
    if (!indexed.has(coll)) return;
    const index = tagIndex[coll];
    for (const t of tags) {
      const keys = index.get(t);
      if (keys === undefined) index.set(t, new Set([key]));
      else keys.add(key);
    }
  };
  const indexRemove = (coll: Collection, key: string, tags: readonly string[]) => {
    if (!indexed.has(coll)) return;
    for (const t of tags) tagIndex[coll].get(t)?.delete(key);
  };
  /** Moves a record's index entries from its old tags to `tags`, touching only those that differ. */
  const moveTags = (coll: Collection, key: string, e: Entry, tags: string[]) => {
    const old = e.tags;
    if (tags.length === old.length && tags.every((t, i) => t === old[i])) return;
    indexRemove(coll, key, old.filter((t) => !tags.includes(t)));
    indexAdd(coll, key, tags.filter((t) => !old.includes(t)));
    e.tags = tags;
  };
  const retag = (coll: Collection, key: string, e: Entry, obj: unknown) => moveTags(coll, key, e, tagsOf(coll, obj));

  /** The record's JSON, checked against the hash at the start of its line. */
  const readBody = (e: Entry): string => {
    if (e.head !== undefined && e.lineLen - e.len - 1 !== 16 + Buffer.byteLength(e.head)) {
      throw new StateFileError(path as string, `the record at byte ${e.pos} is not the one its index names`);
    }
    const lineStart = e.pos + e.len + 1 - e.lineLen;
    const buf = Buffer.allocUnsafe(e.lineLen);
    let got = 0;
    while (got < e.lineLen) {
      const n = fs.readSync(fd as number, buf, got, e.lineLen - got, lineStart + got);
      if (n === 0) throw new StateFileError(path as string, `ends inside a record at byte ${e.pos}`);
      got += n;
    }
    const body = buf.toString('utf8', e.lineLen - e.len - 1, e.lineLen - 1);
    if (e.head !== undefined && buf.toString('utf8', 16, e.lineLen - e.len - 1) !== e.head) {
      throw new StateFileError(path as string, `the record at byte ${e.pos} is not the one its index names`);
    }
    const hash = e.hash || buf.toString('latin1', 0, 16);
    if (hashOf(body) !== hash) throw new StateFileError(path as string, `the record at byte ${e.pos} does not match its hash`);
    return body;
  };

  const valueOf = (e: Entry): unknown => {
    e.seen = turn;
    if (e.obj === null && e.pos >= 0) {
      try {
        e.obj = JSON.parse(readBody(e));
      } catch (err) {
        if (err instanceof StateFileError) throw err;
        throw new StateFileError(path as string, `the record at byte ${e.pos} is not valid JSON`);
      }
      parsed++;
    }
    return e.obj;
  };

  /** A record's entry: in memory, or found through the index (and then kept in memory). */
  const entryOf = (coll: Collection, key: string): Entry | undefined => {
    const e = maps[coll].get(key);
    if (e !== undefined || base === null || gone[coll].has(key)) return e;
    const r = base.record(coll, key);
    if (r === null) return undefined;
    const entry = fromIndex(r);
    maps[coll].set(key, entry);
    indexAdd(coll, key, entry.tags);
    return entry;
  };
  const fromIndex = (r: IndexedRecord): Entry => ({ obj: null, head: `\t${r.coll}\t${r.key}\t${r.tags.join(' ')}\t`, pos: r.pos, len: r.len, hash: '', lineLen: r.lineLen, tags: r.tags });

  /** The live bytes (what the compaction threshold compares with), once the records superseded since the index are counted out. */
  const liveNow = () => {
    if (base !== null) {
      for (let i = 0; i < superseded.length; i += 2) liveBytes -= base.record(superseded[i], superseded[i + 1])?.lineLen ?? 0;
    }
    superseded = [];
    return liveBytes;
  };

  /** Brings every record the index holds into memory: for what needs them all (listing keys, a compaction). */
  const materializeAll = () => {
    if (base === null) return;
    liveNow();
    for (const r of base.records()) {
      if (r.coll === META_KEY) continue;
      const coll = r.coll as Collection;
      if (!maps[coll].has(r.key) && !gone[coll].has(r.key)) maps[coll].set(r.key, fromIndex(r));
    }
    setBase(null);
    for (const c of COLLECTIONS) gone[c].clear();
    for (const c of COLLECTIONS) dirty[c].clear();
    // Tag indexes are rebuilt from every record when next asked for.
    for (const c of COLLECTIONS) tagIndex[c].clear();
    indexed.clear();
  };

  /** Every key of a collection, read through the index without keeping its records. */
  const keysOf = (coll: Collection): string[] => {
    if (base === null) return [...maps[coll].keys()];
    const keys = new Set(maps[coll].keys());
    for (const r of base.records()) if (r.coll === coll && !gone[coll].has(r.key)) keys.add(r.key);
    return [...keys];
  };

  const getRec = (coll: Collection, key: string): unknown => {
    const e = entryOf(coll, key);
    return e ? valueOf(e) : undefined;
  };

  /** Sets a record in memory (inside a transaction): a new one gets no file position yet. */
  const setRec = (coll: Collection, key: string, value: unknown) => {
    const e = entryOf(coll, key);
    if (value === undefined) {
      if (e) {
        indexRemove(coll, key, e.tags);
        maps[coll].delete(key);
        if (base) gone[coll].add(key);
      }
      return;
    }
    gone[coll].delete(key);
    if (e) {
      e.obj = value;
      retag(coll, key, e, value);
    } else {
      const tags = tagsOf(coll, value);
      maps[coll].set(key, { obj: value, pos: -1, len: 0, hash: '', lineLen: 0, tags });
      indexAdd(coll, key, tags);
    }
  };

  const clearAll = () => {
    setBase(null);
    superseded = [];
    for (const c of COLLECTIONS) gone[c].clear();
    for (const c of COLLECTIONS) dirty[c].clear();
    for (const c of COLLECTIONS) maps[c].clear();
    for (const c of COLLECTIONS) tagIndex[c].clear();
    indexed.clear();
    liveBytes = 0;
    parsed = 0;
  };

  /** Applies scanned records (from opening the file or from another process's appends). */
  const applyScanned = (records: ScannedRecord[]) => {
    for (const r of records) {
      if (r.coll === META_KEY) {
        const e: Entry = r;
        if (metaEntry) liveBytes -= metaEntry.lineLen;
        metaEntry = e;
        liveBytes += r.lineLen;
        meta = checkMeta(path as string, valueOf(e) as Meta);
        continue;
      }
      const coll = r.coll as Collection;
      const old = maps[coll].get(r.key);
      if (old) liveBytes -= old.lineLen;
      // An older version may be in the index: not looked up now, only when the live bytes count.
      else if (base !== null && !gone[coll].has(r.key)) superseded.push(coll, r.key);
      // A deletion is written as the JSON `null`.
      if (r.deleted) {
        if (old) indexRemove(coll, r.key, old.tags);
        maps[coll].delete(r.key);
        dirty[coll].delete(r.key);
        if (base) gone[coll].add(r.key);
        continue;
      }
      gone[coll].delete(r.key);
      if (base) dirty[coll].add(r.key);
      if (old) {
        // A newer version: the same entry, so the index moves only the tags that changed.
        const tags = r.tags;
        r.tags = old.tags;
        moveTags(coll, r.key, r, tags);
      } else {
        indexAdd(coll, r.key, r.tags);
      }
      maps[coll].set(r.key, r);
      liveBytes += r.lineLen;
    }
  };

  // ------------------------------------------------ the file

  const fileSize = () => fs.fstatSync(fd as number).size;

  /**
   * Opens the file. Through its index when one describes it: only the lines appended after
   * the index's commit are scanned (with `verify`, every line is checked and none kept).
   * Otherwise every line header is read. False when there is no file.
   */
  const loadFile = (verify: boolean): boolean => {
    if (!path) return false;
    let newFd: number;
    try {
      newFd = fs.openSync(path, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    const fail = (err: unknown): never => {
      fs.closeSync(newFd);
      throw err;
    };
    const size = fs.fstatSync(newFd).size;
    const start = readAt(newFd, 0, Math.min(size, 64));
    if (start.length > 0 && start[0] === 0x7b) {
      // version 1: one JSON document. Migrated by the caller, under the lock.
      const text = fs.readFileSync(newFd, 'utf8');
      fail(Object.assign(new Error('version 1'), { v1: parseVersion1(path, text) }));
    }
    if (start.subarray(0, HEADER.length).toString('latin1') !== HEADER) {
      const head = start.subarray(0, 40).toString('latin1');
      fail(new StateFileError(path, head.startsWith(`${STATE_FORMAT}-log `) ? `unsupported state version ${head.slice(STATE_FORMAT.length + 5).split('\n')[0]}` : 'not a carrental sandbox state'));
    }
    const found = StateIndex.read(path);
    const index = found !== null && describesLog(newFd, found, size) ? found : null;
    if (found !== null && index === null) found.close();
    const metaRec = index?.record(META_KEY, META_KEY);
    if (index !== null && !metaRec) index.close();
    /** The commit of the index on disk, when one describes the log (else 0: none). */
    const describedEnd = index !== null && metaRec ? index.header.end : 0;
    if (index !== null && metaRec) {
      const h = index.header;
      let tail: { records: ScannedRecord[]; end: number };
      try {
        // A server checks every record it covers, a chunk at a time, keeping none of them.
        if (verify) scanRange(path, newFd, HEADER.length, h.end, { verify: true, keep: false });
        tail = scanRange(path, newFd, h.end, size, { verify, keep: true });
      } catch (err) {
        index.close();
        fail(err);
      }
      if (fd !== null) fs.closeSync(fd);
      fd = newFd;
      clearAll();
      base = index;
      liveBytes = h.live;
      snapshotStamp = h.snapshot;
      indexedEnd = h.end;
      try {
        metaEntry = fromIndex(metaRec);
        meta = checkMeta(path, valueOf(metaEntry) as Meta);
        applyScanned(tail!.records);
      } catch (err) {
        fs.closeSync(newFd);
        fd = null;
        throw err;
      }
      end = tail!.end;
      return true;
    }
    let scanned: { records: ScannedRecord[]; end: number };
    try {
      scanned = scanRange(path, newFd, HEADER.length, size, { verify, keep: true });
    } catch (err) {
      fail(err);
    }
    if (scanned!.records.length === 0 || scanned!.records[0].coll !== META_KEY) {
      fail(new StateFileError(path, 'truncated: no complete snapshot'));
    }
    if (fd !== null) fs.closeSync(fd);
    fd = newFd;
    clearAll();
    metaEntry = null;
    try {
      applyScanned(scanned!.records);
    } catch (err) {
      fs.closeSync(newFd);
      fd = null;
      throw err;
    }
    end = scanned!.end;
    // The snapshot's first record (parsed by applyScanned) names it when it carries an id.
    const first = scanned!.records[0] as Entry;
    snapshotStamp = typeof (first.obj as { snapshot?: unknown } | null)?.snapshot === 'string' ? readAt(newFd, HEADER.length, 16).toString('latin1') : null;
    indexedEnd = describedEnd;
    return true;
  };

  /**
   * Brings memory up to date with the file: another process's appends are read, a file
   * replaced by a compaction or reset is reloaded. A deleted file keeps the last state.
   */
  const catchUp = () => {
    if (!path) return;
    if (fd === null) {
      loadFile(false);
      return;
    }
    const st = fs.fstatSync(fd);
    if (st.nlink === 0) {
      // Replaced (compaction or reset by another process) or deleted.
      if (fs.existsSync(path)) loadFile(false);
      return;
    }
    if (st.size <= end) return;
    const scanned = scanRange(path, fd, end, st.size, { verify: false, keep: true });
    if (scanned.records.length > 0) applyScanned(scanned.records);
    end = scanned.end;
  };

  /**
   * Compaction without holding the records: the index is brought up to date, then each of its
   * records' lines is copied from the old log into the new one and its new place into the new
   * index, a chunk at a time. False when the index cannot be written (then the caller rewrites
   * from memory).
   */
  const compactStreaming = (): boolean => {
    if (!path || fd === null) return false;
    writeIndex();
    const old = base;
    if (old === null || indexedEnd !== end || COLLECTIONS.some((c) => dirty[c].size > 0 || gone[c].size > 0)) return false;
    const oldFd = fd;
    const metaBody = JSON.stringify({ ...meta, snapshot: randomBytes(8).toString('hex') });
    const metaLine = recordLine(META_KEY, META_KEY, [], metaBody);
    const metaLen = Buffer.byteLength(metaLine);
    const metaHead = Buffer.byteLength(metaLine.slice(0, nthTab(metaLine, 4) + 1));
    const log = new AtomicFileWriter(path);
    let index: IndexWriter | null = null;
    try {
      index = new IndexWriter(indexPathOf(path));
      log.write(HEADER);
      log.write(metaLine);
      let records = 1;
      for (const r of old.records()) {
        if (r.coll === META_KEY) {
          index.record(META_KEY, META_KEY, { pos: HEADER.length + metaHead, len: metaLen - metaHead - 1, lineLen: metaLen, tags: [] });
          continue;
        }
        // checked against its line (collection, key, tags, hash) as any read through the index is
        const line = recordLine(r.coll, r.key, r.tags, readBody(fromIndex(r)));
        index.record(r.coll, r.key, { pos: log.position + r.lineLen - r.len - 1, len: r.len, lineLen: r.lineLen, tags: r.tags });
        log.write(line);
        records++;
      }
      for (const t of old.tagLines()) index.raw(t); // tags do not move with their records
      const recordBytes = log.position - HEADER.length;
      log.write(`#\t${records}\t${recordBytes}\n`);
      const newEnd = log.position;
      log.commit();
      fs.closeSync(oldFd);
      fd = null;
      fd = fs.openSync(path, 'r+');
      end = newEnd;
      try {
        index.commit({ snapshot: hashOf(metaBody), end: newEnd, tail: tailHash(fd, newEnd), live: recordBytes });
      } catch {
        index.abort(); // the log is in place; without its index the next open scans it
      }
    } catch (err) {
      log.abort();
      index?.abort();
      throw err;
    }
    // The records in memory were at their old places: open the new log through its index.
    loadFile(false);
    return true;
  };

  /** Writes `state` as a new file (a snapshot), atomically, and points the index at it. */
  const writeSnapshot = (state: SandboxState | null) => {
    if (state === null && compactStreaming()) return;
    // Rewriting what is held needs every record; a fresh state replaces them all.
    if (state === null) materializeAll();
    const lines: string[] = [];
    const positions: { coll: Collection | null; key: string; line: string; tags: string[] }[] = [];
    // The snapshot's random id makes its first line, which an index names, unique to it.
    const metaBody = JSON.stringify({ ...(state ? metaOf(state) : meta), snapshot: randomBytes(8).toString('hex') });
    positions.push({ coll: null, key: META_KEY, line: recordLine(META_KEY, META_KEY, [], metaBody), tags: [] });
    for (const c of COLLECTIONS) {
      if (state) {
        for (const [key, value] of Object.entries(state[c])) {
          const tags = tagsOf(c, value);
          positions.push({ coll: c, key, line: recordLine(c, key, tags, JSON.stringify(value)), tags });
        }
      } else {
        for (const [key, e] of maps[c]) {
          const body = e.obj !== null ? JSON.stringify(e.obj) : readBody(e);
          positions.push({ coll: c, key, line: recordLine(c, key, e.tags, body), tags: e.tags });
        }
      }
    }
    for (const p of positions) lines.push(p.line);
    const recordsText = lines.join('');
    const recordBytes = Buffer.byteLength(recordsText);
    const text = `${HEADER}${recordsText}#\t${lines.length}\t${recordBytes}\n`;
    if (path) {
      writeFileAtomicSync(path, text);
      if (fd !== null) fs.closeSync(fd);
      fd = fs.openSync(path, 'r+');
    }
    // Positions in the new file; records already parsed stay parsed.
    const objects = state ? null : new Map(COLLECTIONS.map((c) => [c, new Map([...maps[c]].map(([k, e]) => [k, e.obj]))]));
    clearAll();
    if (state) meta = metaOf(state);
    let pos = HEADER.length;
    for (const p of positions) {
      const lineLen = Buffer.byteLength(p.line);
      const t4 = nthTab(p.line, 4);
      const bodyPos = pos + Buffer.byteLength(p.line.slice(0, t4 + 1));
      const e: Entry = { obj: null, pos: bodyPos, len: lineLen - (bodyPos - pos) - 1, hash: p.line.slice(0, 16), lineLen, tags: p.tags };
      if (p.coll === null) {
        metaEntry = e;
      } else {
        const value = state ? state[p.coll][p.key] : objects?.get(p.coll)?.get(p.key) ?? null;
        e.obj = value ?? null;
        maps[p.coll].set(p.key, e);
        indexAdd(p.coll, p.key, e.tags);
      }
      liveBytes += lineLen;
      pos += lineLen;
    }
    end = Buffer.byteLength(text);
    snapshotStamp = hashOf(metaBody);
    indexedEnd = 0;
    writeIndex();
  };

  // ------------------------------------------------ the sidecar index

  const tailHash = (file: number, upTo: number) => {
    const from = Math.max(HEADER.length, upTo - TAIL_BYTES);
    return sha1(readAt(file, from, upTo - from));
  };

  /** Whether `index` describes the log open as `file`: the same snapshot, and the bytes before its commit unchanged. */
  const describesLog = (file: number, index: StateIndex, size: number): boolean => {
    const h = index.header;
    return h.end > HEADER.length && h.end <= size && readAt(file, HEADER.length, 16).toString('latin1') === h.snapshot && tailHash(file, h.end) === h.tail;
  };

  /**
   * Writes the index of the state as of `end`, and looks records up through it from then on:
   * merged from the index this process opened and what changed since (streaming, so that a
   * server's memory does not grow with the records), or built from `maps` when this process
   * holds every record. It is a cache: when it cannot be written, processes scan the log as
   * they would without one.
   */
  const writeIndex = () => {
    if (!path || fd === null || snapshotStamp === null || metaEntry === null || metaEntry.pos < 0) return;
    // one restored by a rollback is not where it was in the file: no index until the next write
    if (base === null) {
      for (const c of COLLECTIONS) for (const e of maps[c].values()) if (e.pos < 0) return;
    } else {
      for (const c of COLLECTIONS) for (const k of dirty[c]) if ((maps[c].get(k)?.pos ?? 0) < 0) return;
    }
    const header = { snapshot: snapshotStamp, end, tail: tailHash(fd, end), live: liveNow() };
    try {
      if (base === null) {
        const collections: [string, ReadonlyMap<string, Entry>][] = [[META_KEY, new Map([[META_KEY, metaEntry]])], ...COLLECTIONS.map((c): [string, ReadonlyMap<string, Entry>] => [c, maps[c]])];
        writeFileAtomicSync(indexPathOf(path), buildIndex(header, collections), { fsync: false });
      } else {
        const changes = new Map<string, Map<string, Placed | null>>([[META_KEY, new Map([[META_KEY, metaEntry]])]]);
        for (const c of COLLECTIONS) {
          const m = new Map<string, Placed | null>();
          for (const k of gone[c]) m.set(k, null);
          for (const k of dirty[c]) {
            const e = maps[c].get(k);
            if (e) m.set(k, e);
          }
          changes.set(c, m);
        }
        writeMergedIndex(indexPathOf(path), base, header, changes);
      }
    } catch {
      // Not written: the old one (if any) no longer matches and is ignored.
      return;
    }
    indexedEnd = end;
    adoptIndex();
  };
  /** Looks records up through the index just written: what `maps` holds is now as the index has it. */
  const adoptIndex = () => {
    const index = StateIndex.read(path as string);
    if (index === null || index.header.end !== end || index.header.snapshot !== snapshotStamp) {
      index?.close();
      return;
    }
    setBase(index);
    for (const c of COLLECTIONS) {
      gone[c].clear();
      dirty[c].clear();
    }
    superseded = [];
  };
  const indexDue = () => snapshotStamp !== null && end - indexedEnd > INDEX_SLACK_BYTES + liveNow() * INDEX_LIVE_FRACTION;
  const refreshIndex = () => writeIndex();
  const nthTab = (s: string, n: number) => {
    let i = -1;
    for (let k = 0; k < n; k++) i = s.indexOf('\t', i + 1);
    return i;
  };

  /**
   * Writes one group at the end of the file, every byte checked, or cuts the file back and
   * throws. The caller fsyncs it (asynchronously, still under the lock) before answering.
   */
  const appendGroup = (lines: string[]): number[] => {
    const recordsText = lines.join('');
    const recordBytes = Buffer.byteLength(recordsText);
    const bytes = Buffer.from(`${recordsText}#\t${lines.length}\t${recordBytes}\n`);
    if (path && fd !== null) {
      const at = end;
      try {
        let offset = 0;
        while (offset < bytes.length) {
          const n = fs.writeSync(fd, bytes, offset, bytes.length - offset, at + offset);
          if (!(n > 0)) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC' });
          offset += n;
        }
      } catch (err) {
        try {
          fs.ftruncateSync(fd, at);
        } catch {
          // Readers ignore an unfinished group, and the next writer cuts it off.
        }
        throw err;
      }
    }
    // Absolute positions of each line.
    const starts: number[] = [];
    let pos = end;
    for (const l of lines) {
      starts.push(pos);
      pos += Buffer.byteLength(l);
    }
    end += bytes.length;
    return starts;
  };

  /**
   * fsync on the thread pool: the event loop keeps reading requests meanwhile, which join
   * the next group. What this process reads before the fsync returns is in the page cache
   * and survives a killed process (not a power loss); no caller is answered before it.
   */
  const syncAppended = (groupStart: number) =>
    new Promise<void>((resolve, reject) => {
      if (!path || fd === null) return resolve();
      const syncedFd = fd;
      fs.fsync(syncedFd, (err) => {
        if (!err) return resolve();
        // Not durable: cut the group off and reload what is on disk, then refuse everyone.
        try {
          if (fd === syncedFd) {
            fs.ftruncateSync(syncedFd, groupStart);
            loadFile(false);
          }
        } catch {
          // The error that matters is already on its way.
        }
        reject(err);
      });
    });

  // ------------------------------------------------ state objects handed out

  const committedProxies = Object.fromEntries(
    COLLECTIONS.map((c) => [
      c,
      new Proxy({} as Record<string, unknown>, {
        get: (_, k) => (typeof k === 'string' ? getRec(c, k) : undefined),
        has: (_, k) => typeof k === 'string' && entryOf(c, k) !== undefined,
        ownKeys: () => keysOf(c),
        getOwnPropertyDescriptor: (_, k) => {
          const v = typeof k === 'string' ? getRec(c, k) : undefined;
          return v === undefined ? undefined : { value: v, writable: false, enumerable: true, configurable: true };
        },
        set: () => {
          throw new Error('the sandbox state is read-only outside store.transact');
        },
        deleteProperty: () => {
          throw new Error('the sandbox state is read-only outside store.transact');
        },
      }),
    ]),
  ) as Record<Collection, Record<string, never>>;

  const buildTagIndex = (coll: Collection) => {
    if (indexed.has(coll)) return;
    indexed.add(coll);
    for (const [key, e] of maps[coll]) indexAdd(coll, key, e.tags);
  };
  const tagged = (coll: Collection, tag: string): readonly string[] => {
    buildTagIndex(coll);
    const own = tagIndex[coll].get(tag);
    const keys = own ? [...own] : [];
    if (base === null) return keys;
    // A record in memory is tagged as it is now (above); any other is as the index has it,
    // unless it was deleted since.
    for (const key of indexTagged(coll, tag)) if (!maps[coll].has(key) && !gone[coll].has(key)) keys.push(key);
    return keys;
  };
  /** The keys the index lists for a tag, kept until it is replaced. */
  const indexTagged = (coll: Collection, tag: string): readonly string[] => {
    if (base === null) return [];
    const name = `${coll}\t${tag}`;
    let listed = baseTags.get(name);
    if (listed === undefined) {
      listed = base.tagged(coll, tag);
      if (baseTags.size >= BASE_TAGS_LIMIT) baseTags.clear();
      baseTags.set(name, listed);
    }
    return listed;
  };
  const countAtMost = (coll: Collection, tag: string): number => {
    buildTagIndex(coll);
    return (tagIndex[coll].get(tag)?.size ?? 0) + indexTagged(coll, tag).length;
  };

  let facade: SandboxState;
  const refreshFacade = () => {
    facade = { format: STATE_FORMAT, version: STATE_VERSION, ...meta, ...committedProxies } as unknown as SandboxState;
    attachIndex(facade, { tagged, countAtMost, raw: facade });
    return facade;
  };

  // ------------------------------------------------ locking

  const withLock = async <T>(task: () => T | Promise<T>): Promise<T> => {
    if (!path) return task();
    // Loaded on the first write: a command that only reads never takes the lock.
    const lockfile = (await import('proper-lockfile')).default;
    const release = await lockfile.lock(path, {
      realpath: false,
      fs: lockFs,
      stale,
      retries: { retries: Math.ceil((2 * stale) / 20) + 50, factor: 1, minTimeout: 10, maxTimeout: 30, randomize: true },
      // The default throws from a timer and would crash the server; a compromised lock
      // only means another process may have taken over, which the next catch-up sees.
      onCompromised: () => undefined,
    });
    try {
      return await task();
    } finally {
      await release().catch(() => undefined);
    }
  };

  /** Under the lock: the file as others left it, an unfinished append cut off. */
  const catchUpForWrite = () => {
    if (!path) return;
    catchUp();
    if (fd === null || !fs.existsSync(path)) {
      // Deleted behind our back: the next write recreates it whole.
      writeSnapshot(null);
      return;
    }
    if (fileSize() > end) fs.ftruncateSync(fd, end);
  };

  // ------------------------------------------------ opening

  const checkExpected = () => {
    if (opts.seed !== undefined && meta.seed !== opts.seed) {
      throw new StateFileError(path as string, `it was seeded with seed ${meta.seed}, not ${opts.seed}`);
    }
    if (opts.fleetSize !== undefined && meta.fleetSize !== opts.fleetSize) {
      throw new StateFileError(path as string, `it holds a fleet of ${meta.fleetSize} cars, not ${opts.fleetSize}`);
    }
  };
  const closeFile = () => {
    if (fd !== null) fs.closeSync(fd);
    fd = null;
  };

  // An existing file is opened without the lock: a reader only ever takes complete groups, and
  // a compaction or reset replaces the file whole. Anything else (no file yet, a version 1
  // file, an error) is settled under the lock.
  let opened = false;
  if (path && !opts.reset) {
    try {
      opened = loadFile(opts.verify ?? false);
    } catch {
      closeFile();
      clearAll();
    }
  }
  if (opened) {
    try {
      checkExpected();
      // Every line header was read (no index, or a stale one): leave an index for the next process.
      if (base === null && indexDue()) {
        await withLock(() => {
          catchUp();
          if (indexDue()) refreshIndex();
        });
      }
    } catch (err) {
      closeFile();
      throw err;
    }
  } else {
    if (path) fs.mkdirSync(dirname(path), { recursive: true });
    await withLock(() => {
      let loaded = false;
      if (path && !opts.reset) {
        try {
          loaded = loadFile(opts.verify ?? false);
        } catch (err) {
          const v1 = (err as { v1?: SandboxState }).v1;
          if (!v1) throw err;
          writeSnapshot(v1);
          loaded = true;
        }
      }
      if (!loaded) {
        writeSnapshot(seedState(seed, fleetSize, opts.now()));
        return;
      }
      checkExpected();
      if (base === null && indexDue()) writeIndex();
    }).catch((err: unknown) => {
      closeFile();
      throw err;
    });
  }
  refreshFacade();

  // ------------------------------------------------ transactions

  /** Runs one transaction on the live records; returns its undo, or throws after undoing it. */
  const runOne = (fn: (draft: SandboxState) => unknown, groupBefore: GroupBefore, results: unknown[]): Undo => {
    const undo: Undo = { records: new Map(), entries: new Map(), meta: JSON.stringify(meta) };
    const track = (coll: Collection, key: string) => {
      const k = ck(coll, key);
      if (undo.records.has(k)) return;
      const v = getRec(coll, key);
      const before: Before = v === undefined ? MISSING : JSON.stringify(v);
      const entry = maps[coll].get(key);
      undo.records.set(k, before);
      undo.entries.set(k, entry);
      if (!groupBefore.records.has(k)) {
        groupBefore.records.set(k, before);
        groupBefore.entries.set(k, entry);
      }
    };
    const drafts = Object.fromEntries(
      COLLECTIONS.map((c) => [
        c,
        new Proxy({} as Record<string, unknown>, {
          get: (_, k) => {
            if (typeof k !== 'string') return undefined;
            track(c, k);
            return getRec(c, k);
          },
          set: (_, k, v) => {
            if (typeof k !== 'string') return false;
            track(c, k);
            setRec(c, k, v);
            return true;
          },
          deleteProperty: (_, k) => {
            if (typeof k !== 'string') return false;
            track(c, k);
            setRec(c, k, undefined);
            return true;
          },
          has: (_, k) => typeof k === 'string' && entryOf(c, k) !== undefined,
          ownKeys: () => keysOf(c),
          getOwnPropertyDescriptor: (_, k) => {
            if (typeof k !== 'string' || entryOf(c, k) === undefined) return undefined;
            track(c, k);
            return { value: getRec(c, k), writable: true, enumerable: true, configurable: true };
          },
        }),
      ]),
    );
    const draftMeta = JSON.parse(undo.meta) as Meta;
    const draft = { format: STATE_FORMAT, version: STATE_VERSION, ...draftMeta, ...drafts } as unknown as SandboxState;
    attachIndex(draft, { tagged, countAtMost, raw: facade });
    try {
      results.push(fn(draft));
    } catch (err) {
      rollback(undo);
      throw err;
    }
    meta = metaOf(draft);
    return undo;
  };

  const rollback = (undo: Undo) => {
    for (const [k, before] of undo.records) {
      const [coll, key] = k.split('\t') as [Collection, string];
      const e = maps[coll].get(key);
      if (before === MISSING) {
        setRec(coll, key, undefined);
        continue;
      }
      // The entry it had, with its place in the file (deleted, or deleted and created again,
      // in the transaction: the one in `maps` now is not it).
      const saved = undo.entries.get(k) as Entry;
      saved.obj = JSON.parse(before);
      if (e === saved) {
        retag(coll, key, saved, saved.obj);
        continue;
      }
      if (e) {
        indexRemove(coll, key, e.tags);
        maps[coll].delete(key);
      }
      saved.tags = tagsOf(coll, saved.obj);
      maps[coll].set(key, saved);
      gone[coll].delete(key);
      indexAdd(coll, key, saved.tags);
    }
    meta = JSON.parse(undo.meta) as Meta;
  };

  /** One group under the lock: catch up, apply, append, fsync; then answer its callers. */
  const runGroup = async (group: Pending[]) => {
    let answers: { p: Pending; ok: boolean; value: unknown }[];
    try {
      catchUpForWrite();
      const groupStart = end;
      inGroup = true;
      try {
        answers = applyGroup(group);
      } finally {
        inGroup = false;
      }
      refreshFacade();
      if (end !== groupStart) {
        await syncAppended(groupStart);
        if (path && end > 2 * liveNow() + COMPACT_SLACK_BYTES) compactAfterCommit();
        else indexAfterWrite();
      }
    } catch (err) {
      // Catch-up, write or fsync failed: nothing was committed for anyone in the group.
      refreshFacade();
      for (const p of group) p.reject(err);
      return;
    }
    for (const a of answers) (a.ok ? a.p.resolve : a.p.reject)(a.value);
  };

  /**
   * The group is on disk and its callers are answered whatever happens here: a compaction
   * that fails (a full disk) leaves the log as it was, valid, and is tried after the next write.
   */
  const compactAfterCommit = () => {
    try {
      writeSnapshot(null);
    } catch {
      // memory as the file on disk is, old or new
      try {
        loadFile(false);
      } catch {
        // the next write's catch-up reports it
      }
    }
  };

  const applyGroup = (group: Pending[]) => {
    const answers: { p: Pending; ok: boolean; value: unknown }[] = [];
    const groupBefore: GroupBefore = { records: new Map(), entries: new Map() };
    const groupMeta = JSON.stringify(meta);
    const undos: Undo[] = [];
    for (const p of group) {
      if (p.step.kind !== 'apply') continue;
      const results: unknown[] = [];
      try {
        undos.push(runOne(p.step.fn, groupBefore, results));
        answers.push({ p, ok: true, value: results[0] });
      } catch (err) {
        answers.push({ p, ok: false, value: err });
      }
    }
    // What changed, against the state before the group.
    const lines: string[] = [];
    const written: { coll: Collection | null; key: string; obj: unknown }[] = [];
    const metaText = JSON.stringify(meta);
    if (metaText !== groupMeta) {
      lines.push(recordLine(META_KEY, META_KEY, [], metaText));
      written.push({ coll: null, key: META_KEY, obj: meta });
    }
    for (const [k, before] of groupBefore.records) {
      const [coll, key] = k.split('\t') as [Collection, string];
      const now = maps[coll].get(key);
      const text = now === undefined ? MISSING : JSON.stringify(now.obj);
      if (text === before) continue;
      // Changed in place (a reservation cancelled): its index tags follow.
      if (now) retag(coll, key, now, now.obj);
      lines.push(text === MISSING ? recordLine(coll, key, [], 'null') : recordLine(coll, key, now!.tags, text));
      written.push({ coll, key, obj: now?.obj });
    }
    if (lines.length > 0) {
      let starts: number[];
      try {
        starts = appendGroup(lines);
      } catch (err) {
        for (const u of undos.reverse()) rollback(u);
        throw err;
      }
      written.forEach((w, i) => {
        const line = lines[i];
        const lineLen = Buffer.byteLength(line);
        const headLen = Buffer.byteLength(line.slice(0, nthTab(line, 4) + 1));
        const e: Entry = { obj: w.obj ?? null, pos: starts[i] + headLen, len: lineLen - headLen - 1, hash: line.slice(0, 16), lineLen, tags: [] };
        if (w.coll === null) {
          if (metaEntry) liveBytes -= metaEntry.lineLen;
          metaEntry = e;
          liveBytes += lineLen;
          return;
        }
        // The line it had before the group is no longer live (deleted, or deleted and created
        // again, its entry is not the one in `maps`).
        const committed = groupBefore.entries.get(ck(w.coll, w.key));
        if (committed && committed.pos >= 0) liveBytes -= committed.lineLen;
        const old = maps[w.coll].get(w.key);
        if (w.obj === undefined) {
          dirty[w.coll].delete(w.key);
          return;
        }
        if (base) dirty[w.coll].add(w.key);
        if (old) {
          old.pos = e.pos;
          old.len = e.len;
          old.hash = e.hash;
          old.lineLen = lineLen;
          // Its line is now the one just written, whose hash is known.
          delete old.head;
        }
        liveBytes += lineLen;
      });
    }
    return answers;
  };

  const runReseed = async (p: Pending) => {
    try {
      await withLock(() => {
        writeSnapshot(seedState(meta.seed, meta.fleetSize, opts.now()));
      });
    } catch (err) {
      p.reject(err);
      return;
    }
    p.resolve(refreshFacade());
  };

  let queue: Pending[] = [];
  let draining: Promise<void> | null = null;

  /**
   * Commits what is queued. The lock is taken once for a run of groups and released when
   * the queue is empty (or after a second, so other processes get their turn): taking it
   * costs two directory operations, which under load would be paid per group.
   */
  const drain = async () => {
    try {
      while (queue.length > 0) {
        // A reset runs alone; the transactions before it commit first, those after it see the fresh world.
        if (queue[0].step.kind === 'reseed') {
          await runReseed(queue.shift() as Pending);
          continue;
        }
        if (queue[0].step.kind === 'index') {
          const p = queue.shift() as Pending;
          await withLock(() => {
            catchUp();
            if (indexDue()) refreshIndex();
          }).catch(() => undefined);
          p.resolve(undefined);
          continue;
        }
        const taken = Date.now();
        await withLock(async () => {
          while (queue.length > 0 && queue[0].step.kind === 'apply' && Date.now() - taken < 1000) {
            const i = queue.findIndex((p) => p.step.kind !== 'apply');
            const group = i < 0 ? queue : queue.slice(0, i);
            queue = i < 0 ? [] : queue.slice(i);
            await runGroup(group);
          }
        }).catch((err: unknown) => {
          // The lock could not be taken: everyone waiting is told.
          const waiting = queue.filter((p) => p.step.kind === 'apply');
          queue = queue.filter((p) => p.step.kind !== 'apply');
          for (const p of waiting) p.reject(err);
        });
      }
    } finally {
      draining = null;
    }
  };

  const enqueue = <T>(step: Step) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ step, resolve: resolve as (v: unknown) => void, reject });
      draining ??= drain();
    });

  /**
   * After a commit, when the index is due: a command writes it at once (it exits soon after);
   * a server waits until its writes pause, so that a busy server does not pay for it between
   * two writes, unless four times the due size has been appended.
   */
  let indexTimer: NodeJS.Timeout | null = null;
  const indexAfterWrite = () => {
    if (!path || !indexDue()) return;
    if (isCommand || end - indexedEnd > Math.min(INDEX_FORCE_BYTES, 4 * (INDEX_SLACK_BYTES + liveBytes * INDEX_LIVE_FRACTION))) {
      refreshIndex();
      return;
    }
    if (indexTimer) {
      indexTimer.refresh();
      return;
    }
    indexTimer = setTimeout(() => {
      indexTimer = null;
      if (!closed) enqueue({ kind: 'index' }).catch(() => undefined);
    }, INDEX_IDLE_MS).unref();
  };

  /**
   * Bounded memory: records not read since the last trim are dropped and re-read from the
   * file on demand; those that are as the index has them are dropped whole (found through
   * it again).
   */
  const resident = () => COLLECTIONS.reduce((n, c) => n + maps[c].size, 0);
  const residentLimit = opts.memoryLimits?.resident ?? RESIDENT_LIMIT;
  const hotLimit = opts.memoryLimits?.hot ?? HOT_RECORDS_LIMIT;
  let trimAt = residentLimit;
  const trim = () => {
    // the records read in the latest turns, as many as the limit allows
    const perTurn = new Map<number, number>();
    for (const c of COLLECTIONS) for (const e of maps[c].values()) if (e.seen !== undefined) perTurn.set(e.seen, (perTurn.get(e.seen) ?? 0) + 1);
    let kept = 0;
    let keepFrom = Infinity;
    for (const t of [...perTurn.keys()].sort((a, b) => b - a)) {
      kept += perTurn.get(t) as number;
      if (kept > hotLimit) break;
      keepFrom = t;
    }
    for (const c of COLLECTIONS) {
      for (const [key, e] of maps[c]) {
        if (e.seen !== undefined && e.seen >= keepFrom) {
          // kept
        } else if (base !== null && !dirty[c].has(key)) {
          maps[c].delete(key);
          indexRemove(c, key, e.tags);
        } else if (e.pos >= 0) {
          e.obj = null;
          e.seen = undefined;
        }
      }
    }
    parsed = 0;
    // what must stay (changed since the index, or read lately) is not trimmed again at once
    trimAt = Math.max(residentLimit, 2 * resident());
  };

  let closed = false;
  let checkedThisTurn = false;
  return {
    path,
    read: () => {
      // One look at the file per event-loop turn: every request that turn arrived after it
      // began, so one check covers them all (a turn's reads used to stat once each).
      if (path && !inGroup && !closed && !checkedThisTurn) {
        checkedThisTurn = true;
        turn++;
        setImmediate(() => {
          checkedThisTurn = false;
        }).unref();
        const before = end;
        const beforeFd = fd;
        catchUp();
        if (base === null ? parsed > PARSED_CACHE_LIMIT : resident() > trimAt) trim();
        if (end !== before || fd !== beforeFd) refreshFacade();
      }
      return facade;
    },
    transact: (fn) => enqueue({ kind: 'apply', fn }),
    reseed: () => enqueue({ kind: 'reseed' }),
    stats: () => ({
      file_bytes: end,
      live_bytes: liveNow(),
      records: COLLECTIONS.reduce((n, c) => n + keysOf(c).length, 0),
      resident: COLLECTIONS.reduce((n, c) => n + maps[c].size, 0),
      parsed,
    }),
    close: async () => {
      if (indexTimer) clearTimeout(indexTimer);
      indexTimer = null;
      while (draining) await draining;
      closed = true;
      if (fd !== null) fs.closeSync(fd);
      fd = null;
      setBase(null);
    },
  };
}

type Callback = (err: Error | null, result?: unknown) => void;
const viaSync =
  (fn: (...args: never[]) => unknown) =>
  (...args: unknown[]) => {
    const callback = args.pop() as Callback;
    let result: unknown;
    try {
      result = fn(...(args as never[]));
    } catch (err) {
      callback(err as Error);
      return;
    }
    callback(null, result);
  };

/**
 * The file operations of proper-lockfile, done synchronously (as its own lockSync does):
 * an uncontended lock then costs no event-loop turns, which under load would each wait
 * behind every request in flight. Retries on contention stay asynchronous.
 */
const lockFs = {
  ...fs,
  mkdir: viaSync(fs.mkdirSync),
  stat: viaSync(fs.statSync),
  rmdir: viaSync(fs.rmdirSync),
  utimes: viaSync(fs.utimesSync),
  realpath: viaSync(fs.realpathSync),
};
