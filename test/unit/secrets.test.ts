import { describe, expect, it } from 'vitest';
import { Boundary } from '../../src/boundary/boundary.js';
import { createRedactor, FRAGMENT_LENGTH, headerSecrets, isCredentialHeader, REDACTED } from '../../src/boundary/secrets.js';
import { redactStreamPieces } from '../../src/boundary/stream-pieces.js';
import { HarWriter, recordCalls, type RecordedCall } from '../../src/report/har.js';
import { ownVocabulary } from '../../src/report/vocabulary.js';
import { renderJson } from '../../src/report/writers/json.js';
import { renderJunit } from '../../src/report/writers/junit.js';
import { PAGE_JS } from '../../src/report/writers/html-page.js';
import { junitProblems } from '../helpers/junit.js';
import { sampleReport } from '../helpers/report.js';
import { tempDir } from '../helpers/tmp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY = 'sk-chaos-Zq8Wm3Xv7Tn2Rb5Kp9Lc4Hd6';
const redactor = createRedactor([{ value: KEY, label: '$OPENAI_API_KEY' }]);

/** Runs of FRAGMENT_LENGTH characters of the key in `text`, read with whitespace and invisibles dropped too. */
function fragments(text: string): string[] {
  const bare = text.replace(/[\s\p{Default_Ignorable_Code_Point}\p{Cf}]/gu, '');
  const found: string[] = [];
  for (let i = 0; i + FRAGMENT_LENGTH <= KEY.length; i++) if (bare.includes(KEY.slice(i, i + FRAGMENT_LENGTH))) found.push(KEY.slice(i, i + FRAGMENT_LENGTH));
  return found;
}

describe('the key in the forms a server can echo it', () => {
  const pct = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
  it.each([
    ['base64', Buffer.from(KEY).toString('base64')],
    ['base64url', Buffer.from(KEY).toString('base64url')],
    ['hex', Buffer.from(KEY).toString('hex')],
    ['HEX', Buffer.from(KEY).toString('hex').toUpperCase()],
    ['reversed', [...KEY].reverse().join('')],
    ['percent-encoded twice', encodeURIComponent(pct(KEY))],
    ['space-split', [...KEY].join(' ')],
    ['split over lines', `${KEY.slice(0, 6)}\n${KEY.slice(6, 13)}\r\n${KEY.slice(13)}`],
    ['JSON-escaped line breaks', JSON.stringify(`${KEY.slice(0, 7)}\n${KEY.slice(7)}`).slice(1, -1)],
    ['tag characters', [...KEY].join('\u{E0020}')],
    ['Hangul filler', [...KEY].join('\u3164')],
    ['halfwidth Hangul filler', [...KEY].join('\uFFA0')],
    ['musical format characters', [...KEY].join('\u{1D173}')],
  ])('%s: one marker in its place', (_, form) => {
    expect(redactor.redact(`before ${form} after`)).toBe(`before ${REDACTED} after`);
  });

  it.each(['u', 'us', 'use'])('HTTP Basic (user %j): the credentials cut out, the user name’s few characters kept', (user) => {
    const basic = `Authorization: Basic ${Buffer.from(`${user}:${KEY}`).toString('base64')}`;
    const out = redactor.redact(basic);
    expect(out).toMatch(new RegExp(`^Authorization: Basic [A-Za-z0-9+/]{0,8}\\[REDACTED\\][A-Za-z0-9+/=]{0,3}$`));
  });

  it('leaves texts that only look alike: words side by side, other base64 and hex', () => {
    const text = `sk chaos is a word pair; ${Buffer.from('another secret entirely, nothing alike').toString('base64')} ${'0123456789abcdef'.repeat(4)}`;
    expect(redactor.redact(text)).toBe(text);
  });
});

describe('keys that are short or common words', () => {
  const vocabulary = ownVocabulary();

  it.each(['function', 'testcase', 'script', 'x'])('%j is refused as a needle, said why, and removed only where it stands whole as a credential', (key) => {
    const b = Boundary.of([{ value: key, label: '$OPENAI_API_KEY' }], { vocabulary });
    expect(b.refused).toEqual([{ label: '$OPENAI_API_KEY', why: key.length < 8 ? 'short' : 'common' }]);
    expect(b.redact(`authorization: Bearer ${key}`)).toBe(`authorization: Bearer ${REDACTED}`);
    expect(b.redact(`{"api_key": "${key}", "x_token":"${key}"} ?key=${key}&b=1`)).toBe(`{"api_key": "${REDACTED}", "x_token":"${REDACTED}"} ?key=${REDACTED}&b=1`);
    // Nothing of chatprobe's own files is cut: the page's script, the JUnit elements, the JSON fields.
    expect(b.redact(PAGE_JS)).toBe(PAGE_JS);
    const report = sampleReport();
    expect(b.redact(renderJson(report))).toBe(renderJson(report));
    expect(b.redact(renderJunit(report))).toBe(renderJunit(report));
  });

  it('junit.xml stays well-formed whatever word the key is', async () => {
    for (const key of ['testcase', 'testsuite', 'property', 'failures']) {
      const b = Boundary.of([{ value: key, label: 'k' }], { vocabulary });
      expect(await junitProblems(b.redact(renderJunit(sampleReport()))), key).toEqual([]);
    }
  });

  it('a random key keeps every needle: none of its fragments is a word of the reports', () => {
    const b = Boundary.of([{ value: KEY, label: 'k' }], { vocabulary });
    expect(b.refused).toEqual([]);
    expect(b.redact(`x ${KEY.slice(3, 14)} y`)).toBe(`x ${REDACTED} y`);
  });
});

