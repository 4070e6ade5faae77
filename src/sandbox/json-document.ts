// The Node 20 store's state in memory, and the layout of its file. The file is the version 1
// JSON document, one record per line, so any JSON reader reads it as before:
//
//   {"format":"carrental-sandbox-state","version":1,"seed":1,...,"customers":[...],
//   "reservations":{
//   "<uuid>":{...},
//   "<uuid>":{...}
//   },
//   "invoices":{
//   ...
//   }}
//
// Why: parsing and stringifying the whole document on every change was 80 % of a create's
// CPU, and it grows with the history (129 ms a create at 2,000 reservations). Here a process
// keeps each record's line beside its parsed value, and the lines' bytes in chunks of
// CHUNK lines (a Section per collection), so
//   - a transaction parses only the records it reads (its draft is a copy of those alone),
//   - a write stringifies only the records it changed, encodes only the chunks that hold
//     them, and hands the file the kept chunks' bytes as they are (no whole-document string),
//   - a re-read after another process's write skips the chunks that are in the new file byte
//     for byte (a comparison of bytes) and parses only the lines after them that differ.
// What is left of a write's cost is the kernel's copy of the bytes and the fsync.
// test/sandbox/store-json-document.test.ts pins these; a file in any other layout (an
// earlier build's, one written by hand) is read whole, as before, and written in lines by
// the next write.
import { isAscii } from 'node:buffer';
import { ImportError, parseJsonState } from './state-import.js';
import { COLLECTIONS, type Collection, type SandboxState, STATE_FORMAT, STATE_VERSION, attachIndex, tagsOf } from './state.js';
import { recordView } from './record-view.js';

type Meta = Omit<SandboxState, Collection | 'format' | 'version'>;

/** Lines a chunk holds: one create re-encodes a chunk of each collection it adds to (about 100 KB). */
const CHUNK = 64;
const SEPARATOR = ',\n';

interface Chunk {
  keys: string[];
  /** Its lines, each followed by `,\n`, encoded; null until a write needs them. */
  bytes: Buffer | null;
}
const encode = (lines: readonly string[]) => Buffer.from(lines.length === 0 ? '' : `${lines.join(SEPARATOR)}${SEPARATOR}`, 'utf8');

/** A collection's lines (`"<key>":<json>`) in file order, and their bytes in chunks. */
export class Section {
  readonly lines = new Map<string, string>();
  private readonly chunks: Chunk[] = [];
  private readonly chunkOf = new Map<string, Chunk>();

  get size() {
    return this.lines.size;
  }

  /** Appends a line at the end (a read fills a section in file order). */
  push(key: string, line: string): void {
    let last = this.chunks.at(-1);
    if (last === undefined || last.keys.length >= CHUNK) this.chunks.push((last = { keys: [], bytes: null }));
    last.keys.push(key);
    last.bytes = null;
    this.lines.set(key, line);
    this.chunkOf.set(key, last);
  }

  /** The last chunk's bytes, as a read found them in the file. */
  seal(bytes: Buffer): void {
    (this.chunks.at(-1) as Chunk).bytes = bytes;
  }

  /** Sets or, with undefined, removes a line; the chunk that holds it is encoded again at the next write. */
  set(key: string, line: string | undefined): void {
    const chunk = this.chunkOf.get(key);
    if (chunk === undefined) {
      if (line !== undefined) this.push(key, line);
      return;
    }
    chunk.bytes = null;
    if (line !== undefined) {
      this.lines.set(key, line);
      return;
    }
    chunk.keys.splice(chunk.keys.indexOf(key), 1);
    if (chunk.keys.length === 0) this.chunks.splice(this.chunks.indexOf(chunk), 1);
    this.lines.delete(key);
    this.chunkOf.delete(key);
  }

  /** How many of the first chunks are, byte for byte, in `file` from `offset`, and where they end. */
  matchPrefix(file: Buffer, offset: number): [number, number] {
    let n = 0;
    for (const chunk of this.chunks) {
      if (chunk.bytes === null || !file.subarray(offset, offset + chunk.bytes.length).equals(chunk.bytes)) break;
      offset += chunk.bytes.length;
      n++;
    }
    return [n, offset];
  }

