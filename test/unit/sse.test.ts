import { describe, expect, it } from 'vitest';
import { readSse } from '../../src/wire/sse.js';
import { assembleStream, MAX_KEPT_CHUNK_CHARS, MAX_KEPT_CHUNKS } from '../../src/wire/stream.js';
import type { BodyChunk } from '../../src/http/client.js';

const enc = new TextEncoder();
const whole = (text: string): BodyChunk[] => [{ at: 1, bytes: enc.encode(text) }];
const byteByByte = (text: string): BodyChunk[] => [...enc.encode(text)].map((b, i) => ({ at: i, bytes: Uint8Array.of(b) }));
const strip = (r: ReturnType<typeof readSse>) => ({ events: r.events.map(({ at: _at, ...e }) => e), facts: r.facts });

const SAMPLES: Record<string, string> = {
  plain: 'data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n',
  crlf: 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n',
  bareCr: 'data: {"a":1}\r\rdata: [DONE]\r\r',
  comments: ': OPENROUTER PROCESSING\n\n: PING\ndata:{"a":"é漢字🙂"}\n\ndata: [DONE]\n\n',
  fields: 'event: message\nid: 7\nretry: 100\ndata: {"a":1}\n\n',
  singleNewline: 'data: {"a":1}\ndata: {"a":2}\n\n',
  unterminated: 'data: {"a":1}\n\ndata: {"a":2}',
  stray: 'hello world\ndata: {"a":1}\n\n',
  bom: '\uFEFFdata: {"a":1}\n\n',
  long: `data: {"a":"${'x'.repeat(100_000)}"}\n\n`,
};

describe('SseReader', () => {
  it.each(Object.keys(SAMPLES))('parses %s the same whether delivered whole or one byte per read', (name) => {
    const text = SAMPLES[name]!;
    expect(strip(readSse(byteByByte(text)))).toEqual(strip(readSse(whole(text))));
  });

  it('decodes bad UTF-8 as a browser does (TextDecoder), however the bytes are split across reads', () => {
    // A lone continuation byte, a cut sequence, an overlong form, a surrogate and a byte past U+10FFFF.
    const bad = [[0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff], [0xf0, 0x9f, 0x99, 0x82]];
    const body = [...enc.encode('data: {"a":"'), ...bad.flat(), ...enc.encode('x"}\n\n')];
    const expected = `{"a":"${new TextDecoder().decode(Uint8Array.from(bad.flat()))}x"}`;
    expect(expected).toContain('\uFFFD');
    for (let step = 1; step <= 5; step++) {
      const chunks: BodyChunk[] = [];
      for (let i = 0; i < body.length; i += step) chunks.push({ at: i, bytes: Uint8Array.from(body.slice(i, i + step)) });
      expect(readSse(chunks).events.map((e) => e.data), `${step} bytes a read`).toEqual([expected]);
    }
  });

  it('reads plain events and [DONE]', () => {
    const { events, facts } = readSse(whole(SAMPLES.plain!));
    expect(events.map((e) => e.data)).toEqual(['{"a":1}', '{"a":2}', '[DONE]']);
    expect(facts).toMatchObject({ crlf: false, bareCr: false, commentCount: 0, multiLineData: 0, unterminatedTail: false });
  });

  it('records CRLF and bare CR as facts and still splits events', () => {
    expect(readSse(whole(SAMPLES.crlf!)).events.map((e) => e.data)).toEqual(['{"a":1}', '[DONE]']);
    expect(readSse(byteByByte(SAMPLES.crlf!)).facts.crlf).toBe(true);
    const cr = readSse(whole(SAMPLES.bareCr!));
    expect(cr.events.map((e) => e.data)).toEqual(['{"a":1}', '[DONE]']);
    expect(cr.facts.bareCr).toBe(true);
  });

  it('keeps comments apart from data, and multi-byte text intact across reads', () => {
    const { events, facts } = readSse(byteByByte(SAMPLES.comments!));
    expect(events.map((e) => e.data)).toEqual(['{"a":"é漢字🙂"}', '[DONE]']);
    expect(facts.commentCount).toBe(2);
    expect(facts.comments).toEqual([': OPENROUTER PROCESSING', ': PING']);
    expect(facts.dataWithoutSpace).toBe(true);
  });

  it('records event, id and retry fields', () => {
    const { events, facts } = readSse(whole(SAMPLES.fields!));
    expect(events).toEqual([{ data: '{"a":1}', event: 'message', id: '7', at: 1 }]);
    expect(facts.otherFields).toEqual(['event', 'id', 'retry']);
  });

  it('sees events separated by a single newline as one multi-line event', () => {
    const { events, facts } = readSse(whole(SAMPLES.singleNewline!));
    expect(events).toHaveLength(1);
    expect(facts.multiLineData).toBe(1);
  });

  it('dispatches an unterminated last event and says so', () => {
    const { events, facts } = readSse(whole(SAMPLES.unterminated!));
    expect(events.map((e) => e.data)).toEqual(['{"a":1}', '{"a":2}']);
    expect(facts.unterminatedTail).toBe(true);
  });

  it('records stray lines and a byte-order mark', () => {
    expect(readSse(whole(SAMPLES.stray!)).facts.strayLines).toEqual(['hello world']);
    const bom = readSse(whole(SAMPLES.bom!));
    expect(bom.facts.bom).toBe(true);
    expect(bom.events[0]!.data).toBe('{"a":1}');
  });

  it('stamps each event with the arrival time of its closing blank line', () => {
    const chunks: BodyChunk[] = [
      { at: 5, bytes: enc.encode('data: 1\n') },
      { at: 9, bytes: enc.encode('\ndata: 2\n\n') },
    ];
    expect(readSse(chunks).events.map((e) => e.at)).toEqual([9, 9]);
  });
});

