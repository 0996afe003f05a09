import { describe, expect, it } from 'vitest';
import { jsonDepthOver, KEPT_TEXT_CHARS, MAX_JSON_DEPTH, toExchange } from '../../src/engine/exchange.js';
import { answerProblem, ourCut } from '../../src/engine/verdicts.js';
import type { HttpResponse } from '../../src/http/client.js';

/** A 200 JSON answer whose body is `text`, read whole. */
function answer(text: string): HttpResponse {
  const bytes = new TextEncoder().encode(text);
  return { status: 200, headers: { 'content-type': 'application/json' }, chunks: [{ at: 1, bytes }], bytes: bytes.length, truncated: false, cap: 2 * 1024 * 1024, durationMs: 2, startedAt: 0 };
}
const completion = (extra: unknown) => JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], extra });
const req = { method: 'POST' as const, path: '/chat/completions' };

describe('an answer as probes hold it', () => {
  it('counts nesting outside strings only, escaped quotes included', () => {
    expect(jsonDepthOver('[[["]]]]]]"]]]', 3)).toBe(false);
    expect(jsonDepthOver('{"a":"\\"[[[[","b":[[[[1]]]]}', 4)).toBe(true);
    expect(jsonDepthOver('{"a":"\\"[[[[","b":[[[1]]]}', 4)).toBe(false);
  });

  it('does not parse JSON nested past its limit (a million arrays once parsed), and says the limit is its own', () => {
    const deep = completion(JSON.parse(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`));
    const padded = `${deep.slice(0, -1)},"pad":"${'p'.repeat(20_000)}"}`;
    const x = toExchange('c1', req, answer(padded));
    expect(x.json).toBeUndefined();
    expect(x.truncated).toBe(true);
    expect(answerProblem(x)).toBe(`HTTP 200 with JSON nested deeper than ${MAX_JSON_DEPTH} levels: chatprobe read it but does not parse it (its own limit), so nothing in it was judged`);
    expect(ourCut(x)).toContain('its own limit');
    // Shallow JSON of the same size is parsed as ever.
    const shallow = toExchange('c2', req, answer(`${completion(1).slice(0, -1)},"pad":"${'p'.repeat(20_000)}"}`));
    expect(shallow.json).toBeDefined();
  });

  it('keeps the start of a long body’s text once it is parsed: all of it judged, not all of it held', () => {
    const long = `${completion(1).slice(0, -1)},"pad":"${'p'.repeat(1_000_000)}"}`;
    const x = toExchange('c3', req, answer(long));
    expect((x.json as { choices: unknown[] }).choices).toHaveLength(1);
    expect(x.text).toHaveLength(KEPT_TEXT_CHARS);
    expect(x.cuts).toEqual([`chatprobe kept the first ${KEPT_TEXT_CHARS} of the body's ${long.length} characters; all of it was parsed and judged`]);
  });
});
