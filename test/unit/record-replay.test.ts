import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Boundary } from '../../src/boundary/boundary.js';
import { CallLog, WALL_CLOCK, type CallTag, type Transport } from '../../src/engine/calls.js';
import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { LoopLag } from '../../src/engine/lag.js';
import type { HttpRequest, HttpResponse, TransportFailure } from '../../src/http/client.js';
import { resolveOptions, secretsOf } from '../../src/config/options.js';
import { atLineEnds } from '../../src/record/body.js';
import { shapeFill } from '../../src/record/conceal.js';
import { RECORDED_STREAM_BYTES } from '../../src/record/format.js';
import { RunRecord } from '../../src/record/recorder.js';
import { readRecording, Replay, replayOptions } from '../../src/record/replay.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'sk-record-test-key-5f4e3d2c1b';

/** What a stub server answers one request with. */
interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** The body's chunks as they arrive: [ms after the request, text]. */
  chunks?: [number, string | Uint8Array][];
  transport?: TransportFailure;
  /** Our cap: the body is cut there, as the client cuts it. */
  cap?: number;
}

/**
 * A transport that answers as the HTTP client does (a stream fed to its reader as it arrives, a body cut
 * at the cap), from `answer`, asynchronously and in the order given by `delay` (ms) when one is set.
 */
function stub(answer: (req: HttpRequest, tag: CallTag, n: number) => Answer & { delay?: number }): Transport & { sent: CallTag[] } {
  const sent: CallTag[] = [];
  return {
    sent,
    send(req, tag) {
      sent.push(tag);
      const a = answer(req, tag, sent.length);
      const res: HttpResponse = { status: a.status, headers: a.headers ?? {}, chunks: [], bytes: 0, truncated: false, cap: a.cap ?? 1 << 20, durationMs: 0, startedAt: 1000 + sent.length, sentBody: req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body)) };
      if (a.transport) res.transport = a.transport;
      const chunks = (a.chunks ?? []).map(([at, data]) => ({ at, bytes: typeof data === 'string' ? Buffer.from(data) : data }));
      const sunk = req.sink && a.status !== undefined ? req.sink.start(a.status, res.headers) : false;
      for (const c of chunks) {
        if (sunk) req.sink!.push(c.bytes, c.at);
        else {
          const room = res.cap - res.bytes;
          if (c.bytes.length > room) {
            res.chunks.push({ at: c.at, bytes: c.bytes.subarray(0, room) });
            res.bytes = res.cap;
            res.truncated = true;
            break;
          }
          res.chunks.push(c);
        }
        res.bytes += c.bytes.length;
      }
      res.durationMs = chunks.at(-1)?.at ?? 1;
      if (sunk) {
        req.sink!.end(res.durationMs);
        res.sunk = true;
      }
      return new Promise((resolve) => setTimeout(() => resolve(res), a.delay ?? 0));
    },
    prepare: () => ({ headers: {}, payload: undefined }),
    url: (path) => path,
    close: async () => {},
  };
}

const options = (extra: Record<string, unknown> = {}, key = KEY) => resolveOptions({ baseUrl: 'http://127.0.0.1:1/v1', ...extra }, { OPENAI_API_KEY: key });

/** Runs `calls` against `transport` with a record kept; returns what they got and the record's path. */
async function recorded<T>(transport: Transport, calls: (log: CallLog) => Promise<T>, extra: Record<string, unknown> = {}, key = KEY): Promise<{ got: T; path: string; text: string }> {
  const dir = await tempDir();
  const path = join(dir, 'record.jsonl.gz');
  const o = options(extra, key);
  const boundary = Boundary.of(secretsOf(o));
  const record = new RunRecord(path, boundary, o, secretsOf(o));
  const log = new CallLog(transport, undefined, { retries: o.retries, rpm: undefined });
  log.recorder = record;
  log.clock = record.clock(WALL_CLOCK);
  const got = await calls(log);
  record.finish({ startedAt: 'a', finishedAt: 'b', durationMs: 1 });
  record.commit();
  return { got, path, text: gunzipSync(readFileSync(path)).toString('utf8') };
}

/** The same calls, answered from the record. */
async function replayed<T>(path: string, calls: (log: CallLog) => Promise<T>): Promise<{ got: T; replay: Replay }> {
  const recording = await readRecording(path);
  const replay = new Replay(recording, replayOptions(recording));
  const log = new CallLog(replay, undefined, { retries: recording.head.options.retries, rpm: undefined });
  log.clock = replay.clock;
  const got = await calls(log);
  await replay.close();
  return { got, replay };
}

