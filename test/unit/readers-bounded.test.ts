/**
 * Every reader of server data, run on what a hostile or broken server can send: deep (100,000 levels,
 * built as text and parsed, where it is parsed at all, by chatprobe's own code), wide (a million keys,
 * choices, tool calls, fragments or events) and huge (32 MiB of text in one field). Each must return (no
 * stack overflow, no harness error) with what it returns under the caps it states. The sizes
 * are those at which an unbounded reader overflows the stack or blows its caps; nothing here times anything.
 *
 * The readers: the error reader (wire/error.ts), the exchange and readChoices (wire/completion.ts),
 * readUsage (wire/usage.ts), the SSE reader (wire/sse.ts) and the StreamAssembler (wire/stream.ts) as a
 * stream sink feeds them, the model list (engine/discover.ts), the balance meters (billing/meter.ts), the
 * schema check (wire/validate.ts), passthrough's diff (passthrough/diff.ts), and the HAR record and
 * report text written from server text (report/har.ts, boundary/boundary.ts).
 */
import { describe, expect, it, vi } from 'vitest';

// Each test builds and reads tens of megabytes: about 15 s on a loaded two-core machine at the slowest, so
// the limit is well over three times that (no test here times anything).
vi.setConfig({ testTimeout: 120_000 });
import { Boundary, DECLARED_LIMITS, REPORT_LIMITS } from '../../src/boundary/boundary.js';
import { METERS, readMeter } from '../../src/billing/meter.js';
import { readModelList, MAX_DECLARED_KEYS } from '../../src/engine/discover.js';
import { KEPT_TEXT_CHARS, RECORDED_EVENTS, STREAM_RECORD_CHARS, StreamSink, toExchange, type Exchange } from '../../src/engine/exchange.js';
import { answerProblem } from '../../src/engine/verdicts.js';
import type { HttpResponse } from '../../src/http/client.js';
import { MAX_LINE, readSse } from '../../src/wire/sse.js';
import { addedKeys, differences, MAX_ADDED_KEYS, MAX_DIFF_DEPTH, sameJson, show } from '../../src/passthrough/diff.js';
import { HAR_LIMITS, recordCalls, type HarWriter, type RecordedCall } from '../../src/report/har.js';
import { jsonOf, MAX_CHOICES, MAX_TOOL_CALLS, readChoices } from '../../src/wire/completion.js';
import { BODY_SHOWN, MAX_ERROR_MESSAGE, readError } from '../../src/wire/error.js';
import { MAX_JSON_DEPTH } from '../../src/wire/json-depth.js';
import { assembleStream, MAX_ID_CHARS, MAX_KEPT_CHUNKS, MAX_TEXT, MAX_TOOL_NAME, type AssembledStream } from '../../src/wire/stream.js';
import { readUsage } from '../../src/wire/usage.js';
import { MAX_DEVIATIONS, validateShape } from '../../src/wire/validate.js';
import { judgeErrorInBand } from '../../suites/streaming/error-in-band.js';
import { textToolCall, toolCallsOf } from '../../suites/support/tools.js';
import { streamed } from '../helpers/exchanges.js';

const LEVELS = 100_000;
const MILLION = 1_000_000;
const HUGE_CHARS = 32 * 1024 * 1024;

/** JSON text nested LEVELS deep around `leaf`. */
const deep = (leaf = '1') => '['.repeat(LEVELS) + leaf + ']'.repeat(LEVELS);
/** 32 MiB of one character, for one field. */
const huge = () => 'x'.repeat(HUGE_CHARS);
/** `n` items joined by commas, made one by one (no array of a million strings held twice). */
function list(n: number, item: (i: number) => string): string {
  const parts: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) parts[i] = item(i);
  return parts.join(',');
}

/** A million keys, as the members of a JSON object (made once: several readers are given them). */
let keysText: string | undefined;
const KEYS = (): string => (keysText ??= list(MILLION, (i) => `"k${i}":${i}`));

/** Characters of a note chatprobe adds where it cuts ("… [N more characters cut by chatprobe]"). */
const NOTE = 60;

