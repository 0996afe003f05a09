import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallLog } from '../../src/engine/calls.js';
import { DEFAULT_MAX_BODY_BYTES, HttpClient } from '../../src/http/client.js';
import { STREAM_RECORD_CHARS } from '../../src/engine/exchange.js';
import { MAX_LINE, readSse } from '../../src/wire/sse.js';
import { assembleStream, MAX_KEPT_CHUNK_CHARS, MAX_TEXT } from '../../src/wire/stream.js';

const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const finish = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

/** Writes `total` chunks, waiting for the socket to drain: a long stream that never sits in memory whole. */
function writeChunks(res: ServerResponse, total: number, piece: string, then: string | undefined): void {
  let i = 0;
  const more = () => {
    while (i < total) {
      i++;
      if (!res.write(chunk(piece))) return void res.once('drain', more);
    }
    if (then === undefined) return; // endless: the client's deadline ends it
    res.end(then);
  };
  more();
}

let server: Server;
let base: string;
const open: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    open.push(res);
    switch (req.url) {
      case '/v1/long':
        // 60,000 chunks of 200 characters: about 14 MB, seven times the record cap.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        writeChunks(res, 60_000, 'x'.repeat(200), finish);
        return;
      case '/v1/endless':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        writeChunks(res, 20, 'tick ', undefined);
        return;
      case '/v1/big-json':
        // A 5 MB JSON answer to a stream request: no stream, and more than the cap.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { content: 'y'.repeat(5_000_000) } }] }));
        return;
      default:
        res.writeHead(404);
        res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function stream(path: string, timeoutMs = 20_000) {
  const client = new HttpClient({ baseUrl: base, apiKey: undefined, headers: {}, timeoutMs });
  const log = new CallLog(client, undefined);
  return log.stream({ method: 'POST', path, body: { stream: true, max_tokens: 5 } }, 'test', 'm').finally(() => client.close());
}

describe('a stream read as it arrives', () => {
  it('reads a stream far past the byte cap to its end, judged whole; only the record is cut, and says so', async () => {
    const x = await stream('/long');
    expect(x.ok).toBe(true);
    expect(x.truncated).toBe(false);
    expect(x.bytes).toBeGreaterThan(7 * DEFAULT_MAX_BODY_BYTES);
    expect(x.assembled!.done).toBe(true);
    expect(x.assembled!.chunkCount).toBe(60_001);
    expect(x.assembled!.choices.get(0)!.finishReasons).toEqual(['stop']);
    expect(x.assembled!.contentChunks).toBe(60_000);
    // 12 MB of content: kept up to MAX_TEXT, and that cut said too.
    expect(x.assembled!.choices.get(0)!.content.length).toBe(MAX_TEXT);
    expect(x.assembled!.textCut).toBe(true);
    expect(x.text.length).toBe(STREAM_RECORD_CHARS);
    expect(x.cuts.join(' ')).toMatch(new RegExp(`kept the first ${STREAM_RECORD_CHARS} of the stream's \\d+ characters in its record; all of it was read and judged`));
    // What it holds of the chunks themselves is bounded in size too (60,000 chunks of 200 characters).
    expect(x.assembled!.chunks.length).toBeLessThan(6000);
    expect(x.cuts.join(' ')).toMatch(/chatprobe kept that much of it and read the rest/);
  }, 30_000);

  it('ends an endless stream at the deadline, keeping what arrived for its verdict', async () => {
    const x = await stream('/endless', 400);
    expect(x.transport?.code).toBe('timeout');
    expect(x.status).toBe(200);
    expect(x.assembled!.chunkCount).toBe(20);
    expect(x.assembled!.done).toBe(false);
  });

  it('cuts a JSON answer past the cap as ours: no parse error blamed on the server', async () => {
    const x = await stream('/big-json');
    expect(x.truncated).toBe(true);
    expect(x.parseError).toBe("the body was cut at chatprobe's cap");
    expect(x.sse).toBeUndefined();
  }, 30_000);
});

describe('bounds of the reader and the assembler', () => {
  // 5,000 past the cap ends in the read that passes it; 300,000 past it spans reads after the cap.
  it.each([5000, 300_000])('reads a line %i characters past MAX_LINE up to it, skips the rest, and goes on', (over) => {
    const text = `data: ${'z'.repeat(MAX_LINE + over)}\n\n${chunk('after')}`;
    const bytes = new TextEncoder().encode(text);
    const chunks = [];
    for (let at = 0; at < bytes.length; at += 65_536) chunks.push({ at: 0, bytes: bytes.subarray(at, at + 65_536) });
    const { events, facts } = readSse(chunks);
    expect(facts.overlong).toBe(1);
    expect(events).toHaveLength(2);
    expect(events[0]!.data.length).toBeLessThanOrEqual(MAX_LINE);
    expect(assembleStream(events).choices.get(0)!.content).toBe('after');
  });

  it('keeps parsed chunks up to MAX_KEPT_CHUNK_CHARS of their data, and always the first, however large', () => {
    const big = (n: number) => ({ at: 0, data: JSON.stringify({ choices: [{ index: 0, delta: { content: 'q'.repeat(n) } }] }) });
    const a = assembleStream(Array.from({ length: 200 }, () => big(16_000)));
    expect(a.chunkCount).toBe(200);
    expect(a.chunks.length).toBeLessThanOrEqual(Math.ceil(MAX_KEPT_CHUNK_CHARS / 16_000));
    expect(a.chunks.length).toBeGreaterThan(0);
    const huge = assembleStream([big(MAX_LINE - 100)]);
    expect(huge.chunks).toHaveLength(1);
  });

  it('holds a bounded number of choices whatever indexes a stream sends', () => {
    const events = Array.from({ length: 1000 }, (_, i) => ({ at: i, data: JSON.stringify({ choices: [{ index: i, delta: { content: 'a' } }] }) }));
    expect(assembleStream(events).choices.size).toBe(32);
  });
});