/** What a judgement reads of an exchange: everything but when it was read. */
const seen = (x: Exchange) => ({ id: x.callId, attempts: x.attempts, status: x.status, text: x.text, json: x.json, truncated: x.truncated, bytes: x.bytes, transport: x.transport, cause: x.cause, startedAt: x.startedAt, durationMs: x.durationMs });

const chat = (content: string) => ({ method: 'POST' as const, path: '/chat/completions', body: { model: 'm', messages: [{ role: 'user', content }], max_tokens: 5 } });
const json = (value: unknown): Answer => ({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [[3, JSON.stringify(value)]] });

describe('the run record and its replay', () => {
  it('gives each probe its own answer to the same request, whatever order the replay asks in', async () => {
    // Two probes send one request; the server answers each differently (a sampled answer).
    const live = stub((_req, tag) => json({ answer: tag.probe }));
    const run = await recorded(live, (log) => Promise.all([log.send(chat('same'), 'p.a', 'm'), log.send(chat('same'), 'p.b', 'm')]));
    expect(run.got.map((x) => (x.json as { answer: string }).answer)).toEqual(['p.a', 'p.b']);
    // Asked the other way round: b first.
    const again = await replayed(run.path, async (log) => {
      const b = await log.send(chat('same'), 'p.b', 'm');
      const a = await log.send(chat('same'), 'p.a', 'm');
      return [a, b];
    });
    expect(again.got.map(seen)).toEqual(run.got.map(seen));
    expect(again.replay.summary()).toMatchObject({ unrecorded: [], notAsked: 0 });
  });

  it('gives a probe its identical requests’ answers in the order it sent them, and a retry its own', async () => {
    // The first try is rate limited and retried (Retry-After 0); a second identical request of the same
    // probe goes while the first waits: it must not take the retry's answer, nor the retry its.
    const live = stub((_req, _tag, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '0', 'content-type': 'application/json' }, chunks: [[1, '{"error":{"message":"slow down","type":"rate_limit"}}']] } : json({ n })));
    const calls = (log: CallLog) => Promise.all([log.send(chat('x'), 'p', 'm'), log.send(chat('x'), 'p', 'm')]);
    const run = await recorded(live, calls);
    expect(run.got[0]!.attempts).toHaveLength(2);
    const again = await replayed(run.path, calls);
    expect(again.got.map(seen)).toEqual(run.got.map(seen));
    expect(again.replay.summary()).toMatchObject({ unrecorded: [], notAsked: 0, outOfOrder: 0 });
  });

  it('answers in the order the run got its answers, so what follows that order is decided as it was', async () => {
    // Sent a then b; b answered first. A replay delivers b's answer first too.
    const live = stub((req) => ({ ...json({}), delay: JSON.stringify(req.body).includes('"a"') ? 30 : 0 }));
    const order: string[] = [];
    const calls = (log: CallLog) => Promise.all(['a', 'b'].map((c) => log.send(chat(c), 'p', 'm').then(() => order.push(c))));
    await recorded(live, calls).then(async (run) => {
      expect(order).toEqual(['b', 'a']);
      order.length = 0;
      await replayed(run.path, calls);
      expect(order).toEqual(['b', 'a']);
    });
  });

  it('replays a transport failure, a body cut at our cap, and an error body, as the client read them', async () => {
    const live = stub((req) => {
      const what = (req.body as { messages: { content: string }[] }).messages[0]!.content;
      if (what === 'timeout') return { transport: { code: 'timeout', kind: 'headers-timeout', message: 'no complete answer within --timeout' } };
      if (what === 'huge') return { status: 200, headers: { 'content-type': 'application/json' }, chunks: [[2, 'x'.repeat(300)], [5, 'y'.repeat(300)]], cap: 400 };
      return { status: 400, headers: { 'content-type': 'application/json' }, chunks: [[1, '{"error":{"message":"bad","type":"invalid_request_error"}}']] };
    });
    const calls = (log: CallLog) => Promise.all(['timeout', 'huge', 'bad'].map((c) => log.send(chat(c), 'p', 'm')));
    const run = await recorded(live, calls);
    expect(run.got.map((x) => [x.transport?.kind, x.truncated, x.status])).toEqual([
      ['headers-timeout', false, undefined],
      [undefined, true, 200],
      [undefined, false, 400],
    ]);
    const again = await replayed(run.path, calls);
    expect(again.got.map(seen)).toEqual(run.got.map(seen));
  });

  it('keeps a body cut at our 2 MiB cap as the client read it (what the error reader reads: all of it)', async () => {
    // A refusal padded past the cap: the error's message is read from the whole text, its padding trimmed.
    const body = `{"error":{"message":"no €","type":"invalid_request_error"}}${' '.repeat(3 * 1024 * 1024)}`;
    const live = stub(() => ({ status: 400, headers: { 'content-type': 'application/json' }, chunks: [[4, body.slice(0, 1_000_000)], [9, body.slice(1_000_000)]], cap: 2 * 1024 * 1024 }));
    const run = await recorded(live, (log) => log.send(chat('cut'), 'p', 'm'));
    expect(run.got.truncated).toBe(true);
    const again = await replayed(run.path, (log) => log.send(chat('cut'), 'p', 'm'));
    expect({ ...seen(again.got), cuts: again.got.cuts, message: again.got.errorMessage }).toEqual({ ...seen(run.got), cuts: run.got.cuts, message: run.got.errorMessage });
  });

  it('refuses a file that is not a record, in its own words', async () => {
    const dir = await tempDir();
    const path = join(dir, 'record.jsonl.gz');
    writeFileSync(path, 'not gzip at all');
    await expect(readRecording(path)).rejects.toThrow(/is not a chatprobe run record/);
    writeFileSync(path, gzipSync('{"record":"chatprobe-run","format":99}\n'));
    await expect(readRecording(path)).rejects.toThrow(/format 99; this chatprobe reads format 1/);
  });

  it('keeps a body that is not UTF-8 byte for byte', async () => {
    const bytes = Uint8Array.from([0x7b, 0xff, 0xfe, 0x22, 0xc3, 0x28, 0x7d]);
    const live = stub(() => ({ status: 500, headers: { 'content-type': 'application/octet-stream' }, chunks: [[1, bytes.subarray(0, 3)], [2, bytes.subarray(3)]] }));
    const run = await recorded(live, (log) => log.send(chat('binary'), 'p', 'm'));
    expect(run.text).toContain('"raw":');
    const again = await replayed(run.path, (log) => log.send(chat('binary'), 'p', 'm'));
    expect(seen(again.got)).toEqual(seen(run.got));
  });

  it('feeds a stream to its reader with each chunk’s time: the events and their times are the run’s', async () => {
    // Lines split across chunks, a CRLF pair split, a UTF-8 character split between two reads.
    const euro = Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"€"}}]}\r\n\r\n');
    const cut = euro.indexOf(0xe2) + 1;
    const stream: [number, string | Uint8Array][] = [
      [5, 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"He"}}]}\n\ndata: {"choi'],
      [40, 'ces":[{"index":0,"delta":{"content":"llo"}}]}\r'],
      [41, '\n\r\n'],
      [80, euro.subarray(0, cut)],
      [81, euro.subarray(cut)],
      [120, 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'],
    ];
    const live = stub(() => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: stream }));
    const calls = (log: CallLog) => log.stream({ ...chat('s'), body: { ...chat('s').body, stream: true } }, 'p', 'm');
    const run = await recorded(live, calls);
    const again = await replayed(run.path, calls);
    const read = (x: StreamExchange) => ({ text: x.assembled?.choices.get(0)?.content, times: x.assembled?.contentTimes, ttft: x.ttftMs, gaps: x.gapsMs, facts: x.sse?.facts, events: x.sse?.eventCount });
    expect(read(run.got).text).toBe('Hello€');
    expect(read(run.got).times).toEqual([5, 41, 81]);
    expect(read(again.got)).toEqual(read(run.got));
  });

  it('keeps a stream past RECORDED_STREAM_BYTES in part and says so', async () => {
    const line = `data: {"choices":[{"index":0,"delta":{"content":"${'z'.repeat(1000)}"}}]}\n\n`;
    const chunks: [number, string][] = Array.from({ length: Math.ceil(RECORDED_STREAM_BYTES / line.length) + 10 }, (_, i) => [i, line]);
    const live = stub(() => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, chunks }));
    const calls = (log: CallLog) => log.stream(chat('long'), 'p', 'm');
    const run = await recorded(live, calls);
    const again = await replayed(run.path, calls);
    expect(again.replay.summary().partial).toEqual([run.got.callId]);
    expect(again.got.bytes).toBe(run.got.bytes);
  });

  it('holds no secret: an echoed key (whole, across chunks, a few characters a delta, in a header) is its stand-in of the same shape', async () => {
    const half = KEY.length >> 1;
    const delta = (s: string) => `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(s)}}}]}\n\n`;
    const live = stub((req): Answer =>
      req.path === '/models'
        ? { status: 200, headers: { 'content-type': 'application/json', 'x-echo': `Bearer ${KEY}`, authorization: KEY }, chunks: [[1, `{"data":[{"id":"m ${KEY.slice(0, half)}`], [2, `${KEY.slice(half)}"}]}`]] }
        : { status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: [[1, delta(`key ${KEY.slice(0, 4)}`) + delta(KEY.slice(4, 9))], [2, delta(KEY.slice(9)) + 'data: [DONE]\n\n']] },
    );
    const calls = (log: CallLog) => Promise.all([log.send({ method: 'GET', path: '/models' }, 'discovery', undefined), log.stream(chat('echo'), 'p', 'm')]);
    const run = await recorded(live, calls);
    for (let i = 0; i + 8 <= KEY.length; i++) expect(run.text).not.toContain(KEY.slice(i, i + 8));
    const standIn = JSON.parse(run.text.split('\n')[0]!).standIns[0] as string;
    expect(standIn).toHaveLength(KEY.length);
    expect(standIn.replace(/[a-z]/g, 'a').replace(/\d/g, '0')).toBe(KEY.replace(/[a-z]/g, 'a').replace(/\d/g, '0'));
    // Replayed, the texts are the stand-in where the key was, every length and piece as it was.
    const again = await replayed(run.path, calls);
    const [list, stream] = again.got;
    expect(list.text).toBe(run.got[0].text.replace(KEY, standIn));
    expect(list.headers['x-echo']).toBe(`Bearer ${standIn}`);
    expect(list.headers.authorization).toBe('[REDACTED]');
    expect(stream.assembled?.choices.get(0)?.content).toBe(`key ${standIn}`);
    expect(stream.assembled?.choices.get(0)?.content?.length).toBe(run.got[1].assembled?.choices.get(0)?.content?.length);
    // A judgement's output from the replay (a quote of the answer), through a boundary that knows the
    // stand-in, reads as the run's through the boundary that knew the key.
    const quote = (x: StreamExchange) => `got "${x.assembled?.choices.get(0)?.content.slice(0, 20)}..."`;
    expect(Boundary.of([standIn]).redact(quote(stream))).toBe(Boundary.of([KEY]).redact(quote(run.got[1])));
    expect(Boundary.of([KEY]).redact(quote(run.got[1]))).toBe('got "key [REDACTED]..."');
  });

  it('fills an echo no stand-in fits (the key JSON-escaped) with random characters of its shape, and says the answer is altered', async () => {
    const escaped = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const live = stub(() => ({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [[1, `{"choices":[{"message":{"content":"${escaped}"}}]}`]] }));
    const run = await recorded(live, (log) => log.send(chat('escaped'), 'p', 'm'));
    expect(JSON.stringify((run.got.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content)).toBe(JSON.stringify(KEY));
    expect(run.text).not.toContain(escaped.slice(0, 48));
    const again = await replayed(run.path, (log) => log.send(chat('escaped'), 'p', 'm'));
    // Still JSON, of the same length, the escapes still escapes: what a judgement parses is there to parse.
    expect(again.got.text).toHaveLength(run.got.text.length);
    const content = (again.got.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    expect(content).toHaveLength(KEY.length);
    expect(content.toLowerCase()).not.toContain(KEY.slice(0, 8));
    expect(again.replay.summary().partial).toEqual([run.got.callId]);
  });

  it('keeps a JSON number that happens to read as a secret backwards a number, the stand-in’s digits backwards (llama.cpp’s timings: 65.69 ms / 81 tokens)', async () => {
    // A key that ends in 0123456789 (the real suite's); 65.69 / 81 = 0.8109876543209876… holds 98765432.
    const key = 'sk-real-judge-test-0123456789';
    const body = `{"choices":[{"message":{"content":"hi"}}],"timings":{"prompt_n":81,"prompt_per_token_ms":${65.69 / 81}}}`;
    expect(Boundary.of([key]).secretSpans(body).length).toBeGreaterThan(0);
    const live = stub(() => ({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [[1, body]] }));
    const run = await recorded(live, (log) => log.send(chat('timings'), 'p', 'm'), {}, key);
    const standIn = JSON.parse(run.text.split('\n')[0]!).standIns[0] as string;
    const again = await replayed(run.path, (log) => log.send(chat('timings'), 'p', 'm'));
    const timings = (again.got.json as { timings: { prompt_per_token_ms: number } }).timings;
    expect(typeof timings.prompt_per_token_ms).toBe('number');
    expect(String(timings.prompt_per_token_ms)).not.toContain('98765432');
    expect(String(timings.prompt_per_token_ms)).toContain([...standIn.slice(-8)].reverse().join('').slice(0, 6));
    // A stand-in's swap, not an alteration: the judgement reads the same JSON, and judge has nothing to say.
    expect(again.replay.summary().partial).toEqual([]);
  });

  it('says which requests it has no answer for, and which recorded calls were not asked for', async () => {
    const run = await recorded(stub(() => json({})), (log) => log.send(chat('old rule'), 'p', 'm'));
    const again = await replayed(run.path, (log) => log.send(chat('new rule'), 'p', 'm'));
    expect(again.got.transport).toMatchObject({ code: 'network', message: expect.stringContaining('not in the run record') });
    expect(again.replay.summary()).toMatchObject({ unrecorded: [{ probe: 'p', model: 'm', id: again.got.callId }], notAsked: 1 });
  });

  it('answers the lag a judgement asked about as it was, and another window from the late ticks', async () => {
    const dir = await tempDir();
    const o = options();
    const record = new RunRecord(join(dir, 'r.jsonl.gz'), Boundary.of([]), o, []);
    const lag = new LoopLag();
    const watched = record.watch(lag);
    // A tick 40 ms late at 1000 (covering 950…1000), one on time at 1010.
    lag.tick(900);
    lag.tick(1000);
    lag.tick(1010);
    expect(watched.worst(990, 995)).toBe(90);
    watched.stop();
    record.finish({ startedAt: 'a', finishedAt: 'b', durationMs: 1 });
    record.commit();
    const recording = await readRecording(join(dir, 'r.jsonl.gz'));
    const replay = new Replay(recording, replayOptions(recording));
    expect(replay.lag.worst(990, 995)).toBe(90);
    expect(replay.summary().lagFromTicks).toBe(0);
    expect(replay.lag.worst(1005, 1006)).toBe(0);
    expect(replay.lag.worst(960, 961)).toBe(90);
    expect(replay.summary().lagFromTicks).toBe(2);
    await replay.close();
  });
});

