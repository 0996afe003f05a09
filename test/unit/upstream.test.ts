import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markerOf } from '../../src/passthrough/cases.js';
import { NOT_RECORDED, startUpstream, type Upstream } from '../../src/passthrough/upstream.js';

describe('chatprobe upstream', () => {
  let up: Upstream;
  beforeAll(async () => {
    up = await startUpstream({ models: ['pt-model'] });
  });
  afterAll(() => up.close());

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await request(`${up.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
  };
  const records = async (run: string) => ((await (await request(`${up.url}/_chatprobe/records?run=${run}`)).body.json()) as { records: { case: string; body: string; headers: [string, string][] }[] }).records;

  it('files a marked request under its run and case, credentials not recorded, and answers as the case scripts', async () => {
    const marker = markerOf('00112233aa', 'response_error_fastapi');
    const answer = await post({ model: 'pt-model', messages: [{ role: 'user', content: marker }] }, { authorization: 'Bearer sk-channel-7Yt2', 'x-api-key': 'k-9q', 'x-custom-authorization': 'c-8w', 'x-forwarded-for': '10.1.2.3' });
    expect(answer.status).toBe(422);
    expect(answer.json).toHaveProperty('detail');
    const [r] = await records('00112233aa');
    expect(r!.case).toBe('response_error_fastapi');
    expect(JSON.parse(r!.body).messages[0].content).toBe(marker);
    const headers = new Map(r!.headers);
    expect(headers.get('authorization')).toBe(NOT_RECORDED);
    expect(headers.get('x-api-key')).toBe(NOT_RECORDED);
    // Values are kept only for headers that carry no credential by their nature: any other name, by name.
    expect(headers.get('x-custom-authorization')).toBe(NOT_RECORDED);
    expect(headers.get('x-forwarded-for')).toBe('10.1.2.3');
    for (const s of ['sk-channel', 'k-9q', 'c-8w']) expect(JSON.stringify(up.records)).not.toContain(s);
    // Another run's records are not served.
    expect(await records('ffffffffff')).toEqual([]);
  });

  it('reads a body the gateway compressed (gzip, deflate, br) as the body it carries, and keeps one it cannot read as it came', async () => {
    const body = (c: string) => JSON.stringify({ model: 'pt-model', messages: [{ role: 'user', content: markerOf('44556677bb', c) }] });
    const encoded: [string, (b: Buffer) => Buffer, string][] = [
      ['gzip', gzipSync, 'response_error_fastapi'],
      ['deflate', deflateSync, 'response_error_openai'],
      ['br', brotliCompressSync, 'response_usage'],
      // Raw DEFLATE under "deflate", as some servers send it.
      ['deflate', deflateRawSync, 'response_usage'],
    ];
    for (const [encoding, encode, c] of encoded) {
      const res = await request(`${up.url}/v1/chat/completions`, { method: 'POST', body: encode(Buffer.from(body(c))), headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
      await res.body.text();
      expect(res.statusCode, encoding).toBe(c === 'response_usage' ? 200 : c === 'response_error_fastapi' ? 422 : 400);
    }
    const filed = await records('44556677bb');
    expect(filed.map((r) => r.case)).toEqual(encoded.map(([, , c]) => c));
    expect(filed.map((r) => JSON.parse(r.body).model)).toEqual(['pt-model', 'pt-model', 'pt-model', 'pt-model']);
    expect(new Map(filed[0]!.headers).get('content-encoding')).toBe('gzip');
    // Said to be gzip, but plain: recorded (and its marker read) as it came.
    const plain = await request(`${up.url}/v1/chat/completions`, { method: 'POST', body: body('response_usage').replace('44556677bb', '8899aabbcc'), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    await plain.body.text();
    expect((await records('8899aabbcc')).map((r) => r.case)).toEqual(['response_usage']);
  });

  it('answers a request as it arrived: a stream ends with a usage chunk only when the request it received asks for usage', async () => {
    const stream = async (c: string, extra: Record<string, unknown>) => {
      const res = await request(`${up.url}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'pt-model', messages: [{ role: 'user', content: markerOf('0a0b0c0d0e', c) }], stream: true, ...extra }),
        headers: { 'content-type': 'application/json' },
      });
      return { type: res.headers['content-type'], text: await res.body.text() };
    };
    const asked = await stream('stream_usage_unasked', { stream_options: { include_usage: true } });
    expect(asked.type).toBe('text/event-stream');
    expect(asked.text).toContain('"choices":[],"usage":{"prompt_tokens":9');
    const unasked = await stream('stream_usage_unasked', {});
    expect(unasked.text).not.toContain('"usage"');
    expect(unasked.text.endsWith('data: [DONE]\n\n')).toBe(true);
    // A case the upstream does not know gets the short default stream, usage as asked too.
    expect((await stream('no_such_case', { stream_options: { include_usage: true } })).text).toContain('"usage"');
  });

  it('keeps no body of a request without a marker (someone else’s, misrouted), and answers it plainly', async () => {
    const before = up.records.length;
    const answer = await post({ model: 'pt-model', messages: [{ role: 'user', content: 'a private prompt' }] });
    expect(answer.status).toBe(200);
    expect(up.records.length).toBe(before + 1);
    expect(up.records.at(-1)).toMatchObject({ run: undefined, body: '' });
    expect(up.records.at(-1)!.headers.every(([, v]) => v === NOT_RECORDED)).toBe(true);
  });
});
