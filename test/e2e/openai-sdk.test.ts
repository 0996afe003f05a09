import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';

const KEY = 'sk-sdk-test';

/** The official SDK must consume the reference server, streams included: real clients accept it. */
describe('the openai SDK against the reference server', () => {
  let server: ReferenceServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    client = new OpenAI({ baseURL: server.url, apiKey: KEY, maxRetries: 0 });
  });
  afterAll(() => server.close());

  it('lists the models', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['ref-standard', 'ref-reasoning', 'ref-lenient']);
  });

  it('reads a completion, cut at max_tokens', async () => {
    const c = await client.chat.completions.create({
      model: 'ref-standard',
      messages: [{ role: 'user', content: 'Count from 1 to 30, separated by commas.' }],
      max_tokens: 5,
    });
    expect(c.choices[0]!.finish_reason).toBe('length');
    expect(c.choices[0]!.message.content).toBe('1, 2, 3');
    expect(c.usage).toMatchObject({ completion_tokens: 5 });
  });

  it('reads a stream with usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'ref-standard',
      messages: [{ role: 'user', content: 'Count from 1 to 5, separated by commas.' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('1, 2, 3, 4, 5');
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBe(9);
  });

  it('raises the typed errors for a rejected parameter and a bad key', async () => {
    await expect(
      client.chat.completions.create({ model: 'ref-reasoning', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'max_tokens' });
    const bad = new OpenAI({ baseURL: server.url, apiKey: 'wrong', maxRetries: 0 });
    await expect(bad.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