/** An answer read as the client reads it: the body whole (as if under the cap), through toExchange. */
function exchangeOf(status: number, body: string, o: { contentType?: string; deepJson?: boolean } = {}): Exchange {
  const res: HttpResponse = {
    status,
    headers: { 'content-type': o.contentType ?? 'application/json' },
    chunks: [{ at: 1, bytes: Buffer.from(body) }],
    bytes: Buffer.byteLength(body),
    truncated: false,
    cap: 64 * 1024 * 1024,
    durationMs: 5,
    startedAt: 0,
  };
  return toExchange('r1', { method: 'GET', path: '/chat/completions', ...(o.deepJson ? { deepJson: true } : {}) }, res);
}

/** The size of an output written out: it must be JSON.stringify-able (no depth past V8's) and short. */
const size = (v: unknown): number => JSON.stringify(v).length;

describe('the error reader (wire/error.ts)', () => {
  const within = (x: { message: string | undefined }, cap = MAX_ERROR_MESSAGE) => expect(x.message?.length ?? 0).toBeLessThanOrEqual(cap + NOTE);

  it('deep: a body nested 100,000 levels is not parsed (our cut), and a value that deep is read to its bound', () => {
    const x = exchangeOf(400, `{"error":{"message":"temperature is too high","detail":${deep()}}}`);
    expect(x.unparsed).toBe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(x.errorMessage!.length).toBeLessThanOrEqual(BODY_SHOWN + NOTE);
    // The model list is parsed at any depth (http/client.ts deepJson): the reader walks such a value bounded.
    for (const body of [`{"error":{"message":${deep('"x"')}}}`, `{"error":${deep('{"message":"x"}')}}`, `{"detail":${deep()}}`, `{"message":${deep()}}`, `{"errors":${deep()}}`, deep()]) {
      const d = exchangeOf(400, body, { deepJson: true });
      const e = readError(d.json, d.text, d.contentType);
      within(e);
      expect(size(e)).toBeLessThan(MAX_ERROR_MESSAGE + 1000);
    }
  });

  it('wide: a million keys, list entries or array items give one bounded message', () => {
    const bodies = [
      `{"error":{"message":"n is not supported","code":"x",${KEYS()}}}`,
      `{"detail":[${list(MILLION, () => '{"loc":["body","f"],"msg":"bad"}')}]}`,
      `{"errors":[${list(MILLION, () => '"stop is too long"')}]}`,
      `[${list(MILLION, () => '{"error":{"message":"m"}}')}]`,
      `{"message":[${list(MILLION, () => '{"x":1}')}]}`,
    ];
    for (const body of bodies) {
      const x = exchangeOf(400, body);
      within({ message: x.errorMessage });
      expect(x.text.length).toBeLessThanOrEqual(KEPT_TEXT_CHARS);
    }
    // The same inside a 2xx, as the error-in-2xx text reads it.
    const in2xx = exchangeOf(200, `{"error":{"message":"upstream failed","errors":[${list(MILLION, () => '{}')}]}}`);
    expect(answerProblem(in2xx)).toBe('HTTP 200 with an error body: "upstream failed" (the 2xx body carries an "error" member)');
  });

  it('huge: 32 MiB in one message, a plain text body, an HTML page or an upstream body is cut to its bound', () => {
    const h = huge();
    within({ message: exchangeOf(400, `{"error":{"message":"${h}"}}`).errorMessage });
    within({ message: exchangeOf(500, h, { contentType: 'text/plain' }).errorMessage }, BODY_SHOWN);
    expect(exchangeOf(502, `<html><body>${h}</body></html>`, { contentType: 'text/html' }).errorMessage).toBe('an HTML page');
    // A title the regex would chase through the whole page: only its head is searched.
    within({ message: exchangeOf(502, `<html>${'<title'.repeat(6 * 1024 * 1024)}`, { contentType: 'text/html' }).errorMessage }, BODY_SHOWN);
    within({ message: exchangeOf(400, `{"error":{"message":"Provider returned error","metadata":{"raw":"${h}"}}}`).errorMessage });
    within(readError({ error: { message: h, code: h, param: h } }));
    expect(size(readError({ error: { message: 'x', code: h, param: h } }))).toBeLessThan(1000);
  });
});

