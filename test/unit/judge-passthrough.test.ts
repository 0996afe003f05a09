import { describe, expect, it } from 'vitest';
import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { answerOf, CASE_BY_ID, type CaseEvidence, chunk, completion, framesOf, MARKER, markerOf, requestOf, STREAM_GAP_MS, type UpstreamRecord } from '../../src/passthrough/cases.js';
import { addedKeys, differences, fateOf, keyOrder, sameJson } from '../../src/passthrough/diff.js';

const MODEL = 'm';

/** A client exchange as the gateway answered it. */
function exchange(status: number | undefined, json?: unknown, extra: Partial<StreamExchange> = {}): StreamExchange {
  const text = json === undefined ? '' : typeof json === 'string' ? json : JSON.stringify(json);
  return {
    callId: 'c1', attempts: ['c1'], method: 'POST', path: '/chat/completions', status, ok: status !== undefined && status < 300, headers: {}, contentType: 'application/json',
    text, json: typeof json === 'string' ? undefined : json, parseError: undefined, bom: false, cuts: [], truncated: false, cap: 1 << 20, bytes: text.length, durationMs: 5, startedAt: 0,
    requestId: undefined, usage: undefined, transport: status === undefined ? { code: 'timeout', message: 'timed out' } : undefined, errorMessage: status && status >= 400 ? 'refused' : undefined,
    errorCode: undefined, errorParam: undefined, errorShape: undefined, cause: undefined,
    isEventStream: false, sse: undefined, assembled: undefined, ttftMs: undefined, gapsMs: [],
    ...extra,
  };
}

