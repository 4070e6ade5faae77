// Finds where a value sits in a JSON text, so `--json` can print the server's own bytes of
// the envelope's `data` (or of each car of a page) instead of a re-serialised copy.
//
// Why a scanner and not a parser with source positions: JSON.parse's source-text access
// (the reviver's `context.source`) arrives with V8 11.4, after Node 20's V8, and the
// parsers that report positions are built for editors (a dependency and a second full
// parse). What is needed is narrow: skip over a value and report where it ended. The text
// has already passed JSON.parse (the client parses every body), so the scanner may trust
// it to be valid JSON and only has to track strings and nesting.

export interface Span {
  start: number;
  end: number;
}

// Speed matters here: `cars --all` scans every byte the server sends (28 MB at 20k cars).
// Plain comparisons instead of a Set lookup, and a quote not preceded by a backslash
// (nearly every one) ends a string without counting backslashes; test/unit/json-scan.test.ts
// pins the results, bench/cars-all the speed.
const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text.charCodeAt(i))) i++;
  return i;
}

/** `i` is at an opening quote; returns the index after the closing one. */
function skipString(text: string, i: number): number {
  for (let j = i + 1; ; ) {
    const q = text.indexOf('"', j);
    if (q < 0) throw new SyntaxError('unterminated string');
    if (text.charCodeAt(q - 1) !== 0x5c) return q + 1;
    let backslashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * Everything up to the next bracket, strings included whatever they hold, in one match.
 * Stepping through a value in JavaScript, character by character and string by string, cost
 * ~1 ms of every data command on a cold start (`cars --json` reads its 68 KB `data` through
 * once), where the regular expression engine takes ~0.25 ms. Its backtracking stack has a
 * limit: a run of ~10 million characters without a bracket overflows it, and then the
 * JavaScript loop below takes that run (test/unit/json-scan.test.ts has one; exported for it).
 */
export const UP_TO_BRACKET = /(?:"(?:[^"\\]|\\.)*"|[^"[\]{}])*/y;

/** The index of the next bracket at or after `j` outside a string (or the text's length). */
function nextBracket(text: string, j: number): number {
  UP_TO_BRACKET.lastIndex = j;
  try {
    UP_TO_BRACKET.test(text);
    return UP_TO_BRACKET.lastIndex;
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
  }
  for (;;) {
    const ch = text.charCodeAt(j);
    if (j >= text.length || ch === 0x7b || ch === 0x5b || ch === 0x7d || ch === 0x5d) return j;
    j = ch === 0x22 ? skipString(text, j) : j + 1;
  }
}

/** `i` is at the first character of a value; returns the index just after it. */
export function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < text.length; ) {
      const ch = text.charCodeAt(j);
      if (ch === 0x7b || ch === 0x5b) depth++;
      else if (ch === 0x7d || ch === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      } else {
        j = nextBracket(text, j);
        continue;
      }
      j++;
    }
    throw new SyntaxError('unterminated object or array');
  }
  // number, true, false, null: up to the next delimiter
  let j = i;
  while (j < text.length) {
    const ch = text.charCodeAt(j);
    if (ch === 0x2c || ch === 0x7d || ch === 0x5d || isWs(ch)) break;
    j++;
  }
  if (j === i) throw new SyntaxError(`unexpected character at ${i}`);
  return j;
}

/** A member's key as JSON.parse reads it: `"d\u0061ta"` is the key `data`. */
function decodeKey(raw: string): string {
  return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
}

/**
 * The spans of the elements of the array at `path` (keys from the root object down), in
 * one pass over the text: `cars --all` finds each car of a page this way. Undefined when a
 * step is not an object, lacks the key, or the value there is not an array. A repeated
 * key counts by its last occurrence, as JSON.parse keeps the last.
 */
export function arrayElementsAt(text: string, path: readonly string[]): Span[] | undefined {
  return descend(text, skipWs(text, 0), path, 0).found;
}

