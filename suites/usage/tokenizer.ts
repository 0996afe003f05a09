import { defineProbe } from '../../src/engine/probe.js';
import { judgeTokenizer, SERIES_SHARED, seriesOf } from '../support/usage.js';

export default defineProbe({
  id: 'usage.tokenizer',
  area: 'usage',
  kind: 'conformance',
  requirement:
    "prompt_tokens are a tokenizer's exact count of the prompt (every copy of a text unit adds the same tokens: TrueLLMs' slope), and the tokenizer is the family the model's name claims.",
  verdicts: ['pass', 'warn', 'inconclusive'],
  // One one-token request; the smoke call, the instruction in a user message and
  // the greedy counting request are sent anyway, and read as points of known texts.
  cost: { requests: 0, maxTokens: 0, shared: SERIES_SHARED },
  run: async (ctx) => judgeTokenizer(ctx.model, await seriesOf(ctx)),
});
