import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../src/http/client.js';
import type { CallLog } from '../../src/engine/calls.js';
import type { Exchange } from '../../src/engine/exchange.js';
import { ModelCaller } from '../../src/engine/requests.js';
import { learnRoom, noteRoom, NO_ROOM, ROOM_CAP, ROOM_FACTOR, ROOM_SLACK, roomFinding, withRoom, type ReasoningRoom } from '../../src/engine/room.js';
import { judgeRecall } from '../../suites/support/roles.js';
import { judgeBasicStream } from '../../suites/streaming/basic.js';
import { judgeLogprobs } from '../../suites/parameters/logprobs.js';
import { LIMITS } from '../../suites/support/prompts.js';
import { delta, raw, refused, reply, streamed } from '../helpers/exchanges.js';

/** A completion whose message and usage are given whole, as servers send reasoning. */
function answer(message: Record<string, unknown>, usage?: Record<string, unknown>, finish = 'stop'): Exchange {
  const body: Record<string, unknown> = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }] };
  if (usage) body.usage = usage;
  return raw(200, JSON.stringify(body));
}
const counts = (p: number, c: number, r?: number) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: p + c, ...(r === undefined ? {} : { completion_tokens_details: { reasoning_tokens: r } }) });
const roomOf = (reasoning: number) => Math.min(ROOM_CAP, ROOM_FACTOR * reasoning + ROOM_SLACK);
const learned = (room: ReasoningRoom) => (room.kind === 'learned' ? room : undefined);

