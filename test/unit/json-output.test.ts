// The pieces of the JSON output path: the scanner that finds the server's bytes, the
// re-indenter for terminals, field selection, and --jq.
import { describe, expect, it } from 'vitest';
import { arrayElements, arrayElementsAt, memberSpan, reindent, rootSpan } from '../../src/text/json-scan.js';
import { rawPayload } from '../../src/text/raw-json.js';
import { parseJsonFields } from '../../src/input/json-fields.js';
import { selectFields } from '../../src/render/json-select.js';
import { prepareJq, runJq } from '../../src/render/jq.js';
import { usageError } from '../helpers/failure.js';

const slice = (text: string, span: { start: number; end: number } | undefined) => (span ? text.slice(span.start, span.end) : undefined);

const usage = usageError;

describe('json scanner', () => {
  it("finds the envelope's data as the server wrote it: key order, spacing, numbers and escapes kept", () => {
    const body = ' { "meta" : {"data": 1}, "data" : {"b":1.0,"a":"x\\"}\\\\","2":100000000000000000001, "n":[1, {"data":[]}]} } ';
    expect(rawPayload(body, JSON.parse(body)).text).toBe('{"b":1.0,"a":"x\\"}\\\\","2":100000000000000000001, "n":[1, {"data":[]}]}');
  });

  it('reads an escaped key as the key it spells, and the last of a repeated key (as JSON.parse does)', () => {
    const body = '{"d\\u0061ta":[1],"data":[2]}';
    expect(slice(body, memberSpan(body, rootSpan(body), 'data'))).toBe('[2]');
    expect(slice('{"d\\u0061ta":[1]}', memberSpan('{"d\\u0061ta":[1]}', rootSpan('{"d\\u0061ta":[1]}'), 'data'))).toBe('[1]');
  });

  it('finds the top-level value without the whitespace around it', () => {
    for (const text of ['{"a":1}', ' \t\r\n[1, 2] \n', '"x"', ' 12 ', 'null\n', '{"a":"]}"} ']) expect(slice(text, rootSpan(text))).toBe(text.trim());
  });

  it('a bare payload (the invoice list) is the whole body', () => {
    expect(rawPayload('[ {"id":"x"} ]\n', [{ id: 'x' }], false).text).toBe('[ {"id":"x"} ]');
  });

  it('lists the elements of an array with their own bytes', () => {
    const text = '{"cars":[ {"a":"]"} , {"b":[1,2]},"s\\"",true,null,-1.5e3 ]}';
    const cars = memberSpan(text, rootSpan(text), 'cars')!;
    expect([...arrayElements(text, cars.start)].map((s) => slice(text, s))).toEqual(['{"a":"]"}', '{"b":[1,2]}', '"s\\""', 'true', 'null', '-1.5e3']);
    expect([...arrayElements('[]', 0)]).toEqual([]);
  });

  it('finds the elements of a nested array in one pass, as JSON.parse reads the path', () => {
    const text = ' { "meta":{"data":{"cars":[0]}}, "d\\u0061ta" : { "total":2, "cars" : [ {"a":"]\\\\"} ,"q\\"}" ,[1,{"cars":[9]}], -1.5e3 ] , "x":"\\\\" } } ';
    expect(JSON.parse(text).data.cars).toHaveLength(4);
    expect(arrayElementsAt(text, ['data', 'cars'])!.map((s) => slice(text, s))).toEqual(['{"a":"]\\\\"}', '"q\\"}"', '[1,{"cars":[9]}]', '-1.5e3']);
    // the last of a repeated key wins, even when it is not an array
    expect(arrayElementsAt('{"data":{"cars":[1],"cars":[2,3]}}', ['data', 'cars'])!.map((s) => s.end - s.start)).toEqual([1, 1]);
    expect(arrayElementsAt('{"data":{"cars":[1],"cars":null}}', ['data', 'cars'])).toBeUndefined();
    expect(arrayElementsAt('{"data":{"cars":[]}}', ['data', 'cars'])).toEqual([]);
    expect(arrayElementsAt('{"data":[]}', ['data', 'cars'])).toBeUndefined();
    expect(arrayElementsAt('{"other":{"cars":[1]}}', ['data', 'cars'])).toBeUndefined();
  });

  it('agrees with JSON.parse on every car of a real page, escapes and all', () => {
    const cars = [
      { car_alias: 'a', name: 'Quote " and \\ and \u2028', tags: ['[', ']', '{', '}'], n: -0.5e-3 },
      { car_alias: 'b', nested: { deep: [[{}], []] }, empty: '', bs: '\\' },
    ];
    const text = JSON.stringify({ data: { cars, total: 2, has_more: false } }, null, 1);
    const found = arrayElementsAt(text, ['data', 'cars'])!.map((s) => JSON.parse(text.slice(s.start, s.end)));
    expect(found).toEqual(cars);
  });

  it('reindents like JSON.stringify(…, 2) but keeps every token as written', () => {
    const doc = { a: [1, { b: 'c,d:{' }], e: {}, f: [], g: null, h: 'x\\"y' };
    expect(reindent(JSON.stringify(doc))).toBe(JSON.stringify(doc, null, 2));
    expect(reindent('{"2":1.0,"1":100000000000000000001}')).toBe('{\n  "2": 1.0,\n  "1": 100000000000000000001\n}');
  });
});

