import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/exchange.js';
import type { ChatBody, ProbeContext, SharedExchange } from '../../src/engine/probe.js';
import { chatAlike, decideContrast, moreOf, sentAlike, type Repeatable } from '../../suites/support/contrast.js';
import { judgeRequired, judgeTools } from '../../suites/support/tools.js';
import { defineShared } from '../../src/engine/probe.js';
import { refused, reply } from '../helpers/exchanges.js';
import { honoured, inconclusive } from '../../src/engine/verdicts.js';
import { REPEATABLE } from '../../suites/support/repeat.js';
import { SAMPLES_SEED, SAMPLES_T0, SAMPLES_T1, SEED_DECISION, TEMPERATURE_DECISION } from '../../suites/support/sampling.js';

/**
 * The gate's settings travel with the contrasts' requests (suites/support/repeat.ts), and a server may
 * refuse them only there: temperature 0 together with tools, or with tool_choice. Then the refusal is not
 * the feature's (the same request without the settings is answered), and an answer sent without the
 * settings is a draw the gate says nothing of. A stub server: `answer` sees each body sent.
 */
function stubServer(answer: (body: ChatBody) => Exchange) {
  const sent: ChatBody[] = [];
  const made = new Map<string, Promise<unknown>>();
  const ctx = {
    chat: async (body: ChatBody) => {
      sent.push(body);
      return answer(body);
    },
    shared: <T>(s: SharedExchange<T>): Promise<T> => {
      if (!made.has(s.key)) made.set(s.key, s.make(ctx as unknown as ProbeContext));
      return made.get(s.key) as Promise<T>;
    },
  };
  return { ctx: ctx as unknown as ProbeContext, sent };
}

const REPEAT: Repeatable = { settings: { temperature: 0 }, sent: 'at temperature 0', why: 'temperature 0 repeats (test)' };
const ok = reply('OK', { usage: [14, 1] });
const paris = { name: 'get_weather', args: { city: 'Paris' } };
const weatherCalls = reply(null, { calls: [paris, { name: 'get_weather', args: { city: 'Tokyo' } }], usage: [90, 20] });
const noT0WithTools = refused(400, 'temperature 0 is not supported with tools', { param: 'temperature' });

const UNNEEDED: ChatBody = { messages: [{ role: 'user', content: 'Say OK.' }], tools: [{}], max_tokens: 20 };
const FORCED: ChatBody = { ...UNNEEDED, tool_choice: 'required' };


/** tool_choice "required"'s contrast as the probe runs it, both first requests sent alike where they can be (chatAlike). */
async function requiredContrast(ctx: Parameters<typeof chatAlike>[0]) {
  const first = await chatAlike(ctx, FORCED, REPEAT);
  const unneededFirst = await chatAlike(ctx, UNNEEDED, REPEAT);
  const unneeded = defineShared({ key: 'u', cost: { requests: 1, maxTokens: 1 }, make: async () => unneededFirst });
  return decideContrast(ctx, { first, body: FORCED }, { first: unneededFirst, more: moreOf(unneeded, UNNEEDED, 64) }, (xs, us, r) => judgeRequired(xs, us, weatherCalls, ok, r), REPEAT);
}

