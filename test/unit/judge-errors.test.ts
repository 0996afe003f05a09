import { describe, expect, it } from 'vitest';
import { toExchange, type Exchange } from '../../src/engine/exchange.js';
import { judgeOutOfRange, OUT_OF_RANGE, type OutOfRangeTry } from '../../suites/errors/out-of-range.js';
import { judgeRefusal } from '../../suites/support/refusals.js';
import { errorIn200, raw, refused, reply } from '../helpers/exchanges.js';

type Param = (typeof OUT_OF_RANGE)[number]['param'];

/** One try per value: each refused in the OpenAI envelope naming its parameter unless `answers` says otherwise. */
function tries(answers: Partial<Record<Param, Exchange | string>> = {}): OutOfRangeTry[] {
  return OUT_OF_RANGE.map((c) => {
    const a = answers[c.param];
    if (typeof a === 'string') return { case: c, notSent: a };
    return { case: c, x: a ?? refused(400, `Invalid '${c.param}': value out of range.`, { param: c.param }) };
  });
}

const limited = (status: number) => refused(status, 'Rate limit reached, retry in 20s');

describe('errors.out_of_range', () => {
  it('passes when every value is refused with a 4xx naming its parameter (in error.param or the message)', () => {
    expect(judgeOutOfRange(tries()).verdict).toBe('pass');
    const inMessage = tries({ top_p: refused(400, 'top_p must be in (0, 1], got 2.0') });
    expect(judgeOutOfRange(inMessage).verdict).toBe('pass');
  });

  it('warns per value a gateway clamps or drops in silence, saying what came back', () => {
    const v = judgeOutOfRange(
      tries({
        temperature: reply('OK'),
        max_tokens: reply('', { usage: [10, 0], finish: 'length' }),
        n: reply('OK'),
      }),
    );
    expect(v.verdict).toBe('warn');
    const clamps = v.findings!.filter((f) => f.code === 'accepted_out_of_range').map((f) => f.message);
    expect(clamps).toHaveLength(3);
    expect(clamps[0]).toContain('temperature: 5 (valid: 0 to 2) was answered with HTTP 200');
    expect(clamps[1]).toContain('0 completion token(s) (turned into 0)');
    expect(clamps[2]).toContain('1 choice(s)');
  });

  it('warns when the refusal does not name the parameter: "not supported" does not name n (rule 10)', () => {
    const v = judgeOutOfRange(tries({ n: refused(400, 'Invalid value: not supported') }));
    expect(v.verdict).toBe('warn');
    expect(v.findings!.map((f) => f.code)).toContain('param_not_named');
  });

  it('warns on another JSON shape, reading a FastAPI loc as the parameter', () => {
    const fastapi = raw(422, JSON.stringify({ detail: [{ type: 'less_than_equal', loc: ['body', 'temperature'], msg: 'Input should be less than or equal to 2' }] }));
    const v = judgeOutOfRange(tries({ temperature: fastapi }));
    expect(v.verdict).toBe('warn');
    expect(v.findings!.map((f) => f.code)).toEqual(['shape']);
  });

  it.each([
    ['a 5xx', refused(500, 'Internal Server Error'), 'server_error'],
    ['an error body in a 200', errorIn200('temperature out of range'), 'error_in_2xx'],
    ['an HTML 400 page', raw(400, '<html><body>400 Bad Request</body></html>', 'text/html'), 'not_json'],
  ])('fails on %s', (_name, x, code) => {
    const v = judgeOutOfRange(tries({ temperature: x }));
    expect(v.verdict).toBe('fail');
    expect(v.findings!.map((f) => f.code)).toContain(code);
  });

  it('takes a 200 that is no answer (HTML, no choice) as untested, not as a silent clamp', () => {
    const v = judgeOutOfRange(tries({ top_p: raw(200, '<html>gateway</html>', 'text/html') }));
    expect(v.verdict).toBe('inconclusive');
    expect(v.findings!.map((f) => f.code)).not.toContain('accepted_out_of_range');
  });

  it('is inconclusive, not pass, when a value could not be tested and the others were refused', () => {
    const v = judgeOutOfRange(tries({ n: limited(429) }));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('not tested: n: 0 (HTTP 429');
    const runaway = judgeOutOfRange(tries({ max_tokens: 'the model does not stop on its own' }));
    expect(runaway.verdict).toBe('inconclusive');
  });

  it('keeps a deviation seen even when another value could not be tested', () => {
    expect(judgeOutOfRange(tries({ n: limited(429), temperature: reply('OK') })).verdict).toBe('warn');
  });

  it('is an error with the cause when no value could be tested', () => {
    const all = judgeOutOfRange(tries({ temperature: limited(429), top_p: limited(429), max_tokens: limited(429), n: limited(429) }));
    expect(all).toMatchObject({ verdict: 'error', cause: 'rate_limited' });
  });
});