function descend(text: string, i: number, path: readonly string[], depth: number): { end: number; found?: Span[] } {
  if (depth === path.length) {
    if (text.charCodeAt(i) !== 0x5b) return { end: skipValue(text, i) };
    const found: Span[] = [];
    let j = skipWs(text, i + 1);
    if (text.charCodeAt(j) === 0x5d) return { end: j + 1, found };
    for (;;) {
      const end = skipValue(text, j);
      found.push({ start: j, end });
      j = skipWs(text, end);
      if (text.charCodeAt(j) === 0x5d) return { end: j + 1, found };
      j = skipWs(text, j + 1);
    }
  }
  if (text.charCodeAt(i) !== 0x7b) return { end: skipValue(text, i) };
  let found: Span[] | undefined;
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 0x7d) return { end: j + 1 };
  for (;;) {
    const keyEnd = skipString(text, j);
    const key = decodeKey(text.slice(j, keyEnd));
    j = skipWs(text, skipWs(text, keyEnd) + 1); // past the colon
    let end: number;
    if (key === path[depth]) ({ end, found } = descend(text, j, path, depth + 1));
    else end = skipValue(text, j);
    j = skipWs(text, end);
    if (text.charCodeAt(j) === 0x7d) return { end: j + 1, found };
    j = skipWs(text, j + 1); // past the comma
  }
}

/** The members of the object whose `{` is at `i`: each key (decoded) and its value's span. */
export function* objectMembers(text: string, i: number): Generator<{ key: string; value: Span }> {
  if (text.charCodeAt(i) !== 0x7b) throw new SyntaxError(`expected an object at ${i}`);
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 0x7d) return;
  for (;;) {
    const keyEnd = skipString(text, j);
    const key = decodeKey(text.slice(j, keyEnd));
    j = skipWs(text, keyEnd);
    j = skipWs(text, j + 1); // the colon
    const end = skipValue(text, j);
    yield { key, value: { start: j, end } };
    j = skipWs(text, end);
    if (text.charCodeAt(j) === 0x7d) return;
    j = skipWs(text, j + 1); // the comma
  }
}

/** The spans of the elements of the array whose `[` is at `i`. */
export function* arrayElements(text: string, i: number): Generator<Span> {
  if (text.charCodeAt(i) !== 0x5b) throw new SyntaxError(`expected an array at ${i}`);
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 0x5d) return;
  for (;;) {
    const end = skipValue(text, j);
    yield { start: j, end };
    j = skipWs(text, end);
    if (text.charCodeAt(j) === 0x5d) return;
    j = skipWs(text, j + 1);
  }
}

/** The span of the whole text's top-level value, without surrounding whitespace. */
export function rootSpan(text: string): Span {
  const start = skipWs(text, 0);
  return { start, end: skipValue(text, start) };
}

/**
 * The span of member `key` of the object at `span` (the last one when a key repeats, as
 * JSON.parse keeps the last); undefined when the value is not an object or has no such key.
 */
export function memberSpan(text: string, span: Span, key: string): Span | undefined {
  if (text.charCodeAt(span.start) !== 0x7b) return undefined;
  let found: Span | undefined;
  for (const m of objectMembers(text, span.start)) if (m.key === key) found = m.value;
  return found;
}

/**
 * The same JSON text indented for a person (two spaces, like JSON.stringify's): every
 * string and number keeps its bytes and every key its place, which a parse and
 * re-stringify would not promise (big numbers, `1.0`, integer-like keys move first).
 */
export function reindent(text: string): string {
  let out = '';
  let depth = 0;
  const nl = () => '\n' + '  '.repeat(depth);
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '"') {
      const end = skipString(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const next = skipWs(text, i + 1);
      if (text[next] === close) {
        out += c + close;
        i = next + 1;
        continue;
      }
      depth++;
      out += c + nl();
    } else if (c === '}' || c === ']') {
      depth--;
      out += nl() + c;
    } else if (c === ',') out += ',' + nl();
    else if (c === ':') out += ': ';
    else out += c;
    i++;
  }
  return out;
}
