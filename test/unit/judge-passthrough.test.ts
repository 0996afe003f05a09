import { describe, expect, it } from 'vitest';
import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { answerOf, CASE_BY_ID, type CaseEvidence, chunk, completion, framesOf, MARKER, markerOf, requestOf, STREAM_GAP_MS, type UpstreamRecord } from '../../src/passthrough/cases.js';
import { addedKeys, differences, fateOf, keyOrder, sameJson } from '../../src/passthrough/diff.js';
import { pieceChanges, viewOf } from '../../src/passthrough/stream-diff.js';

const MODEL = 'm';

/** A client exchange as the gateway answered it. */
function exchange(status: number | undefined, json?: unknown, extra: Partial<StreamExchange> = {}): StreamExchange {
  const text = json === undefined ? '' : typeof json === 'string' ? json : JSON.stringify(json);
  return {
    callId: 'c1', attempts: ['c1'], method: 'POST', path: '/chat/completions', status, ok: status !== undefined && status < 300, headers: {}, contentType: 'application/json',
    text, json: typeof json === 'string' ? undefined : json, parseError: undefined, bom: false, cuts: [], truncated: false, cap: 1 << 20, bytes: text.length, durationMs: 5, startedAt: 0,
    requestId: undefined, usage: undefined, transport: status === undefined ? { code: 'timeout', kind: 'time-limit', message: 'timed out' } : undefined, errorMessage: status && status >= 400 ? 'refused' : undefined,
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
  const arrived = received?.(structuredClone(body));
  // The upstream answers the request as it arrived (a stream, usage asked for), as chatprobe upstream does.
  return { sent: body, sentHeaders: headers, records: received ? [record(arrived)] : [], x, scripted: answerOf(id, MODEL, arrived ?? body), loopLagMs };
}
const judge = (id: string, ev: CaseEvidence) => CASE_BY_ID.get(id)!.judge(ev);

/** The stream the upstream answers case `id`'s request with, as chatprobe sent it. */
const scriptedStream = (id: string) => answerOf(id, MODEL, requestOf(CASE_BY_ID.get(id)!, MODEL, markerOf('abcdef0123', id)).body) as { frames: string[] };

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
    expect(judge('seed', ev)).toMatchObject({ verdict: 'warn', observed: 'the upstream received this request 2 times, chatprobe sent it once: the gateway sent it again' });
    // Trap: a request chatprobe itself sent twice (its attempts) is no retry of the gateway's.
    ev.x = { ...ev.x, attempts: ['c1', 'c2'] };
    expect(judge('seed', ev).verdict).toBe('pass');
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
    const s = scriptedStream('stream_frames');
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
    // A piece that never arrived changes the answer a client assembles: a failure, named frame by frame.
    expect(judge('stream_frames', evidence('stream_frames', (b) => b, reframed))).toMatchObject({
      verdict: 'fail',
      observed: 'the answer a client assembles changed: content: the client assembles "one three four five six", the upstream sent "one two three four five six"; frame by frame: content " two" never arrived',
    });
    expect(framesOf(': c\n\ndata: {"a":1}\n\ndata: [DONE]\n\n')).toEqual([{ comment: 'c' }, { data: '{"a":1}' }, { data: '[DONE]' }]);
  });
});

// ---- streams as a client assembles them ----

type Ev = Record<string, any>;
/** A stream's data events, parsed ([DONE] as the string). */
const eventsOf = (frames: readonly string[]): (Ev | string)[] =>
  frames.filter((f) => f.startsWith('data: ')).map((f) => f.slice(6).trim()).map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as Ev)));
const sse = (events: readonly unknown[]) => events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');
/** What the client received: a stream's text, typed as the upstream typed it unless told otherwise. */
const streamed = (text: string, extra: Partial<StreamExchange> = {}) =>
  exchange(200, undefined, { text, contentType: 'text/event-stream', assembled: { contentTimes: [10, 70, 130, 190, 250, 310] } as StreamExchange['assembled'], ...extra });
