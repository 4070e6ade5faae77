// The sidecar index of a sandbox state file (`<state file>.idx`): where each live record of
// the log is as of one commit, and which records carry each tag, in sorted lines so that a
// lookup is a binary search over the index's bytes. An embedded `--sandbox` command opens the
// log through it and reads only the records it asks for, plus the lines appended after that
// commit, instead of every line header of the log (see docs/sandbox.md, "The index").
//
// It is a cache, never trusted blindly. It names the snapshot it describes (the hash of the
// snapshot's first record, which carries a random id), the commit it covers (an offset and
// the hash of the bytes just before it) and carries a checksum of its own lines. The covered
// bytes of a log never change (writers only append after the last commit, and a compaction
// replaces the file), so an index that matches on all of these describes the file. One that
// does not is ignored (store.ts then reads every line, and writes a new index). A record
// found through it is still checked against its own log line (collection, key and hash).
import { hash } from 'node:crypto';
import * as fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { AtomicFileWriter } from '../store/atomic-file.js';
import { lineChunks, readAt } from './file-reads.js';

const MAGIC = 'carrental-sandbox-index 1\t';
/** Bytes before the covered end that the index hashes: the last commit line and what precedes it. */
export const TAIL_BYTES = 4096;

export const indexPathOf = (statePath: string) => `${statePath}.idx`;

export const sha1 = (data: Uint8Array | string) => hash('sha1', data, 'hex');
/**
 * The check of the index's own lines: CRC-32 finds damage (a cut, a torn or stale write, a
 * flipped bit) and reads 35 MB in about 5 ms where sha1 takes 18, which an embedded command
 * would pay on every open. What the index says about the log is still checked with sha1.
 */
const bodyCheck = (data: Uint8Array) => crc32(data).toString(16).padStart(8, '0');

/** What the index says about the log it describes. */
export interface IndexHeader {
  /** Hash field of the snapshot's first line (its meta record, with the snapshot's random id). */
  snapshot: string;
  /** Offset just past the last commit the index covers. */
  end: number;
  /** sha1 of the log bytes [max(header, end - TAIL_BYTES), end). */
  tail: string;
  /** Live bytes of the covered state (the compaction threshold counts them). */
  live: number;
  /** CRC-32 of the index's lines after its header line. */
  body: string;
}

export interface IndexedRecord {
  coll: string;
  key: string;
  /** Absolute offset and length of the record's JSON in the log, and of its whole line. */
  pos: number;
  len: number;
  lineLen: number;
  tags: string[];
}

const NO_TAGS: string[] = [];
const BELOW_TAB = /[\0-\x08]/;

/** Where a record's line is: what the index says of each record. */
export type Placed = Pick<IndexedRecord, 'pos' | 'len' | 'lineLen' | 'tags'>;

/** Lines a lookup reads at once: the index keeps one name in memory per block. */
const BLOCK_BYTES = 4096;
/** Blocks kept after a lookup: keys looked up one after another (a tag's, sorted) share blocks. */
const CACHED_BLOCKS = 64;
/** What streaming through the index reads at a time. */
const CHUNK_BYTES = 1 << 20;
/** A merged index starts with a header line padded to this size: its checksum is known last. */
const HEAD_ROOM = 512;

/** A record's line in the index. */
const recordLineOf = (coll: string, key: string, r: Placed) => `R\t${coll}\t${key}\t${r.pos}\t${r.len}\t${r.lineLen}\t${r.tags.join(' ')}\n`;

/**
 * The index's bytes: a header line, then one line per record (R) and per tag (T), sorted by
 * name. A name's parts hold no character below the tab that joins them, so sorting by
 * collection, then by key or tag, sorts the names. Written into one buffer that grows as it
 * fills, from the keys and tags the store already holds: a server pays a few megabytes for
 * it, not copies of every line.
 */