describe('the exchange and readChoices (wire/completion.ts)', () => {
  it('deep: an answer nested 100,000 levels is not parsed, and no choice is read from it', () => {
    const x = exchangeOf(200, `{"choices":[{"message":{"content":"a","tool_calls":${deep()}}}]}`);
    expect(x.json).toBeUndefined();
    expect(readChoices(x.json)).toEqual([]);
    expect(answerProblem(x)).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels: chatprobe read it but does not parse it`);
  });

  it('wide: a million choices or tool calls are read as their first few, the cut said', () => {
    const choices = `{"choices":[${list(MILLION, () => '{"message":{"role":"assistant","content":"a"},"finish_reason":"stop"}')}]}`;
    const x = exchangeOf(200, choices);
    expect(readChoices(x.json)).toHaveLength(MAX_CHOICES);
    expect(x.cuts.join('\n')).toContain(`the body carried ${MILLION} choices; chatprobe read the first ${MAX_CHOICES}`);
    // The reader bounds itself, whoever parsed the body.
    expect(readChoices(jsonOf(choices))).toHaveLength(MAX_CHOICES);
    const calls = exchangeOf(200, `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[${list(MILLION, () => '{"id":"c","type":"function","function":{"name":"get_weather","arguments":"{}"}}')}]},"finish_reason":"tool_calls"}]}`);
    const view = readChoices(calls.json)[0]!;
    expect(view.toolCalls).toHaveLength(MAX_TOOL_CALLS);
    expect(view.cut).toBe(true);
    expect(calls.cuts.join('\n')).toContain(`its tool calls ${MAX_TOOL_CALLS}: chatprobe read that much of it`);
    expect(toolCallsOf(calls).calls).toHaveLength(MAX_TOOL_CALLS);
  });

  it('huge: 32 MiB of content or reasoning is read up to MAX_TEXT, the body kept up to KEPT_TEXT_CHARS', () => {
    const x = exchangeOf(200, `{"choices":[{"message":{"role":"assistant","content":"${huge()}","reasoning_content":"${huge()}"},"finish_reason":"stop"}]}`);
    const view = readChoices(x.json)[0]!;
    expect(view.content!.length).toBe(MAX_TEXT);
    expect(view.reasoning!.length).toBe(MAX_TEXT);
    expect(x.text.length).toBe(KEPT_TEXT_CHARS);
    expect(x.cuts.length).toBeLessThanOrEqual(3);
  });

  it('content that is itself deep or wide JSON is read for tool calls written as text without following it down', () => {
    expect(textToolCall(deep())).toBeUndefined();
    expect(textToolCall(`<tool_call>${deep()}</tool_call>`)).toBe('a <tool_call> tag');
    expect(textToolCall(`[${list(MILLION, () => '[]')}]`)).toBeUndefined();
  });
});

describe('readUsage (wire/usage.ts)', () => {
  it('reads three numbers or nothing, whatever surrounds them', () => {
    const deepUsage = exchangeOf(200, `{"usage":${deep()}}`, { deepJson: true });
    expect(readUsage((deepUsage.json as { usage: unknown }).usage)).toBeUndefined();
    const wide = exchangeOf(200, `{"usage":{${KEYS()},"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`);
    expect(wide.usage).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 3 });
    expect(exchangeOf(200, `{"usage":{"prompt_tokens":"${huge()}","completion_tokens":2,"total_tokens":3}}`).usage).toBeUndefined();
  });
});

/** A stream read as the client reads one: each piece pushed into a StreamSink as it arrives. */
function sinkOf(pieces: Iterable<string>): StreamSink {
  const sink = new StreamSink();
  expect(sink.start(200, { 'content-type': 'text/event-stream' })).toBe(true);
  let at = 0;
  for (const piece of pieces) sink.push(Buffer.from(piece), ++at);
  sink.end(at + 1);
  return sink;
}

/** `n` events made by `event`, handed out a few thousand at a time (a stream arrives in pieces). */
function* events(n: number, event: (i: number) => string): Generator<string> {
  const batch = 10_000;
  for (let start = 0; start < n; start += batch) {
    const parts: string[] = [];
    for (let i = start; i < Math.min(n, start + batch); i++) parts.push(`data: ${event(i)}\n\n`);
    yield parts.join('');
  }
}

