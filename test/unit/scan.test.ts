import { describe, expect, it } from 'vitest';
import { elements, members, valueAt, valueEnd } from '../../src/report/scan.js';

/** report/scan.ts: a JSON text read a value at a time, as `chatprobe repro` reads one cell of a large report. */
describe('scan: JSON a value at a time', () => {
  const text = JSON.stringify(
    {
      schemaVersion: 1,
      tricky: 'a "quoted" } ] { [ string \\ with a backslash, and , commas',
      nested: { a: [1, { b: '}' }], c: null },
      results: [{ model: 'm-1', probe: 'x.y', n: -1.5e3 }, { model: 'm-"2"', probe: 'x.z' }, true, 'str', 7],
      empty: [],
      obj: {},
    },
    null,
    2,
  );

  it('finds each top-level member where JSON.parse reads the same value', () => {
    const top = members(text);
    expect([...top.keys()]).toEqual(['schemaVersion', 'tricky', 'nested', 'results', 'empty', 'obj']);
    const whole = JSON.parse(text) as Record<string, unknown>;
    for (const [key, at] of top) expect(valueAt(text, at), key).toEqual(whole[key]);
  });

  it('yields each element of an array, braces and quotes inside strings included', () => {
    const top = members(text);
    expect([...elements(text, top.get('results')!)]).toEqual([{ model: 'm-1', probe: 'x.y', n: -1500 }, { model: 'm-"2"', probe: 'x.z' }, true, 'str', 7]);
    expect([...elements(text, top.get('empty')!)]).toEqual([]);
    expect(members(text, top.get('obj')!.start).size).toBe(0);
  });

  it('reads compact JSON alike', () => {
    const compact = JSON.stringify({ a: [1, 2], b: 's' });
    expect([...elements(compact, members(compact).get('a')!)]).toEqual([1, 2]);
    expect(valueEnd('"a\\"b" rest', 0)).toBe(6);
  });

  it('refuses what is not JSON of the shape asked for', () => {
    expect(() => members('[1, 2]')).toThrow(SyntaxError);
    expect(() => members('{"a": "unterminated')).toThrow(SyntaxError);
    expect(() => members('{"a" 1}')).toThrow(SyntaxError);
    expect(() => [...elements('{"a": 1}', { start: 0, end: 8 })]).toThrow(SyntaxError);
    // Brackets of the wrong kind are found when the slice is parsed.
    expect(() => valueAt('[1}]', { start: 0, end: valueEnd('[1}]', 0) })).toThrow(SyntaxError);
    expect(() => valueEnd('{"a": [1, 2', 0)).toThrow(SyntaxError);
  });
});
