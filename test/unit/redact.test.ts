import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/http/redact.js';

describe('createRedactor', () => {
  it('removes every occurrence of every secret, in plain, JSON and URL encodings', () => {
    const key = 'sk-a"b/c';
    const redact = createRedactor([key, undefined, '']);
    const text = `k=${key} json=${JSON.stringify(key)} url=${encodeURIComponent(key)} again ${key}`;
    const out = redact(text);
    expect(out).not.toContain(key);
    expect(out).not.toContain(JSON.stringify(key).slice(1, -1));
    expect(out).not.toContain(encodeURIComponent(key));
    expect(out.split(REDACTED).length - 1).toBe(4);
  });

  it('removes a longer secret whole when it contains a shorter one', () => {
    const redact = createRedactor(['abc', 'xxabcxx']);
    expect(redact('1 xxabcxx 2 abc')).toBe(`1 ${REDACTED} 2 ${REDACTED}`);
  });

  it('is the identity without secrets', () => {
    expect(createRedactor([undefined])('anything')).toBe('anything');
  });
});
