import { describe, expect, it } from 'vitest';
import { judgeNamed, judgeNone, judgeParallel, judgeRequired, judgeTools, textToolCall, toolCallsOf, toolsNeverReach, toolsReach } from '../../suites/support/tools.js';
import { judgeImage, judgeInstruction, judgeRecall } from '../../suites/support/roles.js';
import type { Exchange } from '../../src/engine/exchange.js';
import { runContrast } from '../helpers/contrast.js';
import { errorIn200, refused, reply } from '../helpers/exchanges.js';

const ok = reply('OK', { usage: [14, 1] });
const paris = { name: 'get_weather', args: { city: 'Paris' } };
const tokyo = { name: 'get_weather', args: { city: 'Tokyo' } };
const time = { name: 'get_time', args: { timezone: 'UTC' } };
const words = (s: string, prompt = 14) => reply(s, { usage: [prompt, 3] });
// The two-cities request with the weather tool, and the OK prompt with two tools, forced or not.
const weatherCalls = reply(null, { calls: [paris, tokyo], usage: [90, 20] });
const noCall = (prompt = 140) => words('OK', prompt);
const forcedCall = reply(null, { calls: [paris], usage: [140, 10] });
const hermes = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

describe('textToolCall (rule 9)', () => {
  it.each([
    [hermes, 'a <tool_call> tag calling get_weather'],
    ['<function=get_weather>{"city":"Paris"}</function>', 'a <function=get_weather> tag'],
    ['[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]', 'a tool-call marker'],
    ['```json\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```', 'a JSON object calling get_time'],
    ['{"tool_calls": [{"function": {"name": "get_weather", "arguments": "{}"}}]}', 'a JSON object calling get_weather'],
  ])('%j is a call written as text', (content, what) => {
    expect(textToolCall(content)).toContain(what);
  });

  it.each(['I would use get_weather for that.', '{"name": "Paris", "country": "France"}', 'OK'])('%j is not', (content) => {
    expect(textToolCall(content)).toBeUndefined();
  });
});

describe('toolsReach', () => {
  it('reads the server\'s prompt counts: tool definitions cost tens of tokens when they reach the model', () => {
    expect(toolsReach(noCall(140), ok, weatherCalls)).toBe('reach');
    expect(toolsReach(noCall(14), ok, words('x', 30))).toBe('dropped');
    // Counts that never follow the prompt (fake usage) prove nothing.
    expect(toolsReach(noCall(14), ok, words('x', 14))).toBeUndefined();
    expect(toolsReach(reply('OK', { usage: null }), ok, weatherCalls)).toBeUndefined();
  });
});

