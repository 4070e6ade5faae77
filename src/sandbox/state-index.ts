// The sidecar index of a sandbox state file (`<state file>.idx`): where each live record of
// the log is as of one commit, and which records carry each tag, in sorted lines so that a
// lookup is a binary search over the index's bytes. An embedded `--sandbox` command opens the
// log through it and reads only the records it asks for, plus the lines appended after that
// commit, instead of every line header of the log (see docs/sandbox.md, "The index").
//
// It is a cache, never trusted blindly. It names the snapshot it describes (the hash of the
// snapshot's first record, which carries a random id), the commit it covers (an offset and
// the hash of the bytes just before it) and the hash of its own lines. The covered bytes of a
// log never change (writers only append after the last commit, and a compaction replaces the
// file), so an index that matches on all of these describes the file. One that does not is
// ignored, and written again by the next process that holds every record. A record found
// through it is still checked against its own log line (collection, key and hash).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

const MAGIC = 'carrental-sandbox-index 1\t';
/** Bytes before the covered end that the index hashes: the last commit line and what precedes it. */
export const TAIL_BYTES = 4096;

export const indexPathOf = (statePath: string) => `${statePath}.idx`;

export const sha1 = (data: Uint8Array | string) => createHash('sha1').update(data).digest('hex');

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
  /** sha1 of the index's lines after its header line. */
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

/** The index's bytes: a header line, then one sorted line per record (R) and per tag (T). */
export function buildIndex(header: Omit<IndexHeader, 'body'>, records: Iterable<IndexedRecord>): Buffer {
  const lines: string[] = [];
  const postings = new Map<string, string[]>();
  for (const r of records) {
    if (BELOW_TAB.test(r.key) || r.tags.some((t) => BELOW_TAB.test(t))) throw new Error('a state key holds a control character');
    lines.push(`R\t${r.coll}\t${r.key}\t${r.pos}\t${r.len}\t${r.lineLen}\t${r.tags.join(' ')}\n`);
    for (const t of r.tags) {
      const p = `T\t${r.coll}\t${t}`;
      const keys = postings.get(p);
      if (keys) keys.push(r.key);
      else postings.set(p, [r.key]);
    }
  }
  for (const [name, keys] of postings) lines.push(`${name}\t${keys.join('\t')}\n`);
  // Whole lines in JavaScript string order are in the order of their names (what lookups
  // compare), because a name ends at a tab and holds no character below it.
  lines.sort();
  const body = Buffer.from(lines.join(''));
  return Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify({ ...header, body: sha1(body) })}\n`), body]);
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
      sha1(buf.subarray(nl + 1)) !== header.body
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

