import { defineProbe } from '../../src/engine/probe.js';
import { SYSTEM_RULE } from '../support/roles.js';
import { judgeOverhead, SERIES_SHARED, seriesOf } from '../support/usage.js';

export default defineProbe({
  id: 'usage.prompt_overhead',
  area: 'usage',
  kind: 'conformance',
  requirement:
    "prompt_tokens count what the client sent under the model's chat template: no prompt is added unseen and billed (an overhead hundreds of tokens above the family's known templates, there with or without the client's own system message).",
  verdicts: ['pass', 'fail', 'inconclusive'],
  // roles.system's request is the control: it brings a system message of its own.
  cost: { requests: 0, maxTokens: 0, shared: [...SERIES_SHARED, SYSTEM_RULE] },
  run: async (ctx) => judgeOverhead(await seriesOf(ctx), await ctx.shared(SYSTEM_RULE)),
});