export function buildIndex(header: Omit<IndexHeader, 'body'>, collections: Iterable<[string, ReadonlyMap<string, Placed>]>): Buffer {
  let buf = Buffer.allocUnsafe(HEAD_ROOM + (1 << 16));
  let at = HEAD_ROOM;
  const put = (line: string) => {
    const need = Buffer.byteLength(line);
    if (at + need > buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, at + need));
      buf.copy(bigger, 0, 0, at);
      buf = bigger;
    }
    at += buf.write(line, at);
  };
  const byName = <T>(entries: Iterable<[string, T]>) => [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const sorted = byName(collections);
  const postings: [string, Map<string, string[]>][] = [];
  for (const [coll, records] of sorted) {
    const tags = new Map<string, string[]>();
    for (const key of [...records.keys()].sort()) {
      const r = records.get(key) as Placed;
      if (BELOW_TAB.test(key) || r.tags.some((t) => BELOW_TAB.test(t))) throw new Error('a state key holds a control character');
      put(recordLineOf(coll, key, r));
      for (const t of r.tags) {
        const keys = tags.get(t);
        if (keys) keys.push(key);
        else tags.set(t, [key]);
      }
    }
    postings.push([coll, tags]);
  }
  for (const [coll, tags] of postings) {
    for (const [tag, keys] of byName(tags)) put(`T\t${coll}\t${tag}\t${keys.join('\t')}\n`);
  }
  const head = Buffer.from(`${MAGIC}${JSON.stringify({ ...header, body: bodyCheck(buf.subarray(HEAD_ROOM, at)) })}\n`);
  if (head.length > HEAD_ROOM) throw new Error('index header too long');
  head.copy(buf, HEAD_ROOM - head.length);
  return buf.subarray(HEAD_ROOM - head.length, at);
}

/** The name of the line at buf[ls, le): its first three tab-separated fields. */
function nameAt(buf: Buffer, ls: number, le: number): { name: string; nameEnd: number } {
  let nameEnd = ls - 1;
  for (let k = 0; k < 3 && nameEnd < le; k++) {
    nameEnd = buf.indexOf(9, nameEnd + 1);
    if (nameEnd < 0 || nameEnd > le) nameEnd = le;
  }
  return { name: buf.toString('utf8', ls, nameEnd), nameEnd };
}

/** One line of the index as streamed: its name, and its bytes (valid until the next line is asked for). */
interface IndexLine {
  name: string;
  nameEnd: number;
  buf: Buffer;
  ls: number;
  le: number;
}

/**
 * An index file, read where it is: lookups read one block with pread, and only one name per
 * block is held in memory (a server's memory then does not grow with the records it has).
 * The open file is kept, so an index replaced by another process stays readable as it was.
 */
export class StateIndex {
  private constructor(
    readonly header: IndexHeader,
    private fd: number | null,
    private readonly size: number,
    private readonly start: number,
    private readonly fenceNames: string[],
    private readonly fenceAt: number[],
  ) {}

  /** Recently read blocks by number, oldest first. */
  private readonly blocks = new Map<number, Buffer>();

  private block(i: number): Buffer {
    let buf = this.blocks.get(i);
    if (buf !== undefined) {
      this.blocks.delete(i);
    } else {
      const from = this.fenceAt[i];
      const to = i + 1 < this.fenceAt.length ? this.fenceAt[i + 1] : this.size;
      buf = readAt(this.file(), from, to - from);
      if (this.blocks.size >= CACHED_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as number);
    }
    this.blocks.set(i, buf);
    return buf;
  }

  /** The index of `statePath` if it is whole (its own checksum matches); null otherwise. The caller checks it against the log. */
  static read(statePath: string): StateIndex | null {
    let fd: number;
    try {
      fd = fs.openSync(indexPathOf(statePath), 'r');
    } catch {
      return null;
    }
    try {
      const index = StateIndex.load(fd);
      if (index) return index;
    } catch {
      // unreadable: as good as absent
    }
    fs.closeSync(fd);
    return null;
  }