describe('toolsNeverReach (the skip of tool_choice, parallel_tool_calls and the streamed call)', () => {
  it('skips only where parameters.tools shows the tools dropped: no call asked for or forced, counts that do not grow', () => {
    expect(toolsNeverReach(words('no', 30), noCall(14), noCall(14), ok)).toMatch(/^the tools never reach the model \(prompt_tokens 14 without tools, 14 with two/);
    expect(judgeTools(words('no', 30), noCall(14), noCall(14), ok).verdict).toBe('ignored');
  });

  it('trap: counts that leave the tools out while a forced call comes (a gateway estimating usage from the messages) skip nothing', () => {
    expect(toolsNeverReach(words('no', 30), reply(null, { calls: [paris], usage: [14, 10] }), noCall(14), ok)).toBeUndefined();
  });

  it('skips nothing where the model calls, writes a call as text, was refused, or the counts say nothing', () => {
    expect(toolsNeverReach(weatherCalls, noCall(14), noCall(14), ok)).toBeUndefined();
    expect(toolsNeverReach(words(hermes, 30), noCall(14), noCall(14), ok)).toBeUndefined();
    expect(toolsNeverReach(refused(400, 'tools are not supported'), noCall(14), noCall(14), ok)).toBeUndefined();
    expect(toolsNeverReach(words('no', 30), noCall(140), noCall(140), ok)).toBeUndefined();
    expect(toolsNeverReach(words('no', 14), noCall(14), noCall(14), ok)).toBeUndefined();
  });
});

describe('judgeTools', () => {
  it.each([
    ['valid calls', weatherCalls, forcedCall, noCall(), 'honoured', []],
    ['a valid call with another finish_reason', reply(null, { calls: [paris], finish: 'stop' }), forcedCall, noCall(), 'honoured', ['finish_reason']],
    ['trap: a call written as text (the parser is off)', words(hermes, 90), words(hermes), noCall(), 'ignored', ['tool_call_as_text']],
    ['no call, though a forced call works (the model chose)', words('I cannot check the weather.', 90), forcedCall, noCall(), 'inconclusive', []],
    ['no call anywhere, tools never reached the model', words('I cannot check.', 30), noCall(14), noCall(14), 'ignored', []],
    ['trap: a weak model that never calls, though the tools reach it', words('zq blorp', 90), noCall(), noCall(140), 'inconclusive', []],
    ['no call and no usage to tell', reply('no', { usage: null }), reply('OK', { usage: null }), reply('OK', { usage: null }), 'inconclusive', []],
    ['a call with invalid arguments', reply(null, { calls: [{ name: 'get_weather', args: '{"town":' }] }), forcedCall, noCall(), 'inconclusive', []],
    ['an error in a 200', errorIn200(), forcedCall, noCall(), 'inconclusive', []],
    ['a refusal', refused(400, 'tools are not supported', { param: 'tools' }), forcedCall, noCall(), 'rejected', ['clean_refusal']],
  ])('%s', (_, x, forced, unneeded, verdict, codes) => {
    const v = judgeTools(x, forced, unneeded, ok);
    expect(v.verdict).toBe(verdict);
    expect((v.findings ?? []).map((f) => f.code)).toEqual(codes);
  });
});

describe('judgeRequired', () => {
  it.each([
    ['a forced call where none is made unforced', forcedCall, noCall(), weatherCalls, 'honoured'],
    ['a call, but the model calls unforced too', forcedCall, forcedCall, weatherCalls, 'inconclusive'],
    ['no call, though the model calls when asked', noCall(), noCall(), weatherCalls, 'ignored'],
    ['trap: a weak model on a server that does not force the call: the tools reach it (prompt counts)', noCall(), noCall(140), words('zq', 90), 'ignored'],
    ['no call, and nothing shows the tools reach the model (dropped?)', noCall(14), noCall(14), words('no', 30), 'inconclusive'],
    ['trap: text first, cut by our limit before the forced call (llama.cpp\'s grammar)', reply('zq blorp', { finish: 'length', usage: [140, 64] }), noCall(140), words('zq', 90), 'inconclusive'],
    ['a call written as text', words(hermes), noCall(), weatherCalls, 'ignored'],
    ['a refusal, where the tools request answered', refused(400, "Invalid value for 'tool_choice'", { param: 'tool_choice' }), noCall(), weatherCalls, 'rejected'],
    ['a refusal, where the tools request was refused too', refused(400, 'tools unsupported'), refused(400, 'tools unsupported'), weatherCalls, 'inconclusive'],
  ])('%s', (_, x, unneeded, weather, verdict) => {
    // Each answer as often as the contrast asks for it.
    expect(runContrast((xs, u) => judgeRequired(xs, u, weather, ok), [x, x], [unneeded, unneeded, unneeded]).verdict).toBe(verdict);
  });

  it('trap: a model that calls a tool at random, on a server that does not force the call, is not honoured from one pair', () => {
    const judge = (xs: readonly Exchange[], u: readonly Exchange[]) => judgeRequired(xs, u, weatherCalls, ok);
    // The forced call came by chance; a later unforced answer calls too.
    expect(runContrast(judge, [forcedCall, forcedCall], [noCall(), forcedCall]).verdict).toBe('inconclusive');
    // A later forced answer makes no call though the model calls when asked: not forced.
    expect(runContrast(judge, [forcedCall, noCall()], [noCall(), noCall()]).verdict).toBe('ignored');
    expect(runContrast(judge, [forcedCall, forcedCall], [noCall(), noCall(), noCall()]).used).toEqual([2, 3]);
  });
});

describe('judgeNamed', () => {
  const timeCall = reply(null, { calls: [time] });
  it.each([
    ['a call to get_time only, where none is made unforced', timeCall, noCall(), forcedCall, 'honoured'],
    ['trap: llama.cpp treats a named tool_choice as "auto": no call, though calls can be forced', noCall(), noCall(), forcedCall, 'ignored'],
    ['a call to the other tool', forcedCall, noCall(), forcedCall, 'ignored'],
    ['no call, the tools reach the model (prompt counts), nothing forced', noCall(), noCall(140), noCall(), 'ignored'],
    ['no call, and nothing shows the tools reach the model', noCall(14), noCall(14), noCall(14), 'inconclusive'],
    ['no call, cut by our limit', reply('zq blorp', { finish: 'length', usage: [140, 64] }), noCall(140), forcedCall, 'inconclusive'],
    ['get_time, but called unforced too', timeCall, timeCall, forcedCall, 'inconclusive'],
    ['a call written as text', words('<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>'), noCall(), forcedCall, 'ignored'],
  ])('%s', (_, x, unneeded, forced, verdict) => {
    expect(runContrast((xs, u) => judgeNamed(xs, u, forced, words('no', 30), ok), [x, x], [unneeded, unneeded, unneeded]).verdict).toBe(verdict);
  });
});

describe('judgeNone and judgeParallel', () => {
  it.each([
    ['no call where the model otherwise calls', words('It is sunny, I think.'), weatherCalls, 'honoured'],
    ['a call anyway', forcedCall, weatherCalls, 'ignored'],
    ['no call, and none without it either', words('No idea.'), words('No idea.'), 'inconclusive'],
    ['an error in a 200', errorIn200(), weatherCalls, 'inconclusive'],
    ['an empty answer that ended on its own: no call', reply('', { finish: 'stop' }), weatherCalls, 'honoured'],
    ['an empty answer cut by the limit (a reasoning model): nothing to judge', reply('', { finish: 'length', reasoning: 'thinking' }), weatherCalls, 'inconclusive'],
  ])('none: %s', (_, x, weather, verdict) => {
    expect(runContrast(judgeNone, [x, x], [weather, weather, weather]).verdict).toBe(verdict);
  });

  it('none, trap: a model that calls the tool half the time, on a server that drops tool_choice', () => {
    const none = words('It is sunny, I think.');
    expect(runContrast(judgeNone, [none, forcedCall], [weatherCalls, weatherCalls]).verdict).toBe('ignored');
    const v = runContrast(judgeNone, [none, none], [weatherCalls, none]);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('the model calls it only sometimes without it');
    // A cut answer with no call yet, from a model that writes text before its calls: a call could have come after the text.
    const textThenCall = reply('Let me look that up.', { calls: [{ name: 'get_weather', args: { city: 'Paris' } }] });
    expect(runContrast(judgeNone, [reply('Let me check', { finish: 'length' })], [textThenCall]).verdict).toBe('inconclusive');
  });

  it('none: an answer cut after its text began, from a model whose calls begin its answers (llama.cpp), is honoured; not otherwise', () => {
    const cutText = reply('The weather in Paris is usually mild in spring, and Tokyo', { finish: 'length' });
    const v = runContrast(judgeNone, [cutText, cutText], [weatherCalls, weatherCalls, weatherCalls]);
    expect(v.verdict).toBe('honoured');
    expect(v.observed).toContain('cut by the output limit chatprobe sends after text began');
    // Trap: the model writes text before its calls without tool_choice: a call could still have followed the cut.
    const textThenCall = reply('Let me look that up.', { calls: [{ name: 'get_weather', args: { city: 'Paris' } }] });
    const t = runContrast(judgeNone, [cutText, cutText], [textThenCall, textThenCall, textThenCall]);
    expect(t.verdict).toBe('inconclusive');
    expect(t.observed).toContain('were every answer without tool_choice a call with no text before it');
    // Trap: one answer without it makes no call: the calls do not always lead.
    expect(runContrast(judgeNone, [cutText, cutText], [weatherCalls, words('No idea.')]).verdict).toBe('inconclusive');
    // Trap: cut with nothing written yet (all of it went to reasoning): nothing has begun.
    expect(runContrast(judgeNone, [reply('', { finish: 'length', reasoning: 'thinking' })], [weatherCalls, weatherCalls, weatherCalls]).verdict).toBe('inconclusive');
    // Trap: a call anyway is still ignored.
    expect(runContrast(judgeNone, [cutText, forcedCall], [weatherCalls, weatherCalls, weatherCalls]).verdict).toBe('ignored');
  });

  it.each([
    ['one call where the model otherwise makes two', forcedCall, weatherCalls, 'honoured'],
    ['two calls anyway', weatherCalls, weatherCalls, 'ignored'],
    ['one call, one without it too', forcedCall, forcedCall, 'inconclusive'],
    ['a refusal', refused(400, "Unsupported parameter: 'parallel_tool_calls'", { param: 'parallel_tool_calls' }), weatherCalls, 'rejected'],
  ])('parallel: %s', (_, x, weather, verdict) => {
    expect(runContrast(judgeParallel, [x, x], [weather, weather, weather]).verdict).toBe(verdict);
  });

  it('parallel, trap: one call by chance where the model makes one or two at random', () => {
    expect(runContrast(judgeParallel, [forcedCall, forcedCall], [weatherCalls, forcedCall]).verdict).toBe('inconclusive');
    expect(runContrast(judgeParallel, [forcedCall, weatherCalls], [weatherCalls, weatherCalls]).verdict).toBe('ignored');
  });
});

describe('judgeInstruction', () => {
  const followed = words('PINEAPPLE');
  it.each([
    ['the word, from the role', followed, words('Paris'), 'honoured'],
    ['not the word, though the same instruction as a user message is followed', words('Paris'), followed, 'ignored'],
    ['trap: a model that follows no instruction', words('Paris'), words('Paris'), 'inconclusive'],
    ['trap: a verbose answer cut by our own limit before the word', reply('Sure! The capital of France is', { finish: 'length' }), followed, 'inconclusive'],
    ['the control is an error in a 200', words('Paris'), errorIn200(), 'inconclusive'],
    ['an error in a 200', errorIn200(), followed, 'inconclusive'],
    ['trap: a reasoning model that names the rule while it thinks, then answers the question', words('<think>PINEAPPLE? No, answer the question.</think>Paris'), words('<think>The rule says the word.</think>PINEAPPLE'), 'ignored'],
    ['trap: thinking that names the rule, cut by our own limit before any answer', reply('<think>The system says PINEAPPLE, but the user asks', { finish: 'length' }), followed, 'inconclusive'],
    ['trap: all thinking, nothing after it', reply('<think>PINEAPPLE or Paris?</think>', { finish: 'stop' }), followed, 'inconclusive'],
    ['the word after the thinking', words('<think>Follow the system rule.</think>PINEAPPLE'), words('Paris'), 'honoured'],
    ['trap: DeepSeek-R1 thinking whose opening tag the template wrote, naming the rule, then the answer', words('The system says PINEAPPLE, but the user asks about France.\n</think>\n\nParis'), words('Rule noted.\n</think>\n\nPINEAPPLE'), 'ignored'],
    ['o1-mini refusing system', refused(400, "Unsupported value: 'messages[0].role' does not support 'system' with this model.", { param: 'messages[0].role' }), followed, 'rejected'],
  ])('%s', (_, x, control, verdict) => {
    expect(judgeInstruction(x, control, ok, 'a system message', ['messages[0].role', 'system']).verdict).toBe(verdict);
  });
});

describe('judgeRecall (rule 2)', () => {
  const both = words('MANGO KIWI');
  it.each([
    ['both words', both, words('no'), 'honoured'],
    ['a word missing, while the same text in one string gets both', words('MANGO'), both, 'ignored'],
    ['trap: a capable server whose model does not follow "reply with both words"', words('Fruit is nice.'), words('Fruit is nice.'), 'inconclusive'],
    ['the plain control is an error in a 200', words('MANGO'), errorIn200(), 'inconclusive'],
    ['a word missing and no plain control sent', words('MANGO'), undefined, 'inconclusive'],
    ['trap: a word missing from an answer cut by our own limit', reply('Sure! The first word was MANGO and the', { finish: 'length' }), both, 'inconclusive'],
    ['an empty answer', words(''), both, 'inconclusive'],
    ['trap: the words only inside the thinking', words('<think>MANGO and KIWI, was it?</think>Fruit.'), both, 'ignored'],
    ['422 for content arrays', refused(422, 'Input should be a valid string', { body: { detail: [{ loc: ['body', 'messages', 0, 'content'], msg: 'Input should be a valid string', type: 'string_type' }] } }), both, 'rejected'],
  ])('%s', (_, x, plain, verdict) => {
    expect(judgeRecall(x, plain, ['MANGO', 'KIWI'], ok, 'user content as text parts', ['messages[0].content', 'content']).verdict).toBe(verdict);
  });
});

describe('judgeImage', () => {
  const mmproj = 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj';
  it.each([
    ['the colour, where the question without the image gets none', words('Green.'), words('I see no image.'), 'honoured'],
    ['trap: the colour, but a blind model guesses it without the image too', words('Green.'), words('Green, probably.'), 'inconclusive'],
    ['another colour, though told in words the model names it', words('Red.'), words('Green.'), 'ignored'],
    ['trap: a weak model that names no colour even when told', words('zq blorp'), words('zq blorp'), 'inconclusive'],
    ['llama.cpp without a projector: HTTP 500 twice, naming the image', refused(500, mmproj, { firstTry: { status: 500 } }), words('no'), 'rejected'],
    ['an HTTP 500 once', refused(500, mmproj), words('no'), 'error'],
    ['an answer and no control sent', words('Green.'), undefined, 'inconclusive'],
    ['trap: a long description cut by our own limit before the colour', reply('This image shows a square that is', { finish: 'length' }), words('Green.'), 'inconclusive'],
  ])('%s', (_, x, other, verdict) => {
    expect(judgeImage(x, other, 'green', ok).verdict).toBe(verdict);
  });
});

describe('toolCallsOf', () => {
  it('checks arguments against the tool named, and knows no tool by an inherited name', () => {
    const { calls } = toolCallsOf(reply(null, { calls: [paris, { name: 'get_weather', args: { town: 'Paris' } }, { name: 'constructor', args: {} }, { name: '__proto__', args: {} }] }));
    expect(calls[0]).toEqual({ name: 'get_weather', problem: undefined });
    expect(calls[1]!.problem).toMatch(/do not fit the schema/);
    expect(calls[2]!.problem).toBe('no such tool: "constructor"');
    expect(calls[3]!.problem).toBe('no such tool: "__proto__"');
  });
});