describe('the gate\'s settings sent with a contrast\'s requests', () => {
  it('trap: temperature 0 refused only together with tools is sent again without it, and the tools are not called rejected', async () => {
    const { ctx, sent } = stubServer((b) => (b.temperature === 0 && b.tools ? noT0WithTools : reply(null, { calls: [paris], usage: [90, 10] })));
    const x = await chatAlike(ctx, UNNEEDED, REPEAT);
    expect(sent.map((b) => b.temperature)).toEqual([0, undefined]);
    expect(x.ok).toBe(true);
    expect(sentAlike(x, REPEAT)).toBe(false);
    expect(judgeTools(x, x, x, ok).verdict).toBe('honoured');
  });

  it('an answer taken with the settings is marked so; none is sent again where the refusal is a 5xx or there is no gate', async () => {
    const { ctx, sent } = stubServer(() => reply('OK', { usage: [14, 1] }));
    const x = await chatAlike(ctx, UNNEEDED, REPEAT);
    expect(sent[0]!.temperature).toBe(0);
    expect(sentAlike(x, REPEAT)).toBe(true);
    const plain = await chatAlike(ctx, UNNEEDED, undefined);
    expect(sent[1]!.temperature).toBeUndefined();
    expect(sentAlike(plain, REPEAT)).toBe(false);
    const down = stubServer(() => refused(503, 'overloaded'));
    await chatAlike(down.ctx, UNNEEDED, REPEAT);
    expect(down.sent).toHaveLength(1);
  });

  it('trap: temperature 0 refused only with tool_choice: not rejected, and one answer a side does not decide (the sides were not sent alike)', async () => {
    // The server ignores tool_choice; its model calls the tool on the unneeded prompt at random (here: at
    // temperature 1 it calls, at 0 it does not). The forced side is refused at 0 and answered without it.
    const { ctx, sent } = stubServer((b) => {
      if (b.temperature === 0 && b.tool_choice) return refused(400, 'temperature 0 is not supported with tool_choice', { param: 'temperature' });
      return b.temperature === 0 ? ok : reply(null, { calls: [paris], usage: [90, 10] });
    });
    const v = await requiredContrast(ctx);
    expect(v.verdict).not.toBe('rejected');
    expect(v.verdict).not.toBe('honoured');
    // Every answer judged without the gate was sent without its settings.
    expect(sent.filter((b) => b.temperature === 0)).toHaveLength(2);
  });

  it('trap: with the sides not alike, the chance bound counts only answers sent alike (the answer at 0 is not one of its draws)', async () => {
    // The model answers text without tool_choice, and calls under it, at temperature 1: honoured needs two
    // answers with it and three without, all at temperature 1; the one answer at 0 is not among them.
    const { ctx, sent } = stubServer((b) => {
      if (b.temperature === 0 && b.tool_choice) return refused(400, 'temperature 0 is not supported with tool_choice', { param: 'temperature' });
      return b.tool_choice ? reply(null, { calls: [paris], usage: [90, 10] }) : reply('OK', { usage: [14, 1] });
    });
    const v = await requiredContrast(ctx);
    expect(v.verdict).toBe('honoured');
    expect(v.observed).toContain('2 with it and 3 without');
    const withoutAt1 = sent.filter((b) => !b.tool_choice && b.temperature === undefined);
    expect(withoutAt1).toHaveLength(3);
  });

  it('trap: both sides refused at 0 and answered without it: the gate is not read (one answer a side is 25%)', async () => {
    const { ctx } = stubServer((b) => {
      if (b.temperature === 0) return noT0WithTools;
      return b.tool_choice ? reply(null, { calls: [paris], usage: [90, 10] }) : reply('OK', { usage: [14, 1] });
    });
    const v = await requiredContrast(ctx);
    expect(v.verdict).toBe('honoured');
    expect(v.observed).not.toContain('one answer a side');
    expect(v.observed).toContain('2 with it and 3 without');
  });
});

describe('the gate reads the sampling probes\' own decisions', () => {
  /** A context whose shared exchanges are given: a decision made already, sets full already. */
  function givenShared(given: Map<string, unknown>) {
    const made = new Map<string, Promise<unknown>>([...given].map(([k, v]) => [k, Promise.resolve(v)]));
    const ctx = {
      options: { samples: 3 },
      control: () => ok,
      planned: () => true,
      sequence: (fn: (slot: object) => Promise<unknown>) => fn({}),
      chat: async () => {
        throw new Error('nothing is sent: every set is full');
      },
      shared: <T>(s: SharedExchange<T>): Promise<T> => {
        if (!made.has(s.key)) made.set(s.key, s.make(ctx as unknown as ProbeContext));
        return made.get(s.key) as Promise<T>;
      },
    };
    return ctx as unknown as ProbeContext;
  }
  const set = (xs: Exchange[]) => ({ samples: xs, atLeast: async () => xs });

  it('trap: where parameters.temperature decided inconclusive (its sets read at another moment), the gate does not call temperature 0 repeating on a later look', async () => {
    // The sets as they stand now would pass (four distinct at 1, three alike at 0: 1/35); the cell's
    // decision, taken when the baseline was smaller, was not honoured. One decision, read by both.
    const t1 = ['12', '57', '803', '4411'].map((t) => reply(t));
    const t0 = ['777', '777', '777'].map((t) => reply(t));
    const ctx = givenShared(
      new Map<string, unknown>([
        [SAMPLES_T1.key, set(t1)],
        [SAMPLES_T0.key, set(t0)],
        [TEMPERATURE_DECISION.key, inconclusive('agreement this likely by chance (up to 5.0%)')],
        [SEED_DECISION.key, inconclusive('seed not judged here')],
        [SAMPLES_SEED.key, set([])],
      ]),
    );
    expect(await REPEATABLE.make(ctx)).toBeUndefined();
    // And where the cell's decision is honoured, the gate takes it.
    const yes = givenShared(
      new Map<string, unknown>([
        [SAMPLES_T1.key, set(t1)],
        [SAMPLES_T0.key, set(t0)],
        [TEMPERATURE_DECISION.key, honoured('alike')],
        [SEED_DECISION.key, inconclusive('seed not judged here')],
        [SAMPLES_SEED.key, set([])],
      ]),
    );
    expect((await REPEATABLE.make(yes))?.settings).toEqual({ temperature: 0 });
  });
});