  /** Takes out the chunks from the `n`th on; returns their lines, by key. */
  truncate(n: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const chunk of this.chunks.splice(n)) {
      for (const key of chunk.keys) {
        out.set(key, this.lines.get(key) as string);
        this.lines.delete(key);
        this.chunkOf.delete(key);
      }
    }
    return out;
  }

  /** The bytes of the lines, each followed by `,\n`: the kept chunks as they are, the others encoded now (and kept). */
  bytes(): Buffer[] {
    const out: Buffer[] = [];
    for (const chunk of this.chunks) {
      chunk.bytes ??= encode(chunk.keys.map((key) => this.lines.get(key) as string));
      if (chunk.bytes.length > 0) out.push(chunk.bytes);
    }
    return out;
  }
}
type Sections = Record<Collection, Section>;

/**
 * One committed version of the state. `state` is what `Store.read()` hands out (never
 * mutated by a caller); `sections` each record's line as on file (`"<key>":<json>`) and
 * their bytes; `tags` what the read paths look records up by (tagsOf), by
 * `<collection>\t<tag>`. A change is kept by updating these in place (stage, apply), with a
 * new top-level `state` object: a version that was replaced is not read again.
 */
export interface Committed {
  readonly state: SandboxState;
  /** The first line: the document up to its first collection, `{"format":...,"customers":[...],`. */
  readonly header: string;
  readonly sections: Sections;
  readonly tags: Map<string, Set<string>>;
}

/** What a transaction changed: the new first line, and each record's new line (undefined: removed). */
export interface Change {
  header: string | null;
  records: Record<Collection, Map<string, string | undefined>>;
  /** Reservations after it, added less removed. */
  reservations: number;
}

const emptySections = () => Object.fromEntries(COLLECTIONS.map((c) => [c, new Section()])) as Sections;
const metaOf = (s: Meta): Meta => ({ seed: s.seed, fleetSize: s.fleetSize, anchor: s.anchor, clockOffsetMs: s.clockOffsetMs, customers: s.customers });
const headerOf = (m: Meta) => `${JSON.stringify({ format: STATE_FORMAT, version: STATE_VERSION, ...metaOf(m) }).slice(0, -1)},`;
const lineOf = (key: string, value: unknown) => `${JSON.stringify(key)}:${JSON.stringify(value)}`;
/** The value's JSON in a record's line. */
const valueText = (key: string, line: string) => line.slice(JSON.stringify(key).length + 1);
/** What the first line says, checked as the whole document would be (a line of ours ends in a comma). */
const metaOfHeader = (header: string): Meta => metaOf(parseJsonState(`${header}${COLLECTIONS.map((c) => `"${c}":{}`).join(',')}}`));

function index(tags: Map<string, Set<string>>, coll: Collection, key: string, value: unknown, add: boolean) {
  if (value === undefined) return;
  for (const tag of tagsOf(coll, value)) {
    const id = `${coll}\t${tag}`;
    let keys = tags.get(id);
    if (add) {
      if (keys === undefined) tags.set(id, (keys = new Set()));
      keys.add(key);
    } else keys?.delete(key);
  }
}

/** A new top-level state object per version: caches kept per state object (state.ts, handlers.ts) start afresh. */
function assemble(meta: Meta, colls: Record<Collection, Record<string, unknown>>, sections: Sections, tags: Map<string, Set<string>>, header: string): Committed {
  const state = { format: STATE_FORMAT, version: STATE_VERSION, ...metaOf(meta), ...colls } as unknown as SandboxState;
  attachIndex(state, {
    tagged: (coll, tag) => [...(tags.get(`${coll}\t${tag}`) ?? [])],
    countAtMost: (coll, tag) => tags.get(`${coll}\t${tag}`)?.size ?? 0,
    raw: state,
  });
  return { state, header, sections, tags };
}

