import { defineProbe } from '../../src/engine/probe.js';
import { GREEDY_COUNT } from '../support/length.js';
import { judgeCompletion, SERIES_SHARED, seriesOf } from '../support/usage.js';

export default defineProbe({
  id: 'usage.completion',
  area: 'usage',
  kind: 'conformance',
  requirement:
    'completion_tokens count the answer as the tokenizer that counts the prompt counts its text (reasoning tokens apart): a known text, the counting answer, is not reported at a multiple of its tokens.',
  verdicts: ['pass', 'warn', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: SERIES_SHARED },
  run: async (ctx) => judgeCompletion(await seriesOf(ctx), (await ctx.shared(GREEDY_COUNT)).x, ctx.control()),
});
