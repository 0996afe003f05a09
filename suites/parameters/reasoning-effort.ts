import { defineProbe } from '../../src/engine/probe.js';
import { accepted } from '../../src/engine/verdicts.js';
import { judgeAcceptance } from '../support/params.js';
import { carried, PARAMS_TOGETHER, withOthers } from '../support/together.js';
import { describePlace, reasoningOf } from '../support/reasoning.js';

export default defineProbe({
  id: 'parameters.reasoning_effort',
  area: 'parameters',
  kind: 'capability',
  requirement: 'reasoning_effort is accepted; where the reasoning text appears is recorded.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  // The smoke prompt with it, in one request with the other parameters of PARAMS_TOGETHER.
  cost: { requests: 0, maxTokens: 0, shared: [PARAMS_TOGETHER] },
  async run(ctx) {
    const c = await carried(ctx, 'reasoning_effort');
    const { x } = c;
    const v = judgeAcceptance(x, ctx.control(), 'reasoning_effort: "low"', 'reasoning_effort');
    if (v.verdict !== 'accepted') return withOthers(v, c, 'reasoning_effort');
    const place = reasoningOf(x).place;
    return withOthers(accepted(`reasoning_effort: "low" accepted with HTTP ${x.status}; reasoning ${place ? `in ${describePlace(place)}` : 'not shown'}`), c, 'reasoning_effort');
  },
});
