import { describe, expect, it } from 'vitest';
import { judgeStreamedToolCalls } from '../../suites/streaming/tool-calls.js';
import { delta, refused, refusedStream, reply, streamed } from '../helpers/exchanges.js';

const ARGS = ['{"ci', 'ty": "Pa', 'ris"}'];
const plainTwo = reply(null, { calls: [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_weather', args: { city: 'Tokyo' } }] });
const plainNone = reply('It is sunny.');

/** One call's fragments as OpenAI streams them, with changes applied to the first fragment. */
function call(index: number | undefined, id: unknown, first: Record<string, unknown> = {}, args = ARGS) {
  const at = index === undefined ? {} : { index };
  return [
    delta({ tool_calls: [{ ...at, id, type: 'function', function: { name: 'get_weather', arguments: '' }, ...first }] }),
    ...args.map((a) => delta({ tool_calls: [{ ...at, function: { arguments: a } }] })),
  ];
}
const start = delta({ role: 'assistant', content: null });
const end = (finish = 'tool_calls') => delta({}, finish);
const codes = (v: ReturnType<typeof judgeStreamedToolCalls>) => (v.findings ?? []).filter((f) => f.severity !== 'info').map((f) => f.code);

describe('streaming.tool_calls', () => {
  it('passes calls streamed as OpenAI does, and a whole call in one chunk', () => {
    expect(judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a'), ...call(1, 'call_b'), end()]), plainTwo).verdict).toBe('pass');
    const whole = delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
    expect(judgeStreamedToolCalls(streamed([start, whole, end()]), plainTwo).verdict).toBe('pass');
  });

  it.each([
    ['fragments without an index', [start, ...call(undefined, 'call_a'), ...call(undefined, 'call_b'), end()], 'no_index'],
    ['every call at index 0', [start, ...call(0, 'call_a'), ...call(0, 'call_b'), end()], 'shared_index'],
    ['id ""', [start, ...call(0, ''), end()], 'no_id'],
    ['no id', [start, ...call(0, undefined), end()], 'no_id'],
    ['arguments that do not parse', [start, ...call(0, 'call_a', {}, ['{"city": "Par']), end()], 'arguments_not_json'],
  ])('fails %s', (_name, chunks, code) => {
    const v = judgeStreamedToolCalls(streamed(chunks), plainTwo);
    expect(v.verdict).toBe('fail');
    expect(codes(v)).toContain(code);
  });

  it('names argument fragments that came twice (a racing gateway), and not a legitimate repeat inside valid arguments', () => {
    const twice = judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a', {}, ['{"ci', 'ty": "Pa', 'ty": "Pa', 'ris"}']), end()]), plainTwo);
    expect(codes(twice)).toEqual(['repeated_fragment']);
    expect(twice.observed).toContain(`parse as JSON only without fragment 3 ${JSON.stringify('ty": "Pa')}`);
    const legit = judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a', {}, ['{"city": "Pa', 'ris', '"}']), end()]), plainTwo);
    expect(legit.verdict).toBe('pass');
    const lost = judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a', {}, ['{"ci', 'ci', 'ty": "Par']), end()]), plainTwo);
    expect(codes(lost)).toEqual(['arguments_not_json']);
  });

  it('rebuilds two calls at index 0 as two calls, not one merged call', () => {
    const v = judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a'), ...call(0, 'call_b'), end()]), plainTwo);
    expect(v.findings!.find((f) => f.code === 'calls')!.message).toContain('streamed: get_weather, get_weather');
  });

  it('takes a name repeated whole in every fragment as the same call, not a split name or a second call', () => {
    const repeat = (d: Record<string, unknown>) => ({ ...d, function: { name: 'get_weather', ...(d.function as object) } });
    const chunks = [start, delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }), ...ARGS.map((a) => delta({ tool_calls: [repeat({ index: 0, function: { arguments: a } })] })), end()];
    const v = judgeStreamedToolCalls(streamed(chunks), plainTwo);
    expect(v.verdict).toBe('pass');
    expect(v.findings!.find((f) => f.code === 'calls')!.message).toContain('streamed: get_weather in 4 fragment(s)');
  });

  it('warns on a name split across fragments, a missing type, or another finish_reason', () => {
    const split = [start, delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_', arguments: '' } }] }), delta({ tool_calls: [{ index: 0, function: { name: 'weather' } }] }), ...call(0, 'call_a').slice(1), end()];
    const v = judgeStreamedToolCalls(streamed(split), plainTwo);
    expect(v.verdict).toBe('warn');
    expect(codes(v)).toEqual(['name_split']);
    expect(v.findings!.find((f) => f.code === 'calls')!.message).toContain('streamed: get_weather');
    expect(codes(judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a', { type: undefined }), end()]), plainTwo))).toEqual(['no_type']);
    expect(codes(judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a'), end('stop')]), plainTwo))).toEqual(['finish_reason']);
  });

  it('fails calls dropped on the way (finish "tool_calls" with no fragment) and calls written as text', () => {
    expect(codes(judgeStreamedToolCalls(streamed([start, end()]), plainTwo))).toEqual(['calls_dropped']);
    const text = [start, delta({ content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' }), end('stop')];
    expect(codes(judgeStreamedToolCalls(streamed(text), plainTwo))).toEqual(['call_as_text']);
  });

  it('is inconclusive when the model makes no call, or when our limit cut the arguments', () => {
    const none = [start, delta({ content: 'Sunny.' }), end('stop')];
    expect(judgeStreamedToolCalls(streamed(none), plainNone).verdict).toBe('inconclusive');
    // It called without streaming: a model that samples may not call this time. Not a failure.
    expect(judgeStreamedToolCalls(streamed(none), plainTwo).verdict).toBe('inconclusive');
    const cut = judgeStreamedToolCalls(streamed([start, ...call(0, 'call_a', {}, ['{"ci']), end('length')]), plainTwo);
    expect(cut.verdict).toBe('inconclusive');
    expect(cut.observed).toContain('output limit chatprobe sends');
  });

  // llama-server's form (docs/real-server-evidence.md): a 32-character id without "call_", the name whole
  // and the first piece of the arguments already in the first fragment, then about one fragment a token.
  const llama = (index: number, id: string, pieces: string[]) => [
    delta({ tool_calls: [{ index, id, type: 'function', function: { name: 'get_weather', arguments: pieces[0] } }] }),
    ...pieces.slice(1).map((a) => delta({ tool_calls: [{ index, function: { arguments: a } }] })),
  ];
  it("passes llama-server's form, and is inconclusive when its calls run into our limit unfinished", () => {
    const done = [start, ...llama(0, 'Tmw1Kl0z5Ipu2sjvWljWdNDzlTFA188A', ['{', '"', 'city', '":"', 'Paris', '"}']), end()];
    expect(judgeStreamedToolCalls(streamed(done), plainTwo).verdict).toBe('pass');
    const cut = [start, ...llama(0, 'Tmw1Kl0z5Ipu2sjvWljWdNDzlTFA188A', ['{', '"', 'city', '":"+', '"}']), ...llama(1, 'sltMpv7H9zcU8rEvS0OUpZnWfsUFKDWE', ['{']), end('length')];
    expect(judgeStreamedToolCalls(streamed(cut), plainTwo).verdict).toBe('inconclusive');
  });

  it('fails a refused stream only when the same request without streaming was answered', () => {
    const streamRefused = refusedStream(400, 'streaming with tools is not supported');
    expect(judgeStreamedToolCalls(streamRefused, plainTwo).verdict).toBe('fail');
    expect(judgeStreamedToolCalls(streamRefused, refused(400, 'tools are not supported')).verdict).toBe('inconclusive');
  });
});