  private static load(fd: number): StateIndex | null {
    const size = fs.fstatSync(fd).size;
    const first = readAt(fd, 0, Math.min(size, 4096));
    const nl = first.indexOf(10);
    if (nl < 0 || first.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
    let header: IndexHeader;
    try {
      header = JSON.parse(first.toString('utf8', MAGIC.length, nl)) as IndexHeader;
    } catch {
      return null;
    }
    if (
      typeof header?.snapshot !== 'string' ||
      !Number.isSafeInteger(header.end) ||
      typeof header.tail !== 'string' ||
      !Number.isSafeInteger(header.live) ||
      typeof header.body !== 'string'
    ) {
      return null;
    }
    // One pass: the checksum of every line, and the name of the first line of each block.
    const start = nl + 1;
    const fenceNames: string[] = [];
    const fenceAt: number[] = [];
    let crc = 0;
    let nextFence = start;
    let carryAt = start;
    const chunks = lineChunks(fd, start, size, CHUNK_BYTES);
    for (;;) {
      const next = chunks.next();
      if (next.done) {
        // bytes after the last newline: a cut index
        if (next.value > 0) return null;
        break;
      }
      const buf = next.value;
      crc = crc32(buf, crc);
      for (;;) {
        const p = nextFence - carryAt;
        const ls = p <= 0 ? 0 : buf.indexOf(10, p - 1) + 1;
        if (ls <= 0 && p > 0) break;
        const le = buf.indexOf(10, ls);
        if (le < 0) break;
        fenceNames.push(nameAt(buf, ls, le).name);
        fenceAt.push(carryAt + ls);
        nextFence = carryAt + ls + BLOCK_BYTES;
      }
      carryAt += buf.length;
    }
    if (crc.toString(16).padStart(8, '0') !== header.body) return null;
    return new StateIndex(header, fd, size, start, fenceNames, fenceAt);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private file(): number {
    if (this.fd === null) throw new Error('the state index is closed');
    return this.fd;
  }

  /** The line named `name` (`R\tcoll\tkey` or `T\tcoll\ttag`), its fields after the name; null when absent. */
  private find(name: string): string[] | null {
    const names = this.fenceNames;
    // the last block whose first name is not after `name`
    let lo = 0;
    let hi = names.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (names[mid] <= name) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return null;
    const buf = this.block(lo - 1);
    for (let ls = 0; ls < buf.length; ) {
      let le = buf.indexOf(10, ls);
      if (le < 0) le = buf.length;
      // Only the name is decoded: a tag's line can hold thousands of keys.
      const { name: lineName, nameEnd } = nameAt(buf, ls, le);
      if (lineName === name) return nameEnd < le ? buf.toString('utf8', nameEnd + 1, le).split('\t') : [];
      if (lineName > name) return null;
      ls = le + 1;
    }
    return null;
  }

  record(coll: string, key: string): IndexedRecord | null {
    const f = this.find(`R\t${coll}\t${key}`);
    return f && toRecord(coll, key, f);
  }

  /** Keys of `coll` whose record carried `tag` at the covered commit. */
  tagged(coll: string, tag: string): string[] {
    return this.find(`T\t${coll}\t${tag}`) ?? [];
  }

  /** Every line in order, read a chunk at a time. */
  *lines(): Generator<IndexLine> {
    for (const buf of lineChunks(this.file(), this.start, this.size, CHUNK_BYTES)) {
      let ls = 0;
      for (;;) {
        const le = buf.indexOf(10, ls);
        if (le < 0) break;
        const { name, nameEnd } = nameAt(buf, ls, le);
        yield { name, nameEnd, buf, ls, le };
        ls = le + 1;
      }
    }
  }

  /** The tag lines as they are (after the records), for a new index whose tags did not change. */
  *tagLines(): Generator<Buffer> {
    for (const l of this.lines()) if (l.buf[l.ls] === 0x54) yield l.buf.subarray(l.ls, l.le + 1);
  }

  /** Every record, in index order. */
  *records(): Generator<IndexedRecord> {
    for (const l of this.lines()) {
      if (l.buf[l.ls] !== 0x52) return; // the tag lines follow the records
      const f = l.buf.toString('utf8', l.ls, l.le).split('\t');
      const r = toRecord(f[1], f[2], f.slice(3));
      if (r) yield r;
    }
  }
}

/**
 * A new index written a line at a time (lines in index order), its header last: for indexes
 * merged or copied from another without holding it in memory.
 */
export class IndexWriter {
  private readonly out: AtomicFileWriter;
  private crc = 0;

  constructor(file: string) {
    this.out = new AtomicFileWriter(file, { fsync: false });
    this.out.write(`${' '.repeat(HEAD_ROOM - 1)}\n`);
  }

  record(coll: string, key: string, r: Placed): void {
    if (BELOW_TAB.test(key) || r.tags.some((t) => BELOW_TAB.test(t))) throw new Error('a state key holds a control character');
    this.raw(recordLineOf(coll, key, r));
  }

  /** A line as it is, newline included. */
  raw(line: string | Buffer): void {
    const bytes = typeof line === 'string' ? Buffer.from(line) : line;
    this.crc = crc32(bytes, this.crc);
    this.out.write(bytes);
  }

  commit(header: Omit<IndexHeader, 'body'>): void {
    const head = `${MAGIC}${JSON.stringify({ ...header, body: this.crc.toString(16).padStart(8, '0') })}`;
    if (head.length > HEAD_ROOM - 1) throw new Error('index header too long');
    this.out.writeAt(`${head.padEnd(HEAD_ROOM - 1)}\n`, 0);
    this.out.commit();
  }

  abort(): void {
    this.out.abort();
  }
}

/**
 * Writes the index of `old` with `changes` applied (collection -> key -> where its line now
 * is, or null: deleted), streaming: the lines of unchanged records are copied as they are,
 * and only the tag lines of tags that gained or lost a key are rewritten. What it holds in
 * memory is the changes, not the index.
 */
export function writeMergedIndex(
  file: string,
  old: StateIndex,
  header: Omit<IndexHeader, 'body'>,
  changes: ReadonlyMap<string, ReadonlyMap<string, Placed | null>>,
): void {
  const byName = new Map<string, { coll: string; key: string; placed: Placed | null }>();
  for (const [coll, records] of changes) for (const [key, placed] of records) byName.set(`R\t${coll}\t${key}`, { coll, key, placed });
  const names = [...byName.keys()].sort();
  /** T name -> keys that gain it, keys that lose it. */
  const edits = new Map<string, { add: string[]; remove: Set<string> }>();
  const edit = (coll: string, tag: string) => {
    const name = `T\t${coll}\t${tag}`;
    let e = edits.get(name);
    if (!e) edits.set(name, (e = { add: [], remove: new Set() }));
    return e;
  };
  const out = new IndexWriter(file);
  try {
    const put = (line: string | Buffer) => out.raw(line);
    let ni = 0;
    const insertBefore = (name: string | null) => {
      while (ni < names.length && (name === null || names[ni] < name)) {
        const c = byName.get(names[ni++])!;
        if (c.placed === null) continue;
        out.record(c.coll, c.key, c.placed);
        for (const t of c.placed.tags) edit(c.coll, t).add.push(c.key);
      }
    };
    let tagNames: string[] | null = null;
    let ti = 0;
    const startTags = () => {
      insertBefore(null);
      tagNames = [...edits.keys()].sort();
    };
    const newTagLine = (name: string, keys: Iterable<string>) => {
      const sorted = [...keys].sort();
      if (sorted.length > 0) put(`${name}\t${sorted.join('\t')}\n`);
    };
    for (const l of old.lines()) {
      const line = l.buf.subarray(l.ls, l.le + 1);
      if (l.buf[l.ls] === 0x52) {
        insertBefore(l.name);
        if (ni < names.length && names[ni] === l.name) {
          const c = byName.get(names[ni++])!;
          const f = l.buf.toString('utf8', l.nameEnd + 1, l.le).split('\t');
          const oldTags = f[3] ? f[3].split(' ') : [];
          const newTags = c.placed?.tags ?? [];
          for (const t of oldTags) if (!newTags.includes(t)) edit(c.coll, t).remove.add(c.key);
          for (const t of newTags) if (!oldTags.includes(t)) edit(c.coll, t).add.push(c.key);
          if (c.placed !== null) out.record(c.coll, c.key, c.placed);
        } else {
          put(line);
        }
        continue;
      }
      if (tagNames === null) startTags();
      const tn = tagNames as unknown as string[];
      while (ti < tn.length && tn[ti] < l.name) {
        newTagLine(tn[ti], edits.get(tn[ti])!.add);
        ti++;
      }
      if (ti < tn.length && tn[ti] === l.name) {
        const e = edits.get(tn[ti++])!;
        const keys = new Set(l.buf.toString('utf8', l.nameEnd + 1, l.le).split('\t'));
        for (const k of e.remove) keys.delete(k);
        for (const k of e.add) keys.add(k);
        newTagLine(l.name, keys);
      } else {
        put(line);
      }
    }
    if (tagNames === null) startTags();
    const tn = tagNames as unknown as string[];
    for (; ti < tn.length; ti++) newTagLine(tn[ti], edits.get(tn[ti])!.add);
    out.commit(header);
  } catch (err) {
    out.abort();
    throw err;
  }
}

function toRecord(coll: string, key: string, f: string[]): IndexedRecord | null {
  const [pos, len, lineLen] = [Number(f[0]), Number(f[1]), Number(f[2])];
  if (!Number.isSafeInteger(pos) || !Number.isSafeInteger(len) || !Number.isSafeInteger(lineLen)) return null;
  return { coll, key, pos, len, lineLen, tags: f[3] ? f[3].split(' ') : NO_TAGS };
}

