import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/exchange.js';
import type { ChatBody, ProbeContext } from '../../src/engine/probe.js';
import { ownersOf, sendTogether, TOGETHER, withOthers, type TogetherParam } from '../../suites/support/together.js';
import { judgeAcceptance } from '../../suites/support/params.js';
import { judgeN } from '../../suites/parameters/n.js';
import { judgeLogprobs } from '../../suites/parameters/logprobs.js';
import { errorIn200, raw, refused, reply } from '../helpers/exchanges.js';
import { FORMS_TOGETHER } from '../../suites/support/roles.js';

const ALL = Object.keys(TOGETHER) as TogetherParam[];
const names = (p: TogetherParam) => TOGETHER[p].names;
const ok = reply('OK', { usage: [14, 1] });

/** A server that refuses the first parameter of `refuses` the body carries, naming it (or not), and answers otherwise. */
function server(refuses: readonly string[], o: { named?: boolean; answer?: (body: ChatBody) => Exchange } = {}) {
  const sent: ChatBody[] = [];
  const ctx = {
    chat: async (body: ChatBody) => {
      sent.push(body);
      const hit = refuses.find((p) => p in body);
      if (hit) return o.named === false ? refused(400, 'Unsupported request.', { param: null }) : refused(400, `Unsupported parameter: '${hit}'.`, { param: hit });
      return o.answer ? o.answer(body) : reply('OK', { usage: [14, 1] });
    },
  } as unknown as ProbeContext;
  return { ctx, sent };
}

describe('parameters sent together (one answer, several judgements)', () => {
  it('sends one request where the server takes them all, and every parameter is judged by that answer', async () => {
    const { ctx, sent } = server([]);
    const got = await sendTogether(ctx, ALL);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ n: 2, logprobs: true, top_logprobs: 2, presence_penalty: 0.5, frequency_penalty: 0.5, reasoning_effort: 'low' });
    for (const p of ALL) expect(got.get(p)!.with).toEqual(ALL);
  });

  it('gives a refusal to the parameter it names, and sends the rest again without it', async () => {
    const { ctx, sent } = server(['logprobs']);
    const got = await sendTogether(ctx, ALL);
    expect(sent).toHaveLength(2);
    expect(sent[1]).not.toHaveProperty('logprobs');
    expect(sent[1]).not.toHaveProperty('top_logprobs');
    expect(got.get('logprobs')!.x.ok).toBe(false);
    expect(judgeLogprobs(got.get('logprobs')!.x, ok).verdict).toBe('rejected');
    for (const p of ['n', 'presence_penalty', 'frequency_penalty', 'reasoning_effort'] as const) expect(got.get(p)!.x.ok).toBe(true);
    expect(judgeAcceptance(got.get('presence_penalty')!.x, ok, 'presence_penalty: 0.5', 'presence_penalty').verdict).toBe('accepted');
  });

  it('peels refusals one by one: every refused parameter has its own, the others an answer', async () => {
    const { ctx, sent } = server(['n', 'presence_penalty']);
    const got = await sendTogether(ctx, ALL);
    expect(sent).toHaveLength(3);
    expect(judgeN(got.get('n')!.x, ok).verdict).toBe('rejected');
    expect(judgeAcceptance(got.get('presence_penalty')!.x, ok, 'presence_penalty: 0.5', 'presence_penalty').verdict).toBe('rejected');
    expect(judgeAcceptance(got.get('frequency_penalty')!.x, ok, 'frequency_penalty: 0.5', 'frequency_penalty').verdict).toBe('accepted');
  });

  it('trap: a refusal that names none of them is nobody\'s: each parameter is sent alone', async () => {
    const { ctx, sent } = server(['frequency_penalty'], { named: false });
    const got = await sendTogether(ctx, ALL);
    expect(sent).toHaveLength(1 + ALL.length);
    for (const body of sent.slice(1)) expect(Object.keys(body).filter((k) => !['messages', 'max_tokens'].includes(k)).length).toBeLessThanOrEqual(2);
    expect(got.get('frequency_penalty')!.with).toEqual(['frequency_penalty']);
    expect(got.get('frequency_penalty')!.x.ok).toBe(false);
    expect(got.get('n')!.x.ok).toBe(true);
  });

  it('a failure that is no refusal (a 5xx, a timeout) is every parameter\'s, as it would have been apart; an error body in a 200 too', () => {
    const fiveHundred = { ...raw(503, '{"error":{"message":"overloaded"}}'), cause: 'upstream' as const };
    expect(ownersOf(fiveHundred, ALL, names)).toBe('all');
    expect(ownersOf(errorIn200(), ALL, names)).toBe('all');
    expect(ownersOf(refused(400, 'bad request', { param: null }), ALL, names)).toBe('none');
    expect(ownersOf(refused(400, "'top_logprobs' must be at most 0", { param: null }), ALL, names)).toEqual(['logprobs']);
  });

  it('says in the cell which other parameters its answer carried', () => {
    const v = withOthers({ verdict: 'accepted', observed: 'presence_penalty: 0.5 accepted with HTTP 200' }, { x: ok, with: ['n', 'presence_penalty'] }, 'presence_penalty');
    expect(v.observed).toBe('presence_penalty: 0.5 accepted with HTTP 200 (one request with n too: an answer is evidence for each parameter it carried)');
    expect(withOthers({ verdict: 'accepted', observed: 'x' }, { x: ok, with: ['n'] }, 'n').observed).toBe('x');
  });
});

describe('message forms sent together (roles.name, roles.consecutive_user)', () => {
  it('sends a named user message before another user message, and each form is judged by the answer', async () => {
    const sent: ChatBody[] = [];
    const ctx = { chat: async (b: ChatBody) => (sent.push(b), reply('OK')) } as unknown as ProbeContext;
    const got = await FORMS_TOGETHER.make(ctx);
    expect(sent).toEqual([{ messages: [{ role: 'user', name: 'alice', content: 'Hello.' }, { role: 'user', content: 'Reply with the single word OK.' }], max_tokens: 16 }]);
    expect(got.get('name')!.with).toEqual(['name', 'consecutive_user']);
  });

  it('gives a template\'s "roles must alternate" to two user messages in a row, and sends the name alone', async () => {
    const sent: ChatBody[] = [];
    const ctx = {
      chat: async (b: ChatBody) => {
        sent.push(b);
        return b.messages.length > 1 ? refused(400, 'Conversation roles must alternate user/assistant/user/assistant/...', { param: null }) : reply('OK');
      },
    } as unknown as ProbeContext;
    const got = await FORMS_TOGETHER.make(ctx);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual({ messages: [{ role: 'user', name: 'alice', content: 'Reply with the single word OK.' }], max_tokens: 16 });
    expect(got.get('consecutive_user')!.x.ok).toBe(false);
    expect(got.get('name')!.x.ok).toBe(true);
  });
});