describe('--json fields', () => {
  it('parses a comma-separated list and refuses anything else (exit 2)', () => {
    expect(parseJsonFields('car_alias, name,car_alias')).toEqual(['car_alias', 'name']);
    expect(usage(() => parseJsonFields('a,,b')).message).toContain('comma-separated list of field names');
    expect(usage(() => parseJsonFields('.cars[]')).message).toContain('comma-separated');
  });

  it('cuts each item of a list and keeps the shape of the document', () => {
    const page = { cars: [{ car_alias: 'a', name: 'A', seats: 4 }, { car_alias: 'b', name: 'B' }], total: 2, has_more: false };
    expect(selectFields(page, ['name', 'seats'], { lists: ['cars'] })).toEqual({ cars: [{ name: 'A', seats: 4 }, { name: 'B' }], total: 2, has_more: false });
    expect(selectFields([{ id: 1, x: 2 }], ['id'])).toEqual([{ id: 1 }]);
    // an object made only of lists (the trips list) is a group of lists
    expect(selectFields({ active: [{ uuid: 'u', status: 'new' }], history: [] }, ['uuid'])).toEqual({ active: [{ uuid: 'u' }], history: [] });
    // any other object is one item
    expect(selectFields({ uuid: 'u', invoices: [{ id: 1 }], status: 'new' }, ['status'])).toEqual({ status: 'new' });
  });

  it('an unknown field is exit 2 listing the available ones, documented ones included', () => {
    const err = usage(() => selectFields({ cars: [{ car_alias: 'a' }], total: 1, has_more: false }, ['nme'], { lists: ['cars'], known: () => ['name'] }));
    expect(err.message).toBe('unknown JSON field: nme');
    expect(err.hint).toBe('available fields: car_alias, name');
  });

  it('a single string has no fields', () => {
    expect(usage(() => selectFields('OK', ['a'])).message).toContain('single value');
  });
});

describe('--jq', () => {
  it('compiles before anything runs: a syntax error is exit 2', async () => {
    await expect(prepareJq('.cars[')).rejects.toMatchObject({ kind: 'usage', message: expect.stringContaining('syntax error') });
  });

  it('prints strings raw and other values as JSON (one line each in a pipe, indented on a terminal)', async () => {
    await prepareJq('.cars[] | .name, {a: .seats}');
    const input = '{"cars":[{"name":"A","seats":4},{"name":"B","seats":2}]}';
    expect(runJq('.cars[] | .name, {a: .seats}', input, { tty: false })).toBe('A\n{"a":4}\nB\n{"a":2}');
    expect(runJq('.cars[0] | {a: .seats}', input, { tty: true })).toBe('{\n  "a": 4\n}');
  });

  it('shows control and bidi characters as \\u escapes and masks the key, even in raw strings', async () => {
    const key = 'svc_0123456789abcdef0123456789abcdef';
    const input = JSON.stringify({ name: `A\u001b[31m\u0085\u202eB ${key}` });
    await prepareJq('.name');
    expect(runJq('.name', input, { tty: false, secrets: [key] })).toBe('A\\u001b[31m\\u0085\\u202eB svc_…cdef');
  });

  it('a runtime error is exit 1 with jq’s message', async () => {
    await prepareJq('.a.b');
    expect(() => runJq('.a.b', '{"a":1}', { tty: false })).toThrow(/--jq: Cannot index number/);
  });
});