describe('the room a smoke call earns (engine/room.ts)', () => {
  it('adds nothing for a model with no reasoning: its bodies go as written, the same object', () => {
    const room = learnRoom(reply('OK'));
    expect(room).toEqual({ kind: 'none' });
    const body = { messages: [], max_tokens: LIMITS.word };
    expect(withRoom(body, room)).toBe(body);
  });

  it('measures reasoning tokens reported in the usage details (DeepSeek, vLLM)', () => {
    const room = learned(learnRoom(answer({ content: 'OK', reasoning_content: 'The user wants one word.' }, counts(10, 31, 30))));
    expect(room).toMatchObject({ tokens: roomOf(30), reasoning: 30, capped: false });
    expect(room!.from).toMatch(/reasoning_tokens \(message\.reasoning_content\)/);
  });

  it('measures <think> text alone, with no usage, by its text pieces', () => {
    // "Let me see : one word ." is 7 pieces: at least 7 tokens in any tokenizer.
    const room = learned(learnRoom(answer({ content: '<think>Let me see: one word.</think>OK' })));
    expect(room).toMatchObject({ tokens: roomOf(7), reasoning: 7 });
    expect(room!.from).toMatch(/the reasoning text \(<think> tags/);
  });

  it('measures hidden reasoning (only reasoning_tokens, as the o-series) by the count', () => {
    const room = learned(learnRoom(answer({ content: 'OK' }, counts(12, 65, 64))));
    expect(room).toMatchObject({ tokens: roomOf(64), reasoning: 64 });
    expect(room!.from).toMatch(/no text/);
  });

  it('takes the completion tokens less the answer when the reasoning text understates them', () => {
    const room = learned(learnRoom(answer({ content: 'OK', reasoning: 'Hmm.' }, counts(10, 50))));
    expect(room).toMatchObject({ reasoning: 49, tokens: roomOf(49) });
    expect(room!.from).toMatch(/completion_tokens less the answer \(message\.reasoning\)/);
  });

  it('caps a huge reported reasoning count, and a huge reasoning text, at ROOM_CAP', () => {
    expect(learnRoom(answer({ content: 'OK' }, counts(10, 11, 1e12)))).toMatchObject({ kind: 'learned', tokens: ROOM_CAP, capped: true });
    // A count past what a double holds parses as Infinity.
    const past = raw(200, '{"choices":[{"index":0,"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"completion_tokens_details":{"reasoning_tokens":1e400}}}');
    expect(learnRoom(past)).toMatchObject({ kind: 'learned', tokens: ROOM_CAP, capped: true });
    const essay = 'word '.repeat(500_000);
    expect(learnRoom(answer({ content: 'OK', reasoning_content: essay }))).toMatchObject({ kind: 'learned', tokens: ROOM_CAP, capped: true });
    const body = { messages: [], max_tokens: LIMITS.word };
    expect(withRoom(body, learnRoom(answer({ content: 'OK' }, counts(10, 11, 1e12)))).max_tokens).toBe(LIMITS.word + ROOM_CAP);
  });

  it('ignores a negative count (a broken usage), and measures what else there is', () => {
    expect(learnRoom(answer({ content: 'OK', reasoning_content: 'One word.' }, { ...counts(10, -3), completion_tokens_details: { reasoning_tokens: -5 } }))).toMatchObject({ kind: 'learned', reasoning: 3 });
  });

  it('learns nothing from a smoke call that failed: no room, and why', () => {
    for (const smoke of [refused(400, 'Unsupported value: messages'), raw(200, '{"error":{"message":"upstream failed"}}'), raw(200, '<html>gateway</html>', 'text/html')]) {
      const room = learnRoom(smoke);
      expect(room.kind).toBe('unknown');
      expect(room.kind === 'unknown' && room.why).toMatch(/the smoke call got no readable answer .*whether the model reasons is unknown/);
      const body = { messages: [], max_tokens: LIMITS.word };
      expect(withRoom(body, room)).toBe(body);
    }
  });

  it('learns nothing from a smoke call cut inside its reasoning (a capped retry, a server default cap)', () => {
    const cut = [
      answer({ content: '', reasoning_content: 'The user asks for one word, so' }, counts(10, 16, 16), 'length'),
      answer({ content: '<think>The user asks for one word, so' }, counts(10, 16), 'length'),
      answer({ content: '' }, counts(10, 16, 16), 'length'),
      // A <think> block never closed though the server said "stop": its end was never seen.
      answer({ content: '<think>The user asks for' }, counts(10, 6)),
    ];
    for (const smoke of cut) {
      const room = learnRoom(smoke);
      expect(room.kind).toBe('unknown');
      expect(room.kind === 'unknown' && room.why).toMatch(/shows reasoning .* but was cut by a limit before it ended .*how much the model reasons is unknown/);
    }
  });

  it('takes a cut smoke call with no reasoning in it for a model that does not reason (one that never stops)', () => {
    expect(learnRoom(answer({ content: 'OK and so on and so on and so on' }, counts(10, 16), 'length'))).toEqual(NO_ROOM);
  });
});

describe('the room in a request', () => {
  const room = learnRoom(answer({ content: 'OK' }, counts(12, 11, 10)));
  const add = roomOf(10);

  it('goes on whichever limit key the body carries, keeping the body’s order, the body itself untouched', () => {
    const body = { messages: [], max_tokens: 16, temperature: 0 };
    expect(JSON.stringify(withRoom(body, room))).toBe(`{"messages":[],"max_tokens":${16 + add},"temperature":0}`);
    expect(body.max_tokens).toBe(16);
    expect(withRoom({ messages: [], max_completion_tokens: 64 }, room).max_completion_tokens).toBe(64 + add);
  });

  it('leaves a limit that is not a positive number to the probe that wrote it', () => {
    for (const v of [0, -5, '16', null]) expect(withRoom({ messages: [], max_tokens: v }, room).max_tokens).toBe(v);
  });

  it('is sent by a model’s caller on every request but raw and exact ones, and only once the smoke call showed reasoning', async () => {
    const sent: string[] = [];
    let answers: Exchange[] = [];
    const log = {
      send: (req: HttpRequest) => (sent.push(JSON.stringify(req.body)), Promise.resolve(answers.shift() ?? reply('OK'))),
      stream: (req: HttpRequest) => (sent.push(JSON.stringify(req.body)), Promise.resolve(reply('OK'))),
    } as unknown as CallLog;
    const plainModel = new ModelCaller(log, 'plain');
    await plainModel.smoke(undefined);
    await plainModel.chat({ messages: [], max_tokens: 16 }, 'p');
    const thinker = new ModelCaller(log, 'thinker');
    answers = [answer({ content: 'OK', reasoning_content: 'One word.' }, counts(12, 11, 10))];
    await thinker.smoke(undefined);
    await thinker.chat({ messages: [], max_tokens: 16 }, 'p');
    await thinker.stream({ messages: [], max_tokens: 48 }, 'p');
    await thinker.chat({ messages: [], max_tokens: 5 }, 'p', { raw: true });
    await thinker.chat({ messages: [], max_tokens: 16 }, 'p', { exact: true, once: true });
    expect(sent.slice(1)).toEqual([
      '{"model":"plain","messages":[],"max_tokens":16}',
      '{"model":"thinker","messages":[{"role":"user","content":"Reply with the single word OK."}]}',
      `{"model":"thinker","messages":[],"max_tokens":${16 + add}}`,
      `{"model":"thinker","messages":[],"max_tokens":${48 + add},"stream":true}`,
      '{"model":"thinker","messages":[],"max_tokens":5}',
      '{"model":"thinker","messages":[],"max_tokens":16}',
    ]);
  });

  it('keeps the room when a model that refuses max_tokens gets its limit as max_completion_tokens', async () => {
    const sent: string[] = [];
    const answers: Exchange[] = [answer({ content: 'OK' }, counts(12, 11, 10)), refused(400, "Unsupported parameter: 'max_tokens'", { param: 'max_tokens' })];
    const log = { send: (req: HttpRequest) => (sent.push(JSON.stringify(req.body)), Promise.resolve(answers.shift() ?? reply('OK'))) } as unknown as CallLog;
    const caller = new ModelCaller(log, 'o-series');
    await caller.smoke(undefined);
    await caller.chat({ messages: [], max_tokens: 16 }, 'p');
    await caller.chat({ messages: [], max_tokens: 16 }, 'p');
    expect(sent.slice(1)).toEqual([
      `{"model":"o-series","messages":[],"max_tokens":${16 + add}}`,
      `{"model":"o-series","messages":[],"max_completion_tokens":${16 + add}}`,
      `{"model":"o-series","messages":[],"max_completion_tokens":${16 + add}}`,
    ]);
  });

  it('remembers the calls sent with room that were cut anyway, not those sent as written', async () => {
    const cut = () => answer({ content: 'The tool says', reasoning_content: 'step' }, counts(10, 16, 4), 'length');
    let next: Exchange = answer({ content: 'OK', reasoning_content: 'One word.' }, counts(12, 11, 10));
    const log = { send: () => Promise.resolve(next) } as unknown as CallLog;
    const caller = new ModelCaller(log, 'thinker');
    await caller.smoke(undefined);
    next = cut();
    const roomy = await caller.chat({ messages: [], max_tokens: 16 }, 'p');
    next = cut();
    const exact = await caller.chat({ messages: [], max_tokens: 5 }, 'p', { raw: true });
    expect(caller.cutShort([roomy.callId])).toBe(true);
    expect(caller.cutShort([exact.callId])).toBe(false);
  });
});

describe('an inconclusive cell cut by the limit says what room it had', () => {
  // The tool result's answer, cut before the code: no evidence the code is missing (rules 2 and 3).
  const cutAnswer = answer({ content: 'The tool says: Paris, 17, QX-', reasoning_content: 'step step' }, counts(20, 16, 6), 'length');
  const judged = judgeRecall(cutAnswer, undefined, ['QX-93'], reply('OK'), 'a tool result', ['tool']);

  it('stays inconclusive, and says no room was added when the smoke call was cut or failed', () => {
    expect(judged.verdict).toBe('inconclusive');
    const room = learnRoom(answer({ content: '', reasoning_content: 'The user asks' }, counts(10, 16, 16), 'length'));
    const v = noteRoom(judged, true, room);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toBe(judged.observed);
    expect(v.findings).toEqual([expect.objectContaining({ code: 'reasoning_room', message: expect.stringMatching(/no room for reasoning was added to that limit: the smoke call shows reasoning .* cut by a limit/) })]);
    const failed = noteRoom(judged, true, learnRoom(refused(400, 'no')));
    expect(failed.findings![0]!.message).toMatch(/no readable answer/);
  });

  it('says how much room the limit had when it was cut anyway, the cap included', () => {
    const v = noteRoom(judged, true, learnRoom(answer({ content: 'OK' }, counts(10, 11, 1e9))));
    expect(v.findings![0]!.message).toMatch(new RegExp(`carried ${ROOM_CAP} tokens of room .*capped at ${ROOM_CAP}`));
    expect(noteRoom(judged, true, learnRoom(answer({ content: 'OK' }, counts(10, 11, 10)))).findings![0]!.message).toMatch(new RegExp(`carried ${roomOf(10)} tokens of room`));
  });

  it('adds nothing for a model with no reasoning, a cell not cut, or a decided verdict', () => {
    expect(noteRoom(judged, true, NO_ROOM)).toBe(judged);
    expect(roomFinding(NO_ROOM)).toBeUndefined();
    const room = learnRoom(refused(400, 'no'));
    expect(noteRoom(judged, false, room)).toBe(judged);
    const honoured = { verdict: 'honoured' as const, observed: 'x' };
    expect(noteRoom(honoured, true, room)).toBe(honoured);
  });
});

describe('answers whose whole limit the reasoning took (no room learnt) are no evidence of absence', () => {
  it('streaming.basic: a stream cut before any content is inconclusive, not a stream without content', () => {
    const cut = streamed([delta({ role: 'assistant', content: '' }), delta({ reasoning_content: 'step ' }), delta({ reasoning_content: 'step' }), delta({}, 'length')]);
    const v = judgeBasicStream(cut);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/cut by the output limit chatprobe sends before any content came \(9 characters of reasoning in delta\.reasoning_content before it\)/);
    // Ended on its own with everything in the reasoning field: the content is missing (a gateway's mix-up).
    const misrouted = streamed([delta({ role: 'assistant', content: '' }), delta({ reasoning_content: '1, 2, 3' }), delta({}, 'stop')]);
    expect(judgeBasicStream(misrouted).verdict).toBe('fail');
    expect(judgeBasicStream(streamed([delta({ role: 'assistant', content: '1, 2' }), delta({}, 'length')])).verdict).toBe('pass');
    // Ended with "stop" before any content and nothing in a reasoning field: a model that answered nothing
    // (llama-server's sampled stream whose first token ends the turn), not a stream that lost its content.
    const nothing = judgeBasicStream(streamed([delta({ role: 'assistant', content: '' }), delta({}, 'stop')]));
    expect(nothing.verdict).toBe('inconclusive');
    expect(nothing.observed).toContain('ended with finish_reason "stop" before any content');
    // No end at all is still a failure, content or not.
    expect(judgeBasicStream(streamed([delta({ role: 'assistant', content: '' })], { done: false })).verdict).toBe('fail');
  });

  it('parameters.logprobs: no content token and no entry is inconclusive; content without entries is still ignored', () => {
    const thought = answer({ content: '', reasoning_content: 'step step', logprobs: undefined }, counts(10, 16, 16), 'length');
    const body = JSON.parse(thought.text) as { choices: Record<string, unknown>[] };
    body.choices[0]!.logprobs = { content: [] };
    const v = judgeLogprobs(raw(200, JSON.stringify(body)), reply('OK'));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/no content token to carry one: cut by the output limit chatprobe sends/);
    expect(judgeLogprobs(reply('OK', { logprobs: { content: [] } }), reply('OK')).verdict).toBe('ignored');
  });
});