const ZERO = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * The stream of a gateway that rebuilds it with racing chunk handlers: " two" sent twice, " four" and
 * " five" swapped, the usage moved into a chunk repeating " six" with finish "stop" (before the finish
 * chunk), zero usage on every other event, and its own ids.
 */
function racing(frames: readonly string[]): string {
  const [role, one, two, three, four, five, six, finish, usage, done] = eventsOf(frames) as Ev[];
  const carrier = { ...six, choices: [{ ...six!.choices[0], finish_reason: 'stop' }], usage: usage!.usage };
  const out = [role, one, two, two, three, five, four, six, carrier, finish].map((e) => (e === carrier ? e : { ...e, id: 'chatcmpl-gateway', usage: ZERO }));
  return sse([...out, done]);
}

describe('passthrough judgements, streams as a client assembles them', () => {
  it('passes every stream case on a stream received as sent', () => {
    for (const id of ['stream_frames', 'stream_usage', 'stream_usage_unasked', 'stream_content_type']) {
      const v = judge(id, evidence(id, (b) => b, streamed(scriptedStream(id).frames.join(''))));
      expect(v.verdict, `${id}: ${v.observed}`).toBe('pass');
    }
    expect(judge('stream_usage', evidence('stream_usage', (b) => b, streamed(scriptedStream('stream_usage').frames.join('')))).observed).toBe('the usage chunk received unchanged, in a chunk of its own (choices: [])');
  });

  it('fails the racing stream of a rebuilding gateway frame by frame and as a whole, naming each repeated, reordered piece', () => {
    const frames = scriptedStream('stream_frames').frames;
    const v = judge('stream_frames', evidence('stream_frames', (b) => b, streamed(racing(frames))));
    expect(v.verdict).toBe('fail');
    expect(v.findings?.filter((f) => f.severity === 'fail').map((f) => f.code)).toEqual(['answer_changed', 'pieces']);
    expect(v.observed).toContain('the answer a client assembles changed: content: the client assembles "one two two three five four six six", the upstream sent "one two three four five six"; finish_reason "stop" came twice, the upstream sent it once; the last usage a client sees is {"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}, the upstream\'s is {"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}');
    expect(v.observed).toContain('frame by frame: content " four" arrived out of order: after content " five" (the upstream sent it after content " three"); content " two" arrived twice, the upstream sent it once; content " six" arrived twice, the upstream sent it once; finish_reason "stop" arrived twice, the upstream sent it once');
    // What no client sees is said apart, as a note: the gateway's own ids.
    expect(v.findings?.find((f) => f.code === 'trivial')?.message).toMatch(/^rewrites no client sees: ids rewritten/);
  });

  it('fails stream_usage on a usage inside a chunk that repeats a content piece, and names the zero usage on every other event', () => {
    const frames = scriptedStream('stream_usage').frames;
    const v = judge('stream_usage', evidence('stream_usage', (b) => b, streamed(racing(frames))));
    expect(v.verdict).toBe('fail');
    expect(v.findings?.map((f) => f.code)).toEqual(['answer_changed', 'changed', 'usage_in_content_chunk', 'usage_added']);
    expect(v.observed).toContain(
      'the usage arrived inside a chunk that repeats content " six" and finish_reason "stop" (its choices not empty), not in a chunk of its own with choices: [] as the upstream sent it: a client assembles the piece again',
    );
    expect(v.observed).toContain('the last usage a client sees is {"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}, the upstream reported {"prompt_tokens":9,"completion_tokens":3,"total_tokens":12} (the upstream\'s usage came earlier, in event 9 of 10)');
    expect(v.findings?.find((f) => f.code === 'usage_added')?.message).toBe(
      '9 other event(s) carry usage the upstream never sent ({"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}): a client that keeps the last usage it sees may read 0',
    );
  });

  it('trap: ids, added nulls and key order are rewrites no client sees (a note, the case passes)', () => {
    const frames = scriptedStream('stream_frames').frames;
    const tidy = eventsOf(frames).map((e) => {
      if (typeof e === 'string') return e;
      const { choices, ...rest } = e;
      return { choices, ...rest, id: 'chatcmpl-gateway-1', system_fingerprint: null };
    });
    const text = `: gateway\n\n${sse(tidy)}`;
    for (const id of ['stream_frames', 'stream_usage', 'stream_timing']) {
      const v = judge(id, evidence(id, (b) => b, streamed(text)));
      expect(v.verdict, `${id}: ${v.observed}`).toBe('pass');
    }
    const v = judge('stream_frames', evidence('stream_frames', (b) => b, streamed(text)));
    expect(v.findings?.find((f) => f.code === 'trivial')?.message).toBe('rewrites no client sees: ids rewritten (every event); nulls added or dropped: system_fingerprint (every event); keys reordered (every event)');
    expect(v.observed).toContain('9 events and [DONE] received as sent, but for rewrites no client sees');
  });

  it('trap: an answer cut into other pieces that assembles the same is regrouped (warn), never a corrupted answer', () => {
    const [role, one, two, ...rest] = eventsOf(scriptedStream('stream_frames').frames) as Ev[];
    const merged = { ...one, choices: [{ ...one!.choices[0], delta: { content: `${one!.choices[0].delta.content}${two!.choices[0].delta.content}` } }] };
    const v = judge('stream_frames', evidence('stream_frames', (b) => b, streamed(sse([role, merged, ...rest]))));
    expect(v.verdict).toBe('warn');
    expect(v.findings?.filter((f) => f.severity !== 'info').map((f) => f.code)).toEqual(['rechunked']);
    expect(v.observed).toMatch(/^the answer came in other pieces, the same once assembled: content "one two" arrived, the upstream never sent it/);
    // The finish reason merged into the last content chunk: the same pieces in the same order, in fewer events.
    const [r, ...words] = eventsOf(scriptedStream('stream_frames').frames) as Ev[];
    const six = words[5]!;
    const lastWithFinish = { ...six, choices: [{ ...six.choices[0], finish_reason: 'stop' }] };
    const fewer = judge('stream_frames', evidence('stream_frames', (b) => b, streamed(sse([r, ...words.slice(0, 5), lastWithFinish, ...words.slice(7)]))));
    expect(fewer).toMatchObject({ verdict: 'warn', observed: '9 events sent, 8 received: the same pieces, grouped otherwise' });
  });

  it('trap: usage merged into the finish chunk (as llama.cpp sends it) repeats nothing: a warning, not a corrupted answer', () => {
    const [role, ...rest] = eventsOf(scriptedStream('stream_usage').frames) as Ev[];
    const finish = rest[6]!;
    const usage = rest[7]!;
    const merged = sse([role, ...rest.slice(0, 6), { ...finish, usage: usage.usage }, rest[8]]);
    const v = judge('stream_usage', evidence('stream_usage', (b) => b, streamed(merged)));
    expect(v).toMatchObject({ verdict: 'warn', observed: 'the usage arrived inside a chunk carrying finish_reason "stop", not in a chunk of its own with choices: [] as the upstream sent it' });
  });

  it('trap: include_usage dropped on the way leaves the upstream unasked: stream_usage names that, stream_frames compares no usage', () => {
    const unasked = ({ stream_options: _o, ...rest }: Record<string, unknown>) => rest;
    const ev = evidence('stream_usage', unasked, streamed(''));
    // The upstream answered the request it received: no usage chunk.
    expect((ev.scripted as { frames: string[] }).frames.some((f) => f.includes('"usage"'))).toBe(false);
    ev.x = streamed((ev.scripted as { frames: string[] }).frames.join(''));
    expect(judge('stream_usage', ev)).toMatchObject({ verdict: 'fail', observed: 'the upstream was not asked for usage (stream_options.include_usage did not reach it), so it sent none' });
    const frames = evidence('stream_frames', unasked, ev.x);
    expect(judge('stream_frames', frames).verdict).toBe('pass');
  });

  it('stream_usage_unasked: include_usage injected is named; a usage chunk the client did not ask for fails; one stripped again on the way back does not', () => {
    const inject = (b: Record<string, unknown>) => ({ ...b, stream_options: { include_usage: true } });
    const ev = evidence('stream_usage_unasked', inject, streamed(''));
    const upstreamSent = (ev.scripted as { frames: string[] }).frames;
    expect(upstreamSent.some((f) => f.includes('"choices":[]'))).toBe(true);
    ev.x = streamed(upstreamSent.join(''));
    const v = judge('stream_usage_unasked', ev);
    expect(v.verdict).toBe('fail');
    expect(v.findings?.map((f) => f.code)).toEqual(['injected', 'usage_unasked']);
    expect(v.observed).toBe(
      'the client received a chunk with choices: [] it did not ask for (usage: {"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}): a client that reads choices[0] of every chunk breaks on it',
    );
    // Injected for the gateway's own count, and stripped again: what the client gets is whole (no usage is no change to it).
    ev.x = streamed(upstreamSent.filter((f) => !f.includes('"usage"')).join(''));
    expect(judge('stream_usage_unasked', ev)).toMatchObject({ verdict: 'warn', observed: 'the gateway added stream_options {"include_usage":true} to a stream that did not ask for usage' });
    // include_usage: false added asks for nothing.
    const off = evidence('stream_usage_unasked', (b) => ({ ...b, stream_options: { include_usage: false } }), streamed(scriptedStream('stream_usage_unasked').frames.join('')));
    expect(judge('stream_usage_unasked', off).verdict).toBe('pass');
  });

  it('stream_content_type: a stream without Content-Type, or with another, fails; text/event-stream with a charset passes', () => {
    const text = scriptedStream('stream_content_type').frames.join('');
    expect(judge('stream_content_type', evidence('stream_content_type', (b) => b, streamed(text, { contentType: '' })))).toMatchObject({
      verdict: 'fail',
      observed: "the upstream streamed with Content-Type: text/event-stream, the client got no Content-Type: a client that checks it (a browser's EventSource, Python's httpx-sse) refuses the stream",
    });
    expect(judge('stream_content_type', evidence('stream_content_type', (b) => b, streamed(text, { contentType: 'application/json' }))).findings?.map((f) => f.code)).toEqual(['content_type_changed']);
    expect(judge('stream_content_type', evidence('stream_content_type', (b) => b, streamed(text, { contentType: 'text/event-stream; charset=utf-8' }))).verdict).toBe('pass');
  });

  it('trap: a stream cut by chatprobe’s own record, or turned into one JSON body, is said as what it is', () => {
    const long = streamed(`${scriptedStream('stream_frames').frames.join('')}${': pad\n\n'.repeat(40_000)}`);
    expect(judge('stream_frames', evidence('stream_frames', (b) => b, long)).verdict).toBe('inconclusive');
    const json = streamed(JSON.stringify(completion(MODEL, { content: 'one two three four five six' })), { contentType: 'application/json' });
    expect(judge('stream_frames', evidence('stream_frames', (b) => b, json)).findings?.map((f) => f.code)).toEqual(['not_a_stream']);
    // An event nested deeper than chatprobe parses is said as its own limit, not a crash nor the gateway's fault.
    const deep = streamed(scriptedStream('stream_frames').frames.join('').replace('data: [DONE]', `data: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n\ndata: [DONE]`));
    expect(judge('stream_frames', evidence('stream_frames', (b) => b, deep))).toMatchObject({
      verdict: 'warn',
      observed: '1 event(s) the upstream never sent, nested deeper than chatprobe parses (its own limit): not compared',
    });
    // A data event that is not JSON throws in a client's hands: every stream case fails on it.
    const garbled = streamed(scriptedStream('stream_usage').frames.join('').replace('data: [DONE]', 'data: {"choices": [\n\ndata: [DONE]'));
    expect(judge('stream_usage', evidence('stream_usage', (b) => b, garbled))).toMatchObject({ verdict: 'fail', observed: 'the client received data events that are not JSON, which the upstream never sent: "{\\"choices\\": ["' });
  });
});

