import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChaosServer, type ChaosServer } from './server.js';

const KEY = 'sk-chaos-selftest-0123456789';
let server: ChaosServer;
const agent = new Agent({ headersTimeout: 5000, bodyTimeout: 5000 });

beforeAll(async () => {
  server = await startChaosServer();
});
afterAll(async () => {
  await server.close();
  await agent.close();
});

interface Chunk {
  choices: { index: number; delta: { role?: string; content?: string | null }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

function chat(model: string, extra: Record<string, unknown> = {}) {
  return request(`${server.url}/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say ok.' }], ...extra }),
  });
}

/** The data fields of an SSE body, in order ([DONE] included). */
function events(text: string): string[] {
  return text
    .split(/\n\n/)
    .map((block) =>
      block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d !== '');
}

/** Deepest nesting of arrays and objects, outside strings. */
function depth(text: string): number {
  let d = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') max = Math.max(max, ++d);
    else if (ch === ']' || ch === '}') d--;
  }
  return max;
}

describe('chaos server', () => {
  it('lists every fault and every hostile id as an OpenAI model list', async () => {
    const res = await request(`${server.url}/models`, { dispatcher: agent, headers: { authorization: `Bearer ${KEY}` } });
    expect(res.statusCode).toBe(200);
    const list = (await res.body.json()) as { object: string; data: { id: string; object: string; created: number; owned_by: string }[] };
    expect(list.object).toBe('list');
    expect(list.data.map((m) => m.id)).toEqual([...server.faults, ...server.hostileIds]);
    for (const m of list.data) expect(m).toMatchObject({ object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
    expect(server.faults).toEqual(expect.arrayContaining(['truncated-json', 'endless-data', 'gzip-bomb', 'key-echo-split', '429-recover']));
    expect(server.hostileIds.some((id) => id.includes('\n::error title=x::injected'))).toBe(true);
    expect(server.hostileIds.some((id) => id.length === 5000)).toBe(true);
    expect(server.received.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models', authorization: `Bearer ${KEY}` });
  });

  it('answers every hostile id with a valid completion that names it', async () => {
    for (const id of server.hostileIds) {
      const res = await chat(id);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const body = (await res.body.json()) as { object: string; model: string; choices: { message: { role: string; content: string }; finish_reason: string }[]; usage: { total_tokens: number } };
      expect(body.object).toBe('chat.completion');
      expect(body.model).toBe(id);
      expect(body.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' });
      expect(body.usage.total_tokens).toBeGreaterThan(0);
    }
    expect(server.received.filter((r) => r.path === '/v1/chat/completions').map((r) => r.model)).toEqual(expect.arrayContaining([...server.hostileIds]));
  });

  it('streams a valid SSE answer for a hostile id, with usage when asked', async () => {
    const id = '<script>alert(1)</script>';
    const res = await chat(id, { stream: true, stream_options: { include_usage: true } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const data = events(await res.body.text());
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('ok');
    expect(chunks.filter((c) => c.choices[0]?.finish_reason === 'stop')).toHaveLength(1);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
    // Without include_usage: no usage chunk.
    const plain = events(await (await chat(id, { stream: true })).body.text());
    expect(plain.some((d) => d.includes('"usage"'))).toBe(false);
  });

  it('truncated-json: a 200 whose JSON body ends half-way', async () => {
    const res = await chat('truncated-json');
    expect(res.statusCode).toBe(200);
    const text = await res.body.text();
    expect(text.startsWith('{"id":')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('done-first: the stream opens with [DONE], then content follows', async () => {
    const data = events(await (await chat('done-first', { stream: true })).body.text());
    expect(data[0]).toBe('[DONE]');
    expect(data.slice(1).some((d) => d.includes('"content":"o"'))).toBe(true);
  });

  it('redirect-other-origin: 307 to the other origin, which undici does not follow', async () => {
    const res = await chat('redirect-other-origin');
    await res.body.dump();
    expect(res.statusCode).toBe(307);
    expect(res.headers.location).toBe(`${server.otherOrigin.url}/v1/chat/completions`);
    expect(new URL(server.otherOrigin.url).origin).not.toBe(new URL(server.url).origin);
    expect(server.otherOrigin.received).toEqual([]);
  });

  it('redirect-loop: a 302 back to the same origin and path', async () => {
    const res = await chat('redirect-loop');
    await res.body.dump();
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.origin).toBe(new URL(server.url).origin);
    expect(location.pathname).toBe('/v1/chat/completions');
    const again = await request(location, { method: 'POST', dispatcher: agent, body: '{}' });
    await again.body.dump();
    expect([again.statusCode, again.headers.location]).toEqual([302, location.href]);
  });

  it('429-storm: every request is a 429 with Retry-After: 0', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await chat('429-storm', { stream: i === 1 });
      await res.body.dump();
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('0');
    }
  });

  it('429-recover: two 429s, then a normal answer', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await chat('429-recover');
      await res.body.dump();
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([429, 429, 200, 200]);
  });

  it('echo-headers: a 400 whose message carries every request header, the Authorization value included', async () => {
    const res = await chat('echo-headers');
    expect(res.statusCode).toBe(400);
    const body = (await res.body.json()) as { error: { message: string } };
    expect(body.error.message).toContain(`Bearer ${KEY}`);
    expect(body.error.message.toLowerCase()).toContain('content-type: application/json');
  });

  it('deep-json: a completion nested more than 100,000 levels deep', async () => {
    const res = await chat('deep-json');
    expect(res.statusCode).toBe(200);
    const text = await res.body.text();
    expect(depth(text)).toBeGreaterThan(100_000);
    expect(text).toContain('"extra":[[[');
  });

  it('key-echo-header: the token in an x-debug response header', async () => {
    const res = await chat('key-echo-header');
    await res.body.dump();
    expect(res.headers['x-debug']).toContain(KEY);
  });

  it('close() returns promptly while an endless-data response is open', async () => {
    const own = await startChaosServer();
    const res = await request(`${own.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'endless-data', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.statusCode).toBe(200);
    // Two chunks in: the endless stream is really flowing.
    const body = res.body[Symbol.asyncIterator]();
    let bytes = 0;
    for (let i = 0; i < 2; i++) bytes += ((await body.next()).value as Buffer).length;
    const reading = (async () => {
      try {
        for (let next = await body.next(); !next.done; next = await body.next()) bytes += (next.value as Buffer).length;
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await reading).toBeInstanceOf(Error); // the connection was cut, not ended cleanly
    expect(bytes).toBeGreaterThan(0);
  });
});