/** A state built in this process (seeded, imported, a dry run's copy): every record stringified once. */
export function fromState(s: SandboxState): Committed {
  const sections = emptySections();
  const tags = new Map<string, Set<string>>();
  const colls = {} as Record<Collection, Record<string, unknown>>;
  for (const c of COLLECTIONS) {
    colls[c] = {};
    for (const [key, value] of Object.entries(s[c])) {
      sections[c].push(key, lineOf(key, value));
      colls[c][key] = value;
      index(tags, c, key, value, true);
    }
  }
  return assemble(s, colls, sections, tags, headerOf(s));
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const OPEN = Object.fromEntries(COLLECTIONS.map((c) => [c, utf8(`"${c}":{\n`)])) as Record<Collection, Buffer>;
const CLOSE = utf8('},\n');
const CLOSE_LAST = utf8('}}\n');
const NEWLINE = utf8('\n');

/** The file's bytes, in chunks: the first line (`header`, by default the held one), then each section's. */
export function toBytes(c: Committed, header = c.header): Buffer[] {
  const out: Buffer[] = [utf8(`${header}\n`)];
  COLLECTIONS.forEach((coll, i) => {
    out.push(OPEN[coll]);
    const chunks = c.sections[coll].bytes();
    const last = chunks.pop();
    // the collection's last line takes no comma: its `,\n` becomes `\n`
    if (last !== undefined) out.push(...chunks, last.subarray(0, last.length - SEPARATOR.length), NEWLINE);
    out.push(i === COLLECTIONS.length - 1 ? CLOSE_LAST : CLOSE);
  });
  return out;
}

/** A record's line: a JSON string key (no raw control character), a colon, the value. */
const KEY = /^"((?:[^"\\\u0000-\u001f]|\\.)*)":/;

/** A row of a collection: a record's line, and a comma unless it is the collection's last row. */
function recordOf(row: string, last: boolean): { key: string; line: string; json: string } | null {
  if (last === row.endsWith(',')) return null;
  const line = last ? row : row.slice(0, -1);
  const m = KEY.exec(line);
  if (m === null) return null;
  const key = m[1].includes('\\') ? (JSON.parse(`"${m[1]}"`) as string) : m[1];
  return { key, line, json: line.slice(m[0].length) };
}

/**
 * The state in the file's `bytes`, read whole (a process's first read, or a file that is not
 * laid out as `catchUp` expects). A file in another layout is parsed as one document.
 * Throws ImportError for what is no state.
 */
export function fromBytes(bytes: Buffer): Committed {
  // what the sandbox writes is ASCII, and latin1 decodes it as a copy (UTF-8 checks every byte)
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  try {
    const read = readLines(text, bytes);
    if (read !== null) return read;
  } catch (err) {
    // a line that looks like ours but is not (hand-edited): the whole parse says what is wrong
    if (!(err instanceof SyntaxError || err instanceof ImportError)) throw err;
  }
  return fromState(parseJsonState(text));
}

function readLines(text: string, bytes: Buffer): Committed | null {
  // ASCII (what the sandbox writes): a character's offset is its byte's, and whole chunks' bytes are slices of the file's
  const sliceable = text.length === bytes.length;
  const rows = text.split('\n');
  const header = rows[0];
  if (!header.startsWith('{"format":') || !header.endsWith(',')) return null;
  const meta = metaOfHeader(header);
  const sections = emptySections();
  const tags = new Map<string, Set<string>>();
  const colls = {} as Record<Collection, Record<string, unknown>>;
  let at = 1;
  let offset = header.length + 1;
  for (const [i, c] of COLLECTIONS.entries()) {
    const open = rows[at++];
    if (open !== `"${c}":{`) return null;
    offset += open.length + 1;
    const close = i === COLLECTIONS.length - 1 ? '}}' : '},';
    const obj: Record<string, unknown> = (colls[c] = {});
    const section = sections[c];
    let chunkStart = 0;
    let inChunk = 0;
    for (;;) {
      const row = rows[at++];
      if (row === undefined) return null;
      if (row === close) break;
      const last = rows[at] === close;
      const rec = recordOf(row, last);
      if (rec === null) return null;
      const value = JSON.parse(rec.json) as unknown;
      obj[rec.key] = value;
      index(tags, c, rec.key, value, true);
      section.push(rec.key, rec.line);
      // a whole chunk's rows, each `,\n`-ended as in the file, are its bytes (the collection's last row has no comma)
      if (inChunk === CHUNK) inChunk = 0;
      if (inChunk++ === 0) chunkStart = offset;
      offset += row.length + 1;
      if (inChunk === CHUNK && sliceable && !last) section.seal(bytes.subarray(chunkStart, offset));
    }
    offset += close.length + 1;
  }
  if (at !== rows.length - 1 || rows[at] !== '') return null;
  return assemble(meta, colls, sections, tags, header);
}

