import { defineProbe } from '../../src/engine/probe.js';
import { judgeTokenizer, USAGE_SERIES } from '../support/usage.js';

export default defineProbe({
  id: 'usage.tokenizer',
  area: 'usage',
  kind: 'conformance',
  requirement:
    "prompt_tokens are a tokenizer's exact count of the prompt (every copy of a text unit adds the same tokens: TrueLLMs' slope), and the tokenizer is the family the model's name claims.",
  verdicts: ['pass', 'warn', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [USAGE_SERIES] },
  run: async (ctx) => judgeTokenizer(ctx.model, await ctx.shared(USAGE_SERIES)),
});