describe('assembleStream', () => {
  const ev = (data: string, at = 1) => ({ data, at });
  const chunk = (content: string, id = 'c1') => JSON.stringify({ id, choices: [{ index: 0, delta: { content }, finish_reason: null }] });

  it('reads as a client does: nothing after [DONE], which is counted', () => {
    const first = assembleStream([ev('[DONE]'), ev(chunk('lost')), ev('[DONE]')]);
    expect(first).toMatchObject({ done: true, chunkCount: 0, afterDone: 2 });
    expect(first.choices.size).toBe(0);
    const normal = assembleStream([ev(chunk('a')), ev(chunk('b')), ev('[DONE]'), ev(chunk('late'))]);
    expect(normal.choices.get(0)!.content).toBe('ab');
    expect(normal).toMatchObject({ chunkCount: 2, afterDone: 1 });
  });

  it('bounds what a hostile stream makes it keep: chunks, distinct ids, choices per chunk', () => {
    const events = Array.from({ length: 20_000 }, (_, i) => ev(chunk('x', `id-${i}`)));
    const wide = JSON.stringify({ id: 'w', choices: Array.from({ length: 100_000 }, (_, i) => ({ index: i, delta: { content: 'y' } })) });
    const s = assembleStream([...events, ev(wide)]);
    expect(s.chunkCount).toBe(20_001);
    // Kept up to MAX_KEPT_CHUNKS chunks or MAX_KEPT_CHUNK_CHARS of their data, whichever comes first.
    const [small, large] = [ev(chunk('x', 'id-0')).data.length, ev(chunk('x', 'id-19999')).data.length];
    expect(s.chunks.length).toBeLessThanOrEqual(Math.min(MAX_KEPT_CHUNKS, Math.floor(MAX_KEPT_CHUNK_CHARS / small)));
    expect(s.chunks.length).toBeGreaterThanOrEqual(Math.min(MAX_KEPT_CHUNKS, Math.floor(MAX_KEPT_CHUNK_CHARS / large)));
    expect(s.idCount).toBe(10_000);
    expect(s.ids.length).toBeLessThanOrEqual(8);
    expect(s.choices.size).toBeLessThanOrEqual(32);
  });
});