describe('a stream’s chunks cut at line ends', () => {
  it('moves the part of a chunk after its last line break to the next, and keeps a CR that ends one', () => {
    const chunks = [
      [1, 'data: a\n\nda'],
      [2, 'ta: b'],
      [3, '\n\r'],
      [4, '\ndata: c'],
    ].map(([at, s]) => ({ at: at as number, bytes: Buffer.from(s as string) }));
    expect(atLineEnds(chunks).map((c) => [c.at, c.bytes.toString()])).toEqual([
      [1, 'data: a\n\n'],
      [3, 'data: b\n\r'],
      [4, '\ndata: c'],
    ]);
  });
});

describe('a fill of the shape of what it hides', () => {
  it('keeps the syntax: digits stay digits, hex letters hex letters, an escape’s letter and a number’s exponent stay', () => {
    for (let i = 0; i < 50; i++) {
      const text = 'x 1.5e-7 \\u00e9ab k';
      const found = text.slice(2, 17);
      const fill = shapeFill(found, text, 2);
      expect(fill).toHaveLength(found.length);
      expect(fill).toMatch(/^\d\.\de-\d \\u\d\d[a-f]\d[a-f][a-f]$/);
      expect(fill).not.toBe(found);
      expect(JSON.parse(`[${fill.slice(0, 6)}, "${fill.slice(7)}"]`)).toHaveLength(2);
    }
    expect(shapeFill('Zq9', 'Zq9', 0)).toMatch(/^[G-Z][g-z]\d$/);
  });
});
