import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { accepted } from '../../src/engine/verdicts.js';
import { judgeAcceptance } from '../support/params.js';
import { isObject } from '../../src/spec/stream.js';
import { LIMITS, user } from '../support/prompts.js';

/** Where an answer carries its reasoning text, if anywhere: the field names servers use, or <think> tags. */
export function reasoningPlace(json: unknown): string | undefined {
  const choice = isObject(json) && Array.isArray(json.choices) ? json.choices[0] : undefined;
  const message = isObject(choice) && isObject(choice.message) ? choice.message : undefined;
  if (!message) return undefined;
  for (const key of ['reasoning_content', 'reasoning', 'thinking']) {
    if (typeof message[key] === 'string' && message[key] !== '') return `message.${key}`;
  }
  if (typeof message.content === 'string' && /<think>/i.test(message.content)) return '<think> tags in message.content';
  return undefined;
}

export default defineProbe({
  id: 'parameters.reasoning_effort',
  area: 'parameters',
  kind: 'capability',
  requirement: 'reasoning_effort is accepted; where the reasoning text appears is recorded.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user(SMOKE_PROMPT)], reasoning_effort: 'low', max_tokens: LIMITS.word });
    const v = judgeAcceptance(x, ctx.control(), 'reasoning_effort: "low"', 'reasoning_effort');
    if (v.verdict !== 'accepted') return v;
    const place = reasoningPlace(x.json);
    return accepted(`reasoning_effort: "low" accepted with HTTP ${x.status}; reasoning text ${place ? `in ${place}` : 'not shown'}`);
  },
});