const record = (body: unknown, headers: [string, string][] = []): UpstreamRecord => ({ seq: 1, at: '', method: 'POST', path: '/v1/chat/completions', run: 'abcdef0123', case: 'x', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The evidence of case `id`: what chatprobe sent, what the upstream recorded (a function of the sent body), what came back. */
function evidence(id: string, received: ((sent: Record<string, unknown>) => unknown) | undefined, x: Exchange = exchange(200, completion(MODEL, { content: 'ok' })), loopLagMs = 0): CaseEvidence {
  const c = CASE_BY_ID.get(id)!;
  const { body, headers } = requestOf(c, MODEL, markerOf('abcdef0123', id));
  return { sent: body, sentHeaders: headers, records: received ? [record(received(structuredClone(body)))] : [], x, scripted: answerOf(id, MODEL, c.stream === true), loopLagMs };
}
const judge = (id: string, ev: CaseEvidence) => CASE_BY_ID.get(id)!.judge(ev);

describe('passthrough diffs', () => {
  it('compares JSON regardless of key order, and says when the order changed', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(keyOrder({ model: 1, temperature: 2, top_p: 3 }, { top_p: 3, model: 1, temperature: 2 })).toEqual({ sent: ['model', 'temperature', 'top_p'], received: ['top_p', 'model', 'temperature'] });
    expect(keyOrder({ a: 1, b: 2 }, { a: 1, x: 0, b: 2 })).toBeUndefined();
  });

  it('tells renamed from dropped: a known rename first, then any new key holding the value; otherwise dropped', () => {
    expect(fateOf({ max_tokens: 16 }, { max_completion_tokens: 16 }, ['max_tokens'])).toMatchObject({ fate: 'renamed', to: 'max_completion_tokens', changed: false });
    expect(fateOf({ max_tokens: -5 }, { max_completion_tokens: 0 }, ['max_tokens'])).toMatchObject({ fate: 'renamed', to: 'max_completion_tokens', changed: true });
    expect(fateOf({ seed: 7 }, { random_seed: 7 }, ['seed'])).toMatchObject({ fate: 'renamed', to: 'random_seed' });
    expect(fateOf({ odd: 'value-1' }, { other: 'value-1' }, ['odd'])).toMatchObject({ fate: 'renamed', to: 'other' });
    expect(fateOf({ odd: 'value-1' }, { other: 'value-2' }, ['odd'])).toEqual({ fate: 'dropped', from: 'value-1' });
    // Trap: a plain false or 2 under a new key is as likely a default the gateway added beside a dropped field.
    expect(fateOf({ parallel_tool_calls: false }, { stream: false }, ['parallel_tool_calls'])).toEqual({ fate: 'dropped', from: false });
    expect(fateOf({ n: 2 }, { top_k: 2 }, ['n'])).toEqual({ fate: 'dropped', from: 2 });
    expect(addedKeys({ n: 2 }, { top_k: 2 })).toEqual(['top_k']);
    expect(addedKeys({ max_tokens: 1 }, { max_completion_tokens: 1, stream: false })).toEqual(['stream']);
    expect(differences({ messages: [{ role: 'developer', content: 'x' }] }, { messages: [{ role: 'system', content: 'x' }] })).toEqual(['messages[0].role: "developer" → "system"']);
  });

  it('finds the marker the upstream reads in any body', () => {
    const m = MARKER.exec(JSON.stringify(requestOf(CASE_BY_ID.get('content_parts')!, MODEL, markerOf('0123456789', 'content_parts')).body));
    expect(m?.slice(1)).toEqual(['0123456789', 'content_parts']);
  });
});

describe('passthrough judgements, request direction', () => {
  it('passes a field that arrived unchanged, and calls a clamp of a bad value a finding (warn), not a failure', () => {
    expect(judge('temperature', evidence('temperature', (s) => s))).toMatchObject({ verdict: 'pass', observed: 'forwarded unchanged: temperature 0.7' });
    expect(judge('out_of_range_temperature', evidence('out_of_range_temperature', (s) => ({ ...s, temperature: 2 })))).toMatchObject({ verdict: 'warn', observed: 'temperature changed on the way: sent 5, arrived 2' });
    expect(judge('temperature', evidence('temperature', (s) => ({ ...s, temperature: 1 }))).verdict).toBe('fail');
  });

  it('trap: "dropped" only when the upstream recorded the request; a request it never saw is refused, answered elsewhere or undecided', () => {
    const refused = judge('temperature', evidence('temperature', undefined, exchange(400, { error: { message: 'no' } })));
    expect(refused.verdict).toBe('fail');
    expect(refused.findings?.[0]?.code).toBe('refused_by_gateway');
    // A bad value refused by the gateway itself is what a gateway may do.
    expect(judge('out_of_range_top_p', evidence('out_of_range_top_p', undefined, exchange(400, { error: { message: 'top_p' } }))).verdict).toBe('pass');
    // A 200 the upstream never produced: another channel, a cache or a fallback answered.
    const elsewhere = judge('seed', evidence('seed', undefined));
    expect(elsewhere.findings?.[0]?.code).toBe('answered_elsewhere');
    expect(judge('seed', evidence('seed', undefined, exchange(502, 'bad gateway'))).verdict).toBe('inconclusive');
    // A 401, 404 or 429 is about the whole request (key, route, rate), not the field: never "refused".
    for (const status of [401, 403, 404, 429]) expect(judge('temperature', evidence('temperature', undefined, exchange(status, { error: { message: 'no' } }))).verdict, String(status)).toBe('inconclusive');
    expect(judge('seed', evidence('seed', undefined, exchange(undefined))).verdict).toBe('inconclusive');
    const dropped = judge('seed', evidence('seed', ({ seed: _s, ...rest }) => rest));
    expect(dropped).toMatchObject({ verdict: 'fail', observed: 'seed was dropped: the upstream recorded the request without it' });
  });

  it('names renames, a model rewritten, a request sent twice, and messages reshaped', () => {
    expect(judge('max_tokens', evidence('max_tokens', ({ max_tokens, ...r }) => ({ ...r, max_completion_tokens: max_tokens })))).toMatchObject({ verdict: 'warn', observed: 'max_tokens arrived renamed to max_completion_tokens' });
    // Renamed with another value is a changed value: a failure for a valid one.
    expect(judge('max_tokens', evidence('max_tokens', ({ max_tokens: _m, ...r }) => ({ ...r, max_completion_tokens: 4096 })))).toMatchObject({
      verdict: 'fail',
      observed: 'max_tokens arrived renamed to max_completion_tokens, its value changed: sent 16, arrived 4096',
    });
    // A model alias the gateway maps is the model case's finding alone, not every cell's.
    expect(judge('seed', evidence('seed', (s) => ({ ...s, model: 'alias-target' }))).verdict).toBe('pass');
    const elsewhere = evidence('seed', (s) => s);
    elsewhere.records[0]!.path = '/v1/responses';
    expect(judge('seed', elsewhere).findings?.map((f) => f.code)).toEqual(['rerouted', 'forwarded']);
    const model = judge('model', evidence('model', (s) => ({ ...s, model: 'cheaper-model' })));
    expect(model).toMatchObject({ verdict: 'fail', observed: 'model: sent "m", the upstream was asked for "cheaper-model"' });
    const ev = evidence('seed', (s) => s);
    ev.records.push(ev.records[0]!);
    expect(judge('seed', ev)).toMatchObject({ verdict: 'warn', observed: 'the upstream received this request 2 times: the gateway sent it again' });
    const dev = judge('role_developer', evidence('role_developer', (s) => ({ ...s, messages: (s.messages as { role: string }[]).map((m) => (m.role === 'developer' ? { ...m, role: 'system' } : m)) })));
    expect(dev).toMatchObject({ verdict: 'warn', observed: 'messages changed on the way: [0].role: "developer" → "system"' });
  });

  it('lists fields the gateway adds, and the headers it drops or adds', () => {
    expect(judge('defaults', evidence('defaults', (s) => ({ ...s, stream: false, temperature: 1 })))).toMatchObject({ verdict: 'warn', observed: 'the gateway added stream: false; the gateway added temperature: 1' });
    const ev = evidence('extra_header', (s) => s);
    ev.records[0]!.headers = [['x-forwarded-for', '10.0.0.1'], ['authorization', '[not recorded]']];
    const v = judge('extra_header', ev);
    expect(v.verdict).toBe('warn');
    expect(v.findings?.map((f) => f.code)).toEqual(['dropped', 'added_headers', 'authorization']);
  });
});

describe('passthrough judgements, response direction', () => {
  const scripted = (id: string) => answerOf(id, MODEL, false) as { body: Record<string, unknown>; status: number };

  it('passes an answer received as sent, and names what was dropped or changed on the way back', () => {
    const usage = scripted('response_usage');
    expect(judge('response_usage', evidence('response_usage', (s) => s, exchange(200, usage.body))).verdict).toBe('pass');
    const billed = structuredClone(usage.body) as { usage: { completion_tokens: number } };
    billed.usage.completion_tokens = 50;
    expect(judge('response_usage', evidence('response_usage', (s) => s, exchange(200, billed)))).toMatchObject({ verdict: 'fail', observed: 'usage changed on the way back: completion_tokens: 5 → 50' });
    const reasoning = structuredClone(scripted('response_reasoning').body) as { choices: { message: Record<string, unknown> }[] };
    delete reasoning.choices[0]!.message.reasoning_content;
    expect(judge('response_reasoning', evidence('response_reasoning', (s) => s, exchange(200, reasoning)))).toMatchObject({ verdict: 'warn', observed: 'choices[0].message.reasoning_content was dropped: the upstream sent it, the client did not receive it' });
  });

  it('trap: an answer chatprobe did not get whole, or cut itself, is inconclusive, never the gateway’s change', () => {
    const usage = scripted('response_usage');
    expect(judge('response_usage', evidence('response_usage', (s) => s, exchange(undefined))).verdict).toBe('inconclusive');
    expect(judge('response_usage', evidence('response_usage', (s) => s, exchange(200, usage.body, { truncated: true }))).verdict).toBe('inconclusive');
    expect(judge('response_error_openai', evidence('response_error_openai', (s) => s, exchange(undefined))).verdict).toBe('inconclusive');
    expect(judge('stream_frames', evidence('stream_frames', (s) => s, exchange(undefined))).verdict).toBe('inconclusive');
  });

  it('fails a status changed on the way back, and calls a rewritten error body a finding', () => {
    const limited = scripted('response_rate_limited');
    const v = judge('response_rate_limited', evidence('response_rate_limited', (s) => s, exchange(500, limited.body)));
    expect(v.verdict).toBe('fail');
    expect(v.findings?.map((f) => f.code)).toEqual(['status_changed']);
    const same = judge('response_error_openai', evidence('response_error_openai', (s) => s, exchange(400, scripted('response_error_openai').body)));
    expect(same.verdict).toBe('pass');
  });

  it('judges a stream: [DONE] and the usage chunk kept, and a burst where the upstream spread its chunks is buffering', () => {
    const s = answerOf('stream_frames', MODEL, true) as { frames: string[] };
    const whole = s.frames.join('');
    const spread = exchange(200, undefined, { text: whole, assembled: { contentTimes: [10, 70, 130, 190, 250, 310] } as StreamExchange['assembled'] });
    expect(judge('stream_frames', evidence('stream_frames', (b) => b, spread)).verdict).toBe('pass');
    expect(judge('stream_timing', evidence('stream_timing', (b) => b, spread))).toMatchObject({ verdict: 'pass', observed: `content chunks arrived over 300 ms; the upstream spread them over ${5 * STREAM_GAP_MS} ms` });
    const burst = { ...spread, assembled: { contentTimes: [400, 400, 401, 401, 402, 402] } as StreamExchange['assembled'] };
    expect(judge('stream_timing', evidence('stream_timing', (b) => b, burst)).verdict).toBe('fail');
    // Trap: our own loop held up about as long as the upstream spread its chunks would have read an honest
    // stream as one burst too; a shorter hold-up cannot have gathered chunks sent before it began.
    expect(judge('stream_timing', evidence('stream_timing', (b) => b, burst, 5 * STREAM_GAP_MS))).toMatchObject({
      verdict: 'inconclusive',
      observed: expect.stringContaining(`chatprobe's own event loop was held up 300 ms`),
    });
    expect(judge('stream_timing', evidence('stream_timing', (b) => b, burst, 5 * STREAM_GAP_MS - 15)).verdict).toBe('inconclusive');
    expect(judge('stream_timing', evidence('stream_timing', (b) => b, burst, 5 * STREAM_GAP_MS - 16)).verdict).toBe('fail');
    expect(judge('stream_timing', evidence('stream_timing', (b) => b, burst, 12)).verdict).toBe('fail');
    // A hold-up cannot spread a burst out: a spread stream passes whatever the loop did.
    expect(judge('stream_timing', evidence('stream_timing', (b) => b, spread, 1000)).verdict).toBe('pass');

    const noDone = { ...spread, text: whole.replace('data: [DONE]\n\n', '') };
    expect(judge('stream_frames', evidence('stream_frames', (b) => b, noDone)).findings?.map((f) => f.code)).toContain('done_dropped');
    const noUsage = { ...spread, text: s.frames.filter((f) => !f.includes('"usage"')).join('') };
    expect(judge('stream_usage', evidence('stream_usage', (b) => b, noUsage))).toMatchObject({ verdict: 'fail', observed: 'the usage chunk did not reach the client' });
    const reframed = { ...spread, text: whole.replace(chunk(MODEL, { content: ' two' }), '') };
    expect(judge('stream_frames', evidence('stream_frames', (b) => b, reframed)).verdict).toBe('warn');
    expect(framesOf(': c\n\ndata: {"a":1}\n\ndata: [DONE]\n\n')).toEqual([{ comment: 'c' }, { data: '{"a":1}' }, { data: '[DONE]' }]);
  });
});
