import { describe, expect, it } from 'vitest';
import { setOwn } from '../../src/own.js';

describe('setOwn', () => {
  it('makes a key named __proto__ an own, enumerable, serialised key and leaves the prototype alone', () => {
    const out: Record<string, unknown> = {};
    setOwn(out, '__proto__', { polluted: true });
    setOwn(out, 'a', 1);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"a":1}');
    // As JSON.parse reads it back, and as a spread copies it.
    expect({ ...out }).toEqual(JSON.parse(JSON.stringify(out)));
  });
});