describe('judgeRefusal (errors.unknown_model, missing_messages, wrong_type, invalid_role)', () => {
  // As errors.unknown_model asks: its request names a model no server has.
  const judge = (x: Exchange) =>
    judgeRefusal(x, 'the unknown model', (ok) => `expected a 4xx, got HTTP ${ok.status} answered by ${JSON.stringify((ok.json as { model?: unknown }).model ?? null)}: silent substitution`, { noServableModel: true });

  it('passes a 4xx in the OpenAI envelope', () => {
    expect(judge(refused(404, 'The model does not exist')).verdict).toBe('pass');
  });

  it('calls an answer from another model a silent substitution', () => {
    const v = judge(reply('OK'));
    expect(v.verdict).toBe('fail');
    expect(v.findings?.map((f) => f.code)).toEqual(['accepted']);
  });

  it('trap: a refusal whose body chatprobe did not read whole (its cap, or nested too deep to parse) is inconclusive, never "not JSON"', () => {
    const deep = judge(raw(400, `{"error":{"message":"bad","detail":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`));
    expect(deep.verdict).toBe('inconclusive');
    expect(deep.observed).toContain('its error shape cannot be told');
    const capped = toExchange('cut', { method: 'POST', path: '/chat/completions', body: {} }, {
      status: 400,
      headers: { 'content-type': 'application/json' },
      chunks: [{ at: 1, bytes: Buffer.from('{"error":{"message":"bad request","padding":"' + ' '.repeat(1000)) }],
      bytes: 2 * 1024 * 1024,
      truncated: true,
      cap: 2 * 1024 * 1024,
      durationMs: 5,
      startedAt: 0,
    });
    const v = judge(capped);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('chatprobe stopped reading at its own cap');
    // The status alone still decides where the body does not matter: a 5xx is a 5xx however long.
    expect(judge(raw(500, `{"error":${'['.repeat(200)}${']'.repeat(200)}}`)).verdict).toBe('fail');
  });

  it("judges a refusal of the model when the request names none the endpoint can serve: 404 model_not_found, new-api's 403 and 503", () => {
    expect(judge(refused(404, 'The model `chatprobe-no-such-model-7f3a9c` does not exist or you do not have access to it.'))).toMatchObject({ verdict: 'pass' });
    const group = { error: { message: '该令牌无权使用模型：chatprobe-no-such-model-7f3a9c', type: 'new_api_error', param: '', code: '' } };
    expect(judge(refused(403, '', { body: group }))).toMatchObject({ verdict: 'pass', status: 403 });
    const channel = { error: { message: '当前分组 default 下对于模型 chatprobe-no-such-model-7f3a9c 无可用渠道', type: 'new_api_error', param: '', code: 'model_not_found' } };
    expect(judge(refused(503, '', { body: channel }))).toMatchObject({ verdict: 'fail', findings: expect.arrayContaining([expect.objectContaining({ code: 'server_error' })]) });
  });

  it('trap: a refusal of the token, or of the model its smoke call reached, says nothing of how the endpoint treats the request: an error with that cause', () => {
    // The row's model, reached by its smoke call: a 401 now is a token that expired or was revoked mid-run
    // (new-api's tokens expire), not a refusal of missing messages; judged, it passed errors.missing_messages.
    const asked = (x: Exchange) => judgeRefusal(x, 'missing messages');
    expect(asked(refused(401, 'Incorrect API key provided.'))).toMatchObject({ verdict: 'error', cause: 'auth', status: 401 });
    const group = { error: { message: '该令牌无权使用模型：gpt-4o', type: 'new_api_error', param: '', code: '' } };
    expect(asked(refused(403, '', { body: group }))).toMatchObject({ verdict: 'error', cause: 'model_not_in_group' });
    // Whatever the request names, the token refused is the token's fault.
    expect(judge(refused(401, 'Incorrect API key provided.'))).toMatchObject({ verdict: 'error', cause: 'auth' });
    // A 5xx is the endpoint's answer to the request: judged.
    expect(asked(refused(500, 'internal error'))).toMatchObject({ verdict: 'fail' });
  });

  it('trap: a call the run stopped is an error with the stop, never an answer "in the none shape"', () => {
    const stopped = raw(undefined, '', '', { code: 'interrupted', kind: 'stopped', message: 'cut short: the run was interrupted (Ctrl-C, SIGTERM or SIGHUP)' });
    expect(judgeRefusal(stopped, 'missing messages')).toMatchObject({ verdict: 'error', cause: 'interrupted' });
    expect(judgeOutOfRange(tries({ temperature: stopped, top_p: stopped, max_tokens: stopped, n: stopped }))).toMatchObject({ verdict: 'error', cause: 'interrupted' });
  });

  it('trap: an error inside a 200 is a refusal clients read as a success, not an answer nor an accepted request', () => {
    const v = judge(errorIn200('model not found'));
    expect(v.verdict).toBe('fail');
    expect(v.findings?.map((f) => f.code)).toEqual(['error_in_2xx']);
    expect(v.observed).toContain('refused inside an HTTP 200');
    expect(v.observed).not.toContain('substitution');
  });
});
