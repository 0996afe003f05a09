import { describe, expect, it } from 'vitest';
import { readError } from '../../src/engine/exchange.js';
import { assembleStream } from '../../src/wire/stream.js';
import { judgeErrorInBand } from '../../suites/streaming/error-in-band.js';
import { judgeImage } from '../../suites/support/roles.js';
import { delta, refused, reply, streamed } from '../helpers/exchanges.js';

const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);

describe('a stream event nested 100,000 deep', () => {
  it('is not parsed (V8 would overflow its stack), and said as a cut of ours', () => {
    const s = assembleStream([
      { at: 1, data: JSON.stringify(delta({ content: 'Hi' })) },
      { at: 2, data: `{"error":{"message":"upstream failed","detail":${DEEP}}}` },
      { at: 3, data: '[DONE]' },
    ] as never);
    expect(s.tooDeep).toBe(1);
    // Counted apart, never as the server's non-JSON data: streaming.framing does not blame the server for our cut.
    expect(s.nonJson).toEqual([]);
    expect(s.chunkCount).toBe(1);
  });

  it('makes streaming.error_in_band inconclusive, not a harness error nor a pass', () => {
    const x = streamed([delta({ role: 'assistant', content: '' }), delta({ content: 'Hi' }), `{"error":{"message":"x","detail":${DEEP}}}`, delta({}, 'stop')]);
    const v = judgeErrorInBand(x);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('nested deeper than 128 levels');
    // The same stream with a shallow error event fails, as before.
    expect(judgeErrorInBand(streamed([delta({ content: 'Hi' }), { error: { message: 'x' } }, delta({}, 'stop')])).verdict).toBe('fail');
  });
});

describe('the flat error shape of Node gateways', () => {
  it('reads `message` beside a string `error` (the HTTP reason phrase) as the message', () => {
    const body = { error: 'Internal Server Error', message: 'OpenAI API Error (500): image input is not supported by this model' };
    expect(readError(body, JSON.stringify(body), 'application/json')).toMatchObject({ message: body.message, shape: 'error_string' });
    // A string `error` alone is still the message.
    expect(readError({ error: 'model not found' }, '{"error":"model not found"}', 'application/json').message).toBe('model not found');
  });
});

describe('a 500 in the flat shape that names the feature', () => {
  it('makes roles.image rejected (dirty), as the same refusal in the OpenAI envelope does, not an error', () => {
    const message = 'OpenAI API Error (500): image input is not supported by this model';
    const flat = refused(500, message, { body: { error: 'Internal Server Error', message }, firstTry: { status: 500 } });
    const v = judgeImage(flat, undefined, 'red', reply('a plain answer'));
    expect(v.verdict).toBe('rejected');
    expect(v.findings?.map((f) => f.code)).toContain('server_error_for_client_error');
  });
});
