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

/**
 * The index's bytes: a header line, then one line per record (R) and per tag (T), sorted by
 * name. A name's parts hold no character below the tab that joins them, so sorting by
 * collection, then by key or tag, sorts the names. Written into one buffer that grows as it
 * fills, from the keys and tags the store already holds: a server pays a few megabytes for
 * it, not copies of every line.
 */
export function buildIndex(header: Omit<IndexHeader, 'body'>, collections: Iterable<[string, ReadonlyMap<string, Placed>]>): Buffer {
  const HEAD_ROOM = 512;
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
      put(`R\t${coll}\t${key}\t${r.pos}\t${r.len}\t${r.lineLen}\t${r.tags.join(' ')}\n`);
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

export class StateIndex {
  private constructor(
    readonly header: IndexHeader,
    private readonly buf: Buffer,
    private readonly start: number,
  ) {}

  /** The index of `statePath` if it is whole (its own hash matches); null otherwise. The caller checks it against the log. */
  static read(statePath: string): StateIndex | null {
    let buf: Buffer;
    try {
      buf = fs.readFileSync(indexPathOf(statePath));
    } catch {
      return null;
    }
    const nl = buf.indexOf(10);
    if (nl < 0 || buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
    let header: IndexHeader;
    try {
      header = JSON.parse(buf.toString('utf8', MAGIC.length, nl)) as IndexHeader;
    } catch {
      return null;
    }
    if (
      typeof header?.snapshot !== 'string' ||
      !Number.isSafeInteger(header.end) ||
      typeof header.tail !== 'string' ||
      !Number.isSafeInteger(header.live) ||
      typeof header.body !== 'string' ||
      bodyCheck(buf.subarray(nl + 1)) !== header.body
    ) {
      return null;
    }
    return new StateIndex(header, buf, nl + 1);
  }

  /** The line named `name` (`R\tcoll\tkey` or `T\tcoll\ttag`), its fields after the name; null when absent. */
  private find(name: string): string[] | null {
    const buf = this.buf;
    let lo = this.start;
    let hi = buf.length;
    while (lo < hi) {
      const mid = lo + ((hi - lo) >> 1);
      const back = buf.lastIndexOf(10, mid - 1);
      const ls = back < lo ? lo : back + 1;
      let le = buf.indexOf(10, ls);
      if (le < 0 || le > hi) le = hi;
      // Only the name is decoded: a tag's line can hold thousands of keys.
      let nameEnd = ls - 1;
      for (let k = 0; k < 3 && nameEnd < le; k++) {
        nameEnd = buf.indexOf(9, nameEnd + 1);
        if (nameEnd < 0 || nameEnd > le) nameEnd = le;
      }
      const lineName = buf.toString('utf8', ls, nameEnd);
      if (lineName === name) return nameEnd < le ? buf.toString('utf8', nameEnd + 1, le).split('\t') : [];
      if (lineName < name) lo = le + 1;
      else hi = ls;
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

  /** Every record, in index order. */
  *records(): Generator<IndexedRecord> {
    const text = this.buf.toString('utf8', this.start);
    for (const line of text.split('\n')) {
      if (!line.startsWith('R\t')) continue;
      const f = line.split('\t');
      const r = toRecord(f[1], f[2], f.slice(3));
      if (r) yield r;
    }
  }
}

function toRecord(coll: string, key: string, f: string[]): IndexedRecord | null {
  const [pos, len, lineLen] = [Number(f[0]), Number(f[1]), Number(f[2])];
  if (!Number.isSafeInteger(pos) || !Number.isSafeInteger(len) || !Number.isSafeInteger(lineLen)) return null;
  return { coll, key, pos, len, lineLen, tags: f[3] ? f[3].split(' ') : NO_TAGS };
}

