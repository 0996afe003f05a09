import { defineProbe } from '../../src/engine/probe.js';
import { BALANCE_ROUTES } from '../../src/billing/find.js';
import { USAGE_SERIES } from '../support/usage.js';
import { judgeStreamBilling, METERED_SET } from '../support/billing.js';

export default defineProbe({
  id: 'billing.stream',
  area: 'billing',
  kind: 'conformance',
  requirement: 'A streamed request is billed as the same request unstreamed, as far as their reported usage allows.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [METERED_SET] },
  // Read around each billed call, the balance must move for nothing else: after every other probe, alone.
  schedule: 'alone',
  meter: BALANCE_ROUTES,
  // The usage series, where the usage probes made it: the plain call's and the stream's tokens as the tokenizer it names counts them.
  reads: [USAGE_SERIES],
  async run(ctx) {
    return judgeStreamBilling(await ctx.shared(METERED_SET));
  },
});