/** Everything an assembled stream holds, bounded: its texts and lists under the stated caps. */
function expectBounded(s: AssembledStream): void {
  expect(s.chunks.length).toBeLessThanOrEqual(MAX_KEPT_CHUNKS);
  expect(s.nonJson.length).toBeLessThanOrEqual(5);
  for (const t of s.nonJson) expect(t.length).toBeLessThanOrEqual(200);
  expect(s.errors.length).toBeLessThanOrEqual(32);
  expect(s.ids.length).toBeLessThanOrEqual(8);
  for (const id of s.ids) expect(id.length).toBeLessThanOrEqual(MAX_ID_CHARS);
  expect(s.choices.size).toBeLessThanOrEqual(32);
  expect(s.usage.length).toBeLessThanOrEqual(32);
  expect(s.contentTimes.length).toBeLessThanOrEqual(MAX_KEPT_CHUNKS);
  for (const c of s.choices.values()) {
    expect(c.content.length).toBeLessThanOrEqual(MAX_TEXT);
    expect(c.reasoning.length).toBeLessThanOrEqual(MAX_TEXT);
    expect(c.roles.length + c.finishReasons.length).toBeLessThanOrEqual(64);
    expect(c.toolCalls.length).toBeLessThanOrEqual(32);
    for (const t of c.toolCalls) {
      expect(t.name.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
      expect(t.arguments.length).toBeLessThanOrEqual(64 * 1024);
    }
  }
  // All of it can be written out: nothing deeper than V8 can stringify is held.
  expect(size({ ...s, choices: [...s.choices.values()] })).toBeLessThan(64 * 1024 * 1024);
}

describe('the stream: the SSE reader and the StreamAssembler (wire/sse.ts, wire/stream.ts)', () => {
  const chunk = (delta: string, extra = '') => `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m"${extra},"choices":[{"index":0,"delta":${delta},"finish_reason":null}]}`;

  it('deep: an event nested 100,000 levels, or a few thousand inside 16 KB, is not parsed (our cut)', () => {
    const thousands = chunk('{}').replace('"finish_reason":null', `"finish_reason":${'['.repeat(5000)}${']'.repeat(5000)}`);
    const sink = sinkOf([`data: ${chunk('{"content":"Hi"}')}\n\n`, `data: {"error":${deep()}}\n\n`, `data: ${thousands}\n\n`, 'data: [DONE]\n\n']);
    const s = sink.assembled;
    expect(s.tooDeep).toBe(2);
    expect(s.chunkCount).toBe(1);
    expectBounded(s);
    // Read after the fact (a compressed stream) the same, and the judgement reading it says so: no harness error.
    const x = streamed([chunk('{"content":"Hi"}'), `{"error":${deep()}}`, thousands]);
    expect(x.assembled!.tooDeep).toBe(2);
    expect(judgeErrorInBand(x).verdict).toBe('inconclusive');
  });

  it('wide: a million choices in one chunk, or a million tool-call fragments in one delta, are read as their first few', () => {
    const choices = assembleStream([{ at: 1, data: `{"choices":[${list(MILLION, (i) => `{"index":${i},"delta":{"content":"a"}}`)}]}` }]);
    expectBounded(choices);
    const fragments = assembleStream([{ at: 1, data: `{"choices":[{"index":0,"delta":{"tool_calls":[${list(MILLION, (i) => `{"index":${i},"id":"call_${i}","function":{"name":"f","arguments":"{}"}}`)}]}}]}` }]);
    expectBounded(fragments);
    // Through the reader, such an event is longer than a line it holds: cut there, and counted.
    const sink = sinkOf([`data: {"choices":[${list(MILLION, () => '{}')}]}\n\n`]);
    expect(sink.facts.overlong).toBe(1);
    expectBounded(sink.assembled);
  });

  it('wide: a million events of one tool call\'s name are counted, not held, and the name kept to MAX_TOOL_NAME', () => {
    // Each piece of the name differs from the last (a whole name repeated is read once).
    const names = sinkOf(events(MILLION, (i) => chunk(`{"tool_calls":[{"index":0,"function":{"name":"n${i % 10}"}}]}`)));
    const s = names.assembled;
    expect(s.chunkCount).toBe(MILLION);
    expect(s.choices.get(0)!.toolCalls[0]!.name.length).toBe(MAX_TOOL_NAME);
    expect(names.events.length).toBeLessThanOrEqual(RECORDED_EVENTS);
    expect(names.text.length).toBeLessThanOrEqual(STREAM_RECORD_CHARS);
    expectBounded(s);
  });

  it('wide: a million events of distinct ids, or of errors, are counted, not held', () => {
    const ids = sinkOf(events(MILLION, (i) => chunk('{"content":"a"}').replace('"id":"c"', `"id":"c${i}"`)));
    expect(ids.assembled.idCount).toBe(10_000);
    expect(ids.assembled.choices.get(0)!.content.length).toBe(MAX_TEXT);
    expectBounded(ids.assembled);
    const errors = sinkOf(events(MILLION, () => '{"error":{"message":"upstream failed"}}')).assembled;
    expect(errors.errors).toHaveLength(32);
    expectBounded(errors);
  });

  it('huge: 32 MiB in one event is read up to a line\'s cap; in pieces, up to MAX_TEXT; a megabyte id up to MAX_ID_CHARS', () => {
    const h = huge();
    const one = sinkOf([`data: ${chunk(`{"content":"${h}"}`)}\n\n`, 'data: [DONE]\n\n']);
    expect(one.facts.overlong).toBe(1);
    expect(one.text.length).toBeLessThanOrEqual(STREAM_RECORD_CHARS);
    expectBounded(one.assembled);
    const megabyte = h.slice(0, MAX_LINE - 200);
    const pieces = sinkOf(events(32, () => chunk(`{"content":"${megabyte}"}`)));
    expect(pieces.assembled.textCut).toBe(true);
    expectBounded(pieces.assembled);
    // Past the reader's line cap, the assembler bounds itself too.
    const direct = assembleStream([{ at: 1, data: chunk(`{"content":"${h}","reasoning_content":"${h}","tool_calls":[{"index":0,"id":"${megabyte}","function":{"name":"${h}","arguments":"${h}"}}]}`).replace('"id":"c"', `"id":"${megabyte}"`) }]);
    expectBounded(direct);
    // An event longer than the reader's line is counted, not kept as a chunk.
    expect(direct.chunkCount).toBe(1);
    expect(direct.chunks).toHaveLength(0);
    expect(direct.choices.get(0)!.toolCalls[0]!.id).toHaveLength(MAX_ID_CHARS);
  });

  it('readSse holds its events within the body it was given, each under MAX_LINE, and few of everything else', () => {
    const wide = Buffer.from([...events(MILLION, () => '{}')].join(''));
    const read = readSse([{ at: 1, bytes: wide }]);
    expect(read.events).toHaveLength(MILLION);
    expect(read.events.reduce((n, e) => n + e.data.length, 0)).toBeLessThanOrEqual(wide.length);
    const hostile = readSse([{ at: 1, bytes: Buffer.from(`${': ping\n'.repeat(MILLION)}${'stray\n'.repeat(MILLION)}${'event: e\nid: 1\nretry: 5\n'.repeat(MILLION)}data: ${huge()}\n\n${'data: x\n'.repeat(MILLION)}\n`) }]);
    expect(hostile.facts.comments.length).toBeLessThanOrEqual(5);
    expect(hostile.facts.strayLines.length).toBeLessThanOrEqual(5);
    expect(hostile.facts.otherFields.length).toBeLessThanOrEqual(3);
    expect(hostile.facts.overlong).toBeGreaterThanOrEqual(1);
    for (const e of hostile.events) expect(e.data.length).toBeLessThanOrEqual(MAX_LINE);
    const deepRead = readSse([{ at: 1, bytes: Buffer.from(`data: ${deep()}\n\n`) }]);
    expect(deepRead.events[0]!.data.length).toBe(2 * LEVELS + 1);
  });
});

describe('the model list (engine/discover.ts)', () => {
  const listOf = (body: string) => readModelList(exchangeOf(200, body, { deepJson: true }), 'http://127.0.0.1:1/v1');

  it('deep: a value nested 100,000 levels in an entry is kept as a note of our cut', () => {
    const [m] = listOf(`{"object":"list","data":[{"id":"m","object":"model","architecture":${deep()},"supported_parameters":["tools"]}]}`);
    expect(m!.declared).toEqual({ architecture: `[nested deeper than ${MAX_JSON_DEPTH} levels: cut by chatprobe]`, supported_parameters: ['tools'] });
  });

  it('wide: a million keys in an entry keep MAX_DECLARED_KEYS; a million models are the list (its 32 MiB cap bounds it)', () => {
    const [m] = listOf(`{"data":[{"id":"m",${KEYS()}}]}`);
    expect(Object.keys(m!.declared!)).toHaveLength(MAX_DECLARED_KEYS + 1);
    expect(m!.declared!['…']).toBe('more keys cut by chatprobe');
    const models = listOf(`{"data":[${list(MILLION, (i) => `{"id":"m${i}"}`)}]}`);
    expect(models).toHaveLength(MILLION);
    expect(models.every((x) => x.declared === undefined)).toBe(true);
  });

  it('huge: 32 MiB in a declared field reaches the report cut to DECLARED_LIMITS', () => {
    const [m] = listOf(`{"data":[{"id":"m","description":"${huge()}"}]}`);
    const shown = Boundary.of([]).clean(m!.declared, DECLARED_LIMITS) as Record<string, string>;
    expect(shown.description!.length).toBeLessThanOrEqual(DECLARED_LIMITS.string + NOTE);
  });
});

describe('the balance meters (billing/meter.ts)', () => {
  it('read one number, or say in a few words why not, from any body', () => {
    const bodies = [exchangeOf(200, deep()), exchangeOf(200, `{"data":${deep()}}`, { deepJson: true }), exchangeOf(200, `{"data":{${KEYS()},"total_used":5,"usage":5},"info":{"spend":5},"total_usage":5}`), exchangeOf(200, `{"data":{"total_used":"${huge()}"}}`)];
    for (const x of bodies) {
      for (const kind of METERS) {
        const v = readMeter(kind, x);
        expect(typeof v === 'number' || v.length < 100).toBe(true);
      }
    }
    expect(readMeter(METERS[0]!, bodies[2]!)).toBe(5);
  });
});

describe('the schema check (wire/validate.ts)', () => {
  const bounded = (ds: ReturnType<typeof validateShape>) => {
    expect(ds.length).toBeLessThanOrEqual(MAX_DEVIATIONS);
    for (const d of ds) expect(d.path.length + d.message.length).toBeLessThanOrEqual(400 + 2 * NOTE);
  };

  it('wide: a million entries that deviate list MAX_DEVIATIONS at most; one deviating past the listed part is still found', () => {
    const models = jsonOf(`{"object":"list","data":[${list(MILLION, (i) => `{"id":${i}}`)}]}`);
    const ds = validateShape('modelList', models);
    expect(ds.length).toBeGreaterThan(0);
    bounded(ds);
    const lastOnly = jsonOf(`{"object":"list","data":[${list(MILLION - 1, () => '{"id":"m"}')},{"id":7}]}`);
    const late = validateShape('modelList', lastOnly);
    expect(late.map((d) => d.path)).toContain(`/data/${MILLION - 1}/id`);
    bounded(late);
    bounded(validateShape('completion', jsonOf(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[${list(MILLION, () => '{}')}]}`)));
    bounded(validateShape('chunk', jsonOf(`{${KEYS()}}`)));
  });

  it('deep and huge: a deep value where a string belongs, and a 32 MiB key, give short deviations', () => {
    const deepBody = exchangeOf(200, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":${deep()}},"finish_reason":"stop"}]}`, { deepJson: true });
    const ds = validateShape('completion', deepBody.json);
    expect(ds.map((d) => d.path)).toContain('/choices/0/message/content');
    bounded(ds);
    bounded(validateShape('modelList', jsonOf(`{"object":"list","data":{"${huge()}":1}}`)));
    bounded(validateShape('completion', jsonOf(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":{"${huge()}":1}},"finish_reason":"stop"}]}`)));
  });
});

describe("passthrough's diff (passthrough/diff.ts)", () => {
  const line = (s: string) => expect(s.length).toBeLessThanOrEqual(MAX_DIFF_DEPTH * 12 + 400);

  it('deep: documents nested 100,000 levels are compared, their differences located to a bound and shown short', () => {
    const a = jsonOf(deep('1'));
    const b = jsonOf(deep('2'));
    expect(sameJson(a, jsonOf(deep('1')))).toBe(true);
    expect(sameJson(a, b)).toBe(false);
    const diffs = differences(a, b);
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toContain(`differs deeper than ${MAX_DIFF_DEPTH} levels (chatprobe located it no further)`);
    diffs.forEach(line);
    expect(show(a).length).toBeLessThanOrEqual(80);
  });

  it('wide: a million keys are compared whole, their differences listed, added keys to MAX_ADDED_KEYS', () => {
    const one = jsonOf(`{${KEYS()},"last":1}`) as Record<string, unknown>;
    const two = jsonOf(`{${KEYS()},"last":2}`) as Record<string, unknown>;
    expect(sameJson(one, two)).toBe(false);
    expect(differences(one, two)).toEqual(['last: 1 → 2']);
    expect(addedKeys({ model: 'm' }, one)).toHaveLength(MAX_ADDED_KEYS);
    expect(show(one).length).toBeLessThanOrEqual(80);
  });

  it('wide: a million items are compared whole, their differences listed to twenty', () => {
    const items = (v: number) => jsonOf(`[${list(MILLION, () => `{"a":${v}}`)}]`);
    expect(sameJson(items(1), items(1))).toBe(true);
    expect(differences(items(1), items(2))).toHaveLength(20);
    expect(show(items(1)).length).toBeLessThanOrEqual(80);
  });

  it('huge: 32 MiB strings are compared and shown short', () => {
    const h = huge();
    expect(show(h).length).toBeLessThanOrEqual(80);
    const diffs = differences({ content: h }, { content: `${h}!` });
    expect(diffs).toHaveLength(1);
    diffs.forEach(line);
    expect(show({ [h]: h }).length).toBeLessThanOrEqual(80);
  });
});

describe('the HAR record and the report, written from server text (report/har.ts, boundary/boundary.ts)', () => {
  /** The entries recordCalls writes, caught as the HarWriter would get them. */
  function recorded(call: RecordedCall): string {
    const lines: string[] = [];
    recordCalls({ add: (json: string) => lines.push(json) } as unknown as HarWriter, Boundary.of([]))(call);
    return lines[0]!;
  }
  const call = (o: Partial<RecordedCall>): RecordedCall => ({
    callId: 'c1',
    at: '2026-01-01T00:00:00.000Z',
    probe: 'streaming.basic',
    model: 'm',
    method: 'POST',
    url: 'http://127.0.0.1:1/v1/chat/completions',
    requestHeaders: {},
    requestBody: undefined,
    status: 200,
    responseHeaders: {},
    responseText: '',
    bytes: 0,
    durationMs: 1,
    ttftMs: undefined,
    events: undefined,
    cuts: [],
    error: undefined,
    ...o,
  });
  /** An entry's line: its bodies, events and strings each under their caps, so under a few megabytes. */
  const ENTRY_CHARS = 4 * 1024 * 1024;

  it('keeps a stream of a million events, a 32 MiB header and a million headers to an entry of bounded size', () => {
    const sink = sinkOf(events(MILLION, () => '{"choices":[{"index":0,"delta":{"content":"a"}}]}'));
    const headers: Record<string, string> = { 'x-huge': huge() };
    for (let i = 0; i < MILLION; i++) headers[`x-h${i}`] = 'v';
    const entry = recorded(call({ responseText: sink.text, events: sink.events, responseHeaders: headers }));
    expect(entry.length).toBeLessThan(ENTRY_CHARS);
    const parsed = JSON.parse(entry) as { response: { headers: unknown[] }; _events: unknown[] };
    expect(parsed.response.headers.length).toBeLessThanOrEqual(HAR_LIMITS.items + 1);
    expect(parsed._events.length).toBeLessThanOrEqual(RECORDED_EVENTS);
  });

  it('keeps a deep or huge body as text, cut', () => {
    const x = exchangeOf(200, deep());
    expect(recorded(call({ responseText: x.text })).length).toBeLessThan(ENTRY_CHARS);
    const big = exchangeOf(200, `{"choices":[{"message":{"content":"${huge()}"}}]}`);
    expect(recorded(call({ responseText: big.text })).length).toBeLessThan(ENTRY_CHARS);
  });

  it('cuts a server\'s text in a report string to REPORT_LIMITS.string, and a deep or wide value to its limits', () => {
    const b = Boundary.of([]);
    expect(b.text(huge()).length).toBeLessThanOrEqual(REPORT_LIMITS.string + NOTE);
    const deepValue = jsonOf(deep());
    expect(size(b.clean(deepValue))).toBeLessThan(1000);
    expect(size(b.clean(jsonOf(`{${KEYS()}}`), DECLARED_LIMITS))).toBeLessThan(10_000);
  });
});