describe('a stream that sends the key a few characters an event', () => {
  const chunk = (content: string) => JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] });
  const pieces = ['Your key: sk', '-c', 'hao', 's-Zq', '8', 'Wm3Xv7T', 'n2Rb5', 'Kp9', 'Lc4H', 'd6', ' (echoed)'];
  const boundary = Boundary.of([KEY]);

  it('is redacted on the joined deltas, each piece in place, the text around the key kept', () => {
    const events = pieces.map(chunk);
    const out = redactStreamPieces(events, boundary);
    const joined = out.map((e) => (JSON.parse(e) as { choices: { delta: { content: string } }[] }).choices[0]!.delta.content).join('');
    expect(fragments(joined)).toEqual([]);
    expect(joined.startsWith(`Your key: ${REDACTED}`)).toBe(true);
    expect(joined.endsWith(`${REDACTED} (echoed)`)).toBe(true);
    // The rest of each event as it was.
    expect(JSON.parse(out[0]!)).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion.chunk' });
  });

  it('in the raw text of the stream too (its data: lines), and in plain-text events', () => {
    const sse = pieces.map((p) => `data: ${chunk(p)}\n\n`).join('') + 'data: [DONE]\n\n';
    const [out] = redactStreamPieces([sse], boundary);
    expect(fragments(out!.replace(/"[^"]*":|data: |[{}[\],"]|chatcmpl-1|chat\.completion\.chunk/g, ''))).toEqual([]);
    expect(out).toContain('data: [DONE]');
    const plain = redactStreamPieces(pieces, boundary);
    expect(fragments(plain.join(''))).toEqual([]);
  });

  it('comes back untouched (the same array) when the joined text holds no secret', () => {
    const events = ['Hello', ', wor', 'ld'].map(chunk);
    expect(redactStreamPieces(events, boundary)).toBe(events);
  });

  it('is recorded in exchanges.har without the key, and without a server’s credentials in its headers', async () => {
    const dir = await tempDir();
    const writer = new HarWriter(join(dir, 'exchanges.har'), '0');
    const events = pieces.map((p, i) => ({ at: i, data: chunk(p) }));
    const call: RecordedCall = {
      callId: 'c1', at: '2026-01-01T00:00:00.000Z', probe: 'streaming.basic', model: 'm', method: 'POST', url: 'http://127.0.0.1:1/v1/chat/completions',
      requestHeaders: { authorization: 'Bearer $OPENAI_API_KEY' }, requestBody: '{}', status: 200,
      responseHeaders: { 'content-type': 'text/event-stream', 'set-cookie': 'session=abc123xyz987', 'x-upstream-authorization': 'Bearer up-Zk3', 'x-ratelimit-remaining-tokens': '999' },
      responseText: events.map((e) => `data: ${e.data}\n\n`).join(''), bytes: 1, durationMs: 1, ttftMs: 1, events, cuts: [], error: undefined,
    };
    recordCalls(writer, boundary)(call);
    const har = readFileSync(writer.close(), 'utf8');
    const entry = JSON.parse(har.split('\n').find((l) => l.startsWith('{"startedDateTime"'))!) as { _events: { data: string }[]; response: { headers: { name: string; value: string }[]; content: { text: string } }; request: { headers: { name: string; value: string }[] } };
    const joined = entry._events.map((e) => (JSON.parse(e.data) as { choices: { delta: { content: string } }[] }).choices[0]!.delta.content).join('');
    expect(fragments(joined)).toEqual([]);
    expect(joined).toContain(REDACTED);
    expect(entry.response.content.text).not.toContain('"sk"');
    expect(Object.fromEntries(entry.response.headers.map((h) => [h.name, h.value]))).toEqual({
      'content-type': 'text/event-stream', 'set-cookie': REDACTED, 'x-upstream-authorization': REDACTED, 'x-ratelimit-remaining-tokens': '999',
    });
    expect(entry.request.headers).toEqual([{ name: 'authorization', value: 'Bearer $OPENAI_API_KEY' }]);
  });
});

describe('credentials in headers', () => {
  it('a response header that carries one is a credential; a challenge or a count of tokens is not', () => {
    for (const name of ['Set-Cookie', 'x-upstream-authorization', 'x-api-key', 'x-session-id', 'x-csrf-token', 'proxy-authorization']) expect(isCredentialHeader(name), name).toBe(true);
    for (const name of ['www-authenticate', 'x-ratelimit-remaining-tokens', 'x-ratelimit-limit-tokens', 'content-type', 'x-request-id', 'openai-model']) expect(isCredentialHeader(name), name).toBe(false);
  });

  it('a --header whose value holds credentials as fields gives them as secrets, nested JSON and pairs alike', () => {
    const config = JSON.stringify({ provider: 'openai', api_key: 'pk-Abc123Def456Ghi', targets: [{ virtual_key: 'vk-9988776655', weight: 1 }], retry: { attempts: 3 } });
    expect(headerSecrets('X-Portkey-Config', config).map((s) => s.value)).toEqual(['pk-Abc123Def456Ghi', 'vk-9988776655']);
    expect(headerSecrets('X-Options', 'region=eu; api_key=ak-77aa88bb99; mode=fast').map((s) => s.value)).toEqual(['ak-77aa88bb99']);
    expect(headerSecrets('X-Api-Key', 'whole-value-123')).toEqual([{ value: 'whole-value-123', label: 'the value of --header X-Api-Key' }]);
    expect(headerSecrets('X-Route', 'eu-west')).toEqual([]);
    for (const s of headerSecrets('X-Portkey-Config', config)) expect(s.label).not.toContain(s.value);
  });
});
