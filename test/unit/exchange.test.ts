import { describe, expect, it } from 'vitest';
import { KEPT_TEXT_CHARS, StreamSink, toExchange, toStreamExchange } from '../../src/engine/exchange.js';
import { jsonDepthOver, MAX_JSON_DEPTH } from '../../src/wire/json-depth.js';
import { answerProblem, ourCut } from '../../src/engine/verdicts.js';
import type { HttpResponse } from '../../src/http/client.js';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';

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

describe('a body the server compressed though none was asked for', () => {
  const body = completion('gzip');
  const encoded = (encoding: string, bytes: Uint8Array, chunks = 1): HttpResponse => {
    const step = Math.ceil(bytes.length / chunks);
    const parts = Array.from({ length: chunks }, (_, i) => ({ at: i + 1, bytes: bytes.subarray(i * step, (i + 1) * step) }));
    return { status: 200, headers: { 'content-type': 'application/json', 'content-encoding': encoding }, chunks: parts, bytes: bytes.length, truncated: false, cap: 2 * 1024 * 1024, durationMs: 5, startedAt: 0 };
  };

  it.each([
    ['gzip', gzipSync(body)],
    ['deflate', deflateSync(body)],
    ['deflate sent raw', deflateRawSync(body)],
    ['br', brotliCompressSync(body)],
  ])('is decoded as clients decode it (%s), in however many reads it came', (name, bytes) => {
    const x = toExchange('c1', req, encoded(name.split(' ')[0]!, bytes, 3));
    expect(x.parseError).toBeUndefined();
    expect(x.text).toBe(body);
    expect(answerProblem(x)).toBeUndefined();
    expect(x.encoding).toBe(name.split(' ')[0]);
  });

  it('reads a compressed stream whole once it ended, and does not pretend to know when each part came', () => {
    const sse = 'data: {"id":"s","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"O"},"finish_reason":null}]}\n\ndata: {"id":"s","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"K"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const res = { ...encoded('gzip', gzipSync(sse), 2), headers: { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' } };
    expect(new StreamSink().start(200, res.headers)).toBe(false);
    const x = toStreamExchange('c1', req, res);
    expect(x.assembled?.choices.get(0)?.content).toBe('OK');
    expect(x.assembled?.done).toBe(true);
    expect(x.ttftMs).toBeUndefined();
    expect(x.cuts.join(' ')).toContain('the stream came gzip-encoded: chatprobe decoded it whole once it ended');
  });

  it('says what it cannot decode, without reading the compressed bytes as text', () => {
    const broken = toExchange('c1', req, encoded('gzip', new TextEncoder().encode('not gzip at all')));
    expect(broken.parseError).toMatch(/^a gzip body that does not decode/);
    expect(broken.text).toBe('');
    expect(toExchange('c1', req, encoded('zstd', new Uint8Array([1, 2, 3]))).parseError).toBe('a body in the zstd encoding, which chatprobe does not decode');
    // A name Object's prototype has is no decoder.
    for (const name of ['constructor', '__proto__', 'tostring']) expect(toExchange('c1', req, encoded(name, new Uint8Array([1, 2, 3]))).parseError).toBe(`a body in the ${name} encoding, which chatprobe does not decode`);
  });

  it('stops at its own cap when a small body inflates past it: our cut, not the server failing', () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 32));
    const x = toExchange('c1', req, encoded('gzip', bomb));
    expect(x.truncated).toBe(true);
    expect(answerProblem(x)).toBe(ourCut(x));
  });
});
