import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { accepted } from '../../src/engine/verdicts.js';
import { judgeAcceptance } from '../support/params.js';
import { LIMITS, user } from '../support/prompts.js';
import { describePlace, reasoningOf } from '../support/reasoning.js';

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
    const place = reasoningOf(x).place;
    return accepted(`reasoning_effort: "low" accepted with HTTP ${x.status}; reasoning ${place ? `in ${describePlace(place)}` : 'not shown'}`);
  },
});