describe('passthrough stream reading, bounded where the gateway is in control', () => {
  // Within the 256 K characters chatprobe keeps of a stream (a longer one is not compared: its own limit, tested above).
  it('reads a wide event (2,000 choices, 2,000 tool-call fragments) as its first few, and a flood of events as a whole', () => {
    const wide = { choices: Array.from({ length: 2000 }, (_, i) => ({ index: i, delta: { content: 'x', tool_calls: i === 0 ? Array.from({ length: 2000 }, () => ({ index: 0, function: { arguments: 'a' } })) : undefined }, finish_reason: null })) };
    const text = sse([wide, '[DONE]']);
    expect(text.length).toBeLessThan(256 * 1024);
    const view = viewOf(text);
    expect(view.pieces.length).toBeLessThanOrEqual(32 * 33 + 1);
    expect(view.whole.choices.size).toBeLessThanOrEqual(32);
    // 2,000 events (within the 256 K characters chatprobe keeps of a stream): more than it aligns one by one; the answer is still compared whole, and the stream case decided.
    const flood = Array.from({ length: 2000 }, () => ({ choices: [{ index: 0, delta: { content: 'y' }, finish_reason: null }] }));
    const many = viewOf(sse([...flood, '[DONE]']));
    expect(pieceChanges(viewOf(scriptedStream('stream_frames').frames.join('')).pieces, many.pieces)).toEqual(['more than 1024 pieces received: too many for chatprobe to align one by one (the answer is compared as a whole)']);
    const v = judge('stream_frames', evidence('stream_frames', (b) => b, streamed(sse([...flood, '[DONE]']))));
    expect(v.verdict).toBe('fail');
    expect(v.observed).toMatch(/^the answer a client assembles changed: content: the client assembles "yyyy/);
  });
});

describe('passthrough judgements, what a rebuilding gateway changes', () => {
  const scripted = (id: string) => answerOf(id, MODEL, {}) as { body: Record<string, any>; status: number };

  it('request: top_p 0 and 1 dropped, presence_penalty clamped and a tool’s strict dropped fail; forwarded they pass', () => {
    const drop = (k: string) => (b: Record<string, unknown>) => Object.fromEntries(Object.entries(b).filter(([key]) => key !== k));
    expect(judge('top_p_0', evidence('top_p_0', drop('top_p')))).toMatchObject({ verdict: 'fail', observed: 'top_p was dropped: the upstream recorded the request without it' });
    expect(judge('top_p_1', evidence('top_p_1', drop('top_p'))).verdict).toBe('fail');
    expect(judge('top_p_0', evidence('top_p_0', (b) => b))).toMatchObject({ verdict: 'pass', observed: 'forwarded unchanged: top_p 0' });
    expect(judge('presence_penalty_min', evidence('presence_penalty_min', (b) => ({ ...b, presence_penalty: 0 })))).toMatchObject({ verdict: 'fail', observed: 'presence_penalty changed on the way: sent -2, arrived 0' });
    expect(judge('presence_penalty_max', evidence('presence_penalty_max', (b) => ({ ...b, presence_penalty: 1 })))).toMatchObject({ verdict: 'fail', observed: 'presence_penalty changed on the way: sent 2, arrived 1' });
    expect(judge('presence_penalty_max', evidence('presence_penalty_max', (b) => b)).verdict).toBe('pass');
    const unstrict = (b: Record<string, any>) => ({ ...b, tools: b.tools.map((t: any) => ({ ...t, function: { ...t.function, strict: undefined } })) });
    expect(judge('tools_strict', evidence('tools_strict', unstrict))).toMatchObject({ verdict: 'fail', observed: 'tools[0].function.strict was dropped: the upstream recorded the request without it' });
    expect(judge('tools_strict', evidence('tools_strict', (b) => b))).toMatchObject({ verdict: 'pass', observed: 'forwarded unchanged: tools[0].function.strict true' });
  });

  it('response: system_fingerprint dropped, "" turned into null beside tool calls, and n answers cut to one are named', () => {
    const fp = structuredClone(scripted('response_system_fingerprint').body);
    delete fp.system_fingerprint;
    expect(judge('response_system_fingerprint', evidence('response_system_fingerprint', (b) => b, exchange(200, fp)))).toMatchObject({
      verdict: 'warn',
      observed: 'system_fingerprint was dropped: the upstream sent it, the client did not receive it',
    });
    expect(judge('response_system_fingerprint', evidence('response_system_fingerprint', (b) => b, exchange(200, scripted('response_system_fingerprint').body))).verdict).toBe('pass');

    const empty = structuredClone(scripted('response_empty_content').body);
    expect(empty.choices[0].message.content).toBe('');
    empty.choices[0].message.content = null;
    expect(judge('response_empty_content', evidence('response_empty_content', (b) => b, exchange(200, empty)))).toMatchObject({
      verdict: 'warn',
      observed: 'choices[0].message.content changed on the way back: the upstream sent "", the client got null',
    });
    delete empty.choices[0].message.tool_calls;
    expect(judge('response_empty_content', evidence('response_empty_content', (b) => b, exchange(200, empty))).verdict).toBe('fail');

    const two = scripted('response_n').body;
    expect(two.choices).toHaveLength(2);
    expect(judge('response_n', evidence('response_n', (b) => b, exchange(200, two)))).toMatchObject({ verdict: 'pass', observed: 'all 2 choices received as the upstream sent them' });
    const one = { ...two, choices: two.choices.slice(0, 1) };
    expect(judge('response_n', evidence('response_n', (b) => b, exchange(200, one)))).toMatchObject({ verdict: 'fail', observed: 'the upstream answered 2 choices (n: 2), the client received 1' });
    // Trap: a null the gateway leaves out (logprobs) is no change to a choice.
    const tidy = { ...two, choices: two.choices.map(({ logprobs: _l, ...c }: Record<string, unknown>) => c) };
    expect(judge('response_n', evidence('response_n', (b) => b, exchange(200, tidy))).verdict).toBe('pass');
  });

  it('retries: counted from the upstream’s records less chatprobe’s own attempts; a 4xx retried is a warning, a 5xx retried is reported', () => {
    const times = (id: string, n: number, x: Exchange) => {
      const ev = evidence(id, (b) => b, x);
      ev.records = Array.from({ length: n }, () => ev.records[0]!);
      return ev;
    };
    const refused = exchange(400, scripted('retry_4xx').body);
    expect(judge('retry_4xx', times('retry_4xx', 1, refused))).toMatchObject({
      verdict: 'pass',
      observed: "the gateway did not retry the upstream's HTTP 400 (the upstream received the request once, chatprobe sent it once); HTTP 400 and its body reached the client as the upstream sent them",
    });
    expect(judge('retry_4xx', times('retry_4xx', 3, refused))).toMatchObject({
      verdict: 'warn',
      observed: "the gateway retried the upstream's HTTP 400 twice (the upstream received the request 3 times, chatprobe sent it once): a refusal does not change on a retry, so each one costs a request for nothing",
    });
    // Trap: two attempts of chatprobe's own reaching the upstream twice are no retry of the gateway's.
    expect(judge('retry_4xx', times('retry_4xx', 2, { ...refused, attempts: ['c1', 'c2'] })).verdict).toBe('pass');
    const failed = exchange(500, scripted('retry_5xx').body);
    expect(judge('retry_5xx', times('retry_5xx', 4, failed))).toMatchObject({
      verdict: 'pass',
      observed: "the gateway retried the upstream's HTTP 500 3 times (the upstream received the request 4 times, chatprobe sent it once); HTTP 500 and its body reached the client as the upstream sent them",
    });
    expect(judge('retry_5xx', times('retry_5xx', 2, exchange(502, scripted('retry_5xx').body))).findings?.map((f) => f.code)).toEqual(['status_changed', 'retried']);
    expect(judge('retry_5xx', times('retry_5xx', 0, exchange(undefined))).verdict).toBe('inconclusive');
    // Whatever else the verdict says (a body rewrapped, as Portkey does), whether it was retried is a finding of its own.
    const rewrapped = exchange(400, { error: { message: 'gateway: refused' } });
    expect(judge('retry_4xx', times('retry_4xx', 1, rewrapped)).findings?.map((f) => f.code)).toEqual(['reshaped', 'not_retried']);
  });
});
