import { defineProbe } from '../../src/engine/probe.js';
import { GREEDY_COUNT } from '../support/length.js';
import { judgeCompletion, USAGE_SERIES } from '../support/usage.js';

export default defineProbe({
  id: 'usage.completion',
  area: 'usage',
  kind: 'conformance',
  requirement:
    "completion_tokens count the answer as the tokenizer that counts the prompt counts its text (reasoning tokens apart): a known text, the counting answer, is not reported at a multiple of its tokens.",
  verdicts: ['pass', 'warn', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [USAGE_SERIES, GREEDY_COUNT] },
  run: async (ctx) => judgeCompletion(await ctx.shared(USAGE_SERIES), (await ctx.shared(GREEDY_COUNT)).x, ctx.control()),
});