/**
 * `c` brought up to the file's `bytes` (another process replaced the file), in place: in each
 * collection the chunks that are in the file byte for byte are skipped (a comparison of
 * bytes), and only the rows after them are read; a row equal to the line held keeps its
 * parsed value. Null when the file is not laid out so: then `c` may be half updated, and the
 * caller reads the file whole (fromBytes).
 */
export function catchUp(c: Committed, bytes: Buffer): Committed | null {
  try {
    let end = bytes.indexOf(0x0a);
    if (end < 0) return null;
    const header = bytes.toString('utf8', 0, end);
    if (!header.startsWith('{"format":') || !header.endsWith(',')) return null;
    const meta = header === c.header ? c.state : metaOfHeader(header);
    let offset = end + 1;
    for (const [i, coll] of COLLECTIONS.entries()) {
      if (!bytes.subarray(offset, offset + OPEN[coll].length).equals(OPEN[coll])) return null;
      offset += OPEN[coll].length;
      const section = c.sections[coll];
      const obj = c.state[coll] as Record<string, unknown>;
      const [same, from] = section.matchPrefix(bytes, offset);
      // the rest of the collection: its rows up to the line that closes it (no record line starts with `}`)
      end = bytes[from] === 0x7d ? from : bytes.indexOf('\n}', from);
      if (end < 0 || (end === from && same > 0)) return null;
      const rows = end === from ? [] : bytes.toString('utf8', from, end).split('\n');
      const close = i === COLLECTIONS.length - 1 ? CLOSE_LAST : CLOSE;
      const closeAt = end === from ? from : end + 1;
      if (!bytes.subarray(closeAt, closeAt + close.length).equals(close)) return null;
      offset = closeAt + close.length;
      const held = section.truncate(same);
      const seen = new Set<string>();
      for (const [r, row] of rows.entries()) {
        const rec = recordOf(row, r === rows.length - 1);
        if (rec === null || seen.has(rec.key) || section.lines.has(rec.key)) return null;
        seen.add(rec.key);
        if (held.get(rec.key) === rec.line) {
          section.push(rec.key, held.get(rec.key) as string);
          continue;
        }
        const value = JSON.parse(rec.json) as unknown;
        index(c.tags, coll, rec.key, obj[rec.key], false);
        obj[rec.key] = value;
        index(c.tags, coll, rec.key, value, true);
        // stringified again, not the row: a row is a slice of the file's text and would keep all of it alive
        section.push(rec.key, lineOf(rec.key, value));
      }
      for (const key of held.keys()) {
        if (seen.has(key)) continue;
        index(c.tags, coll, key, obj[key], false);
        delete obj[key];
      }
    }
    if (offset !== bytes.length) return null;
    return assemble(meta, Object.fromEntries(COLLECTIONS.map((coll) => [coll, c.state[coll]])) as Record<Collection, Record<string, unknown>>, c.sections, c.tags, header);
  } catch (err) {
    if (err instanceof SyntaxError || err instanceof ImportError) return null;
    throw err;
  }
}

/**
 * A transaction's draft: the meta copied, and each collection a view that hands out a copy
 * of a record (parsed from its line) the first time it is read, so `fn` may change records in
 * place and nothing committed is touched if it throws. `finish` compares each record read or
 * set with its line and returns what changed (null: nothing).
 */
