import { describe, expect, it } from 'vitest';
import { safeJsonItems, safeJsonText } from '../../src/text/json-text.js';

const KEY = 'svc_live_abcdefgh12345678';

describe('safeJsonText', () => {
  it('leaves ordinary JSON byte-for-byte as it was, key order and spacing included', () => {
    const text = '{"b":1,  "a":[true,null,"x"],"name":"Zoë"}';
    expect(safeJsonText(text, [KEY])).toBe(text);
  });

  it('escapes C1 controls, DEL, bidi controls and line separators, and stays equal JSON', () => {
    const value = { name: 'a\u009b2Jb\u202ec\u2066d\u2028e\u007ff\u0085' };
    const out = safeJsonText(JSON.stringify(value));
    expect(out).not.toMatch(/[\u007f-\u009f\u202e\u2066\u2028]/);
    expect(out).toContain('\\u009b');
    expect(out).toContain('\\u202e');
    expect(JSON.parse(out)).toEqual(value);
  });

  it('masks the key wherever it appears, also when written with JSON escapes', () => {
    const plain = safeJsonText(JSON.stringify({ request_id: `req-${KEY}` }), [KEY]);
    expect(plain).not.toContain(KEY);
    expect(plain).toContain('svc_…5678');
    const escaped = `{"request_id":"${KEY.replace('_', '\\u005f')}"}`;
    const out = safeJsonText(escaped, [KEY]);
    expect(JSON.parse(out).request_id).not.toContain(KEY);
    expect(out).not.toContain('abcdefgh12345678');
  });

  it('masks a key split by invisible characters, raw (no backslash: no second parse) or escaped', () => {
    // raw C1 and bidi characters are valid inside JSON strings: the text replace sees them
    const raw = `{"a":"${KEY.slice(0, 6)}\u0085\u202e${KEY.slice(6)}"}`;
    expect(raw).not.toContain('\\');
    expect(safeJsonText(raw, [KEY])).not.toContain(KEY.slice(6));
    // C0 controls must be escaped in JSON: only the parse sees the key behind them
    const escaped = `{"a":"${KEY.slice(0, 6)}\\u001b${KEY.slice(6)}"}`;
    expect(escaped).toContain('\\u001b');
    expect(safeJsonText(escaped, [KEY])).not.toContain(KEY.slice(6));
  });

  it('a run of comma-separated items (a page of cars --all) is escaped and masked like a whole text', () => {
    const items = `{"a":"${KEY}"},{"b":"x\u202ey"}`;
    const out = safeJsonItems(items, [KEY]);
    expect(out).not.toContain(KEY);
    expect(JSON.parse(`[${out}]`)).toEqual([{ a: 'svc_…5678' }, { b: 'x\u202ey' }]);
    expect(out).toContain('\\u202e');
    expect(safeJsonItems('{"b":1},2', [])).toBe('{"b":1},2');
  });

  it('ignores secrets shorter than 8 characters (they would mask ordinary text)', () => {
    expect(safeJsonText('{"a":"short"}', ['short'])).toBe('{"a":"short"}');
  });
});