export function begin(c: Committed): { draft: SandboxState; finish(): Change | null } {
  const touched = Object.fromEntries(COLLECTIONS.map((coll) => [coll, new Map<string, { before: string | undefined; value: unknown }>()])) as Record<
    Collection,
    Map<string, { before: string | undefined; value: unknown }>
  >;
  const load = (coll: Collection, key: string): unknown => {
    const t = touched[coll].get(key);
    if (t !== undefined) return t.value;
    const before = c.sections[coll].lines.get(key);
    const value = before === undefined ? undefined : JSON.parse(valueText(key, before));
    touched[coll].set(key, { before, value });
    return value;
  };
  const set = (coll: Collection, key: string, value: unknown) => {
    load(coll, key);
    (touched[coll].get(key) as { value: unknown }).value = value;
  };
  const keysOf = (coll: Collection) => {
    const out: string[] = [];
    const t = touched[coll];
    for (const key of c.sections[coll].lines.keys()) if (t.get(key)?.value !== undefined || !t.has(key)) out.push(key);
    for (const [key, e] of t) if (e.value !== undefined && !c.sections[coll].lines.has(key)) out.push(key);
    return out;
  };
  const view = (coll: Collection) => recordView((k) => load(coll, k), (k, v) => set(coll, k, v), () => keysOf(coll));
  const metaText = JSON.stringify(metaOf(c.state));
  const draft = { format: STATE_FORMAT, version: STATE_VERSION, ...(JSON.parse(metaText) as Meta), ...Object.fromEntries(COLLECTIONS.map((coll) => [coll, view(coll)])) } as unknown as SandboxState;
  // Reads that record nothing (readTagged): the draft's copy where it has one, else the committed record.
  const raw = Object.fromEntries(
    COLLECTIONS.map((coll) => [
      coll,
      new Proxy({} as Record<string, unknown>, {
        get: (_, k) => {
          if (typeof k !== 'string') return undefined;
          const t = touched[coll].get(k);
          return t !== undefined ? t.value : (c.state[coll] as Record<string, unknown>)[k];
        },
      }),
    ]),
  );
  attachIndex(draft, {
    // the committed keys, less those the draft holds, plus those of the draft that carry the tag now
    tagged: (coll, tag) => {
      const t = touched[coll];
      const out: string[] = [];
      for (const key of c.tags.get(`${coll}\t${tag}`) ?? []) if (!t.has(key)) out.push(key);
      for (const [key, e] of t) if (e.value !== undefined && tagsOf(coll, e.value).includes(tag)) out.push(key);
      return out;
    },
    countAtMost: (coll, tag) => (c.tags.get(`${coll}\t${tag}`)?.size ?? 0) + touched[coll].size,
    raw: { ...draft, ...raw } as unknown as SandboxState,
  });

  return {
    draft,
    finish() {
      let changed = false;
      const afterMeta = JSON.stringify(metaOf(draft));
      const header = afterMeta === metaText ? null : headerOf(draft);
      if (header !== null) changed = true;
      let reservations = c.sections.reservations.size;
      const records = {} as Change['records'];
      for (const coll of COLLECTIONS) {
        records[coll] = new Map();
        for (const [key, { before, value }] of touched[coll]) {
          const after = value === undefined ? undefined : lineOf(key, value);
          if (after === before) continue;
          records[coll].set(key, after);
          changed = true;
          if (coll === 'reservations') reservations += (after === undefined ? 0 : 1) - (before === undefined ? 0 : 1);
        }
      }
      return changed ? { header, records, reservations } : null;
    },
  };
}

/**
 * Lays `change`'s lines into the held sections, so that `toBytes` writes the version after
 * it (encoding only the chunks it touched); returns what takes them out again, for a write
 * that fails. `apply` then makes the version after it.
 */
export function stage(c: Committed, change: Change): () => void {
  const undo: [Collection, string, string | undefined][] = [];
  for (const coll of COLLECTIONS) {
    for (const [key, line] of change.records[coll]) {
      undo.push([coll, key, c.sections[coll].lines.get(key)]);
      c.sections[coll].set(key, line);
    }
  }
  return () => {
    for (const [coll, key, line] of undo.reverse()) c.sections[coll].set(key, line);
  };
}

/** The version after a staged `change`: the records it changed parsed from their new lines (nothing of the draft is kept). */
export function apply(c: Committed, change: Change): Committed {
  const colls = Object.fromEntries(COLLECTIONS.map((coll) => [coll, c.state[coll]])) as Record<Collection, Record<string, unknown>>;
  for (const coll of COLLECTIONS) {
    for (const [key, line] of change.records[coll]) {
      index(c.tags, coll, key, colls[coll][key], false);
      if (line === undefined) delete colls[coll][key];
      else {
        const value = JSON.parse(valueText(key, line)) as unknown;
        colls[coll][key] = value;
        index(c.tags, coll, key, value, true);
      }
    }
  }
  const meta = change.header === null ? c.state : metaOfHeader(change.header);
  return assemble(meta, colls, c.sections, c.tags, change.header ?? c.header);
}
