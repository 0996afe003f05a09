import { defineProbe } from '../../src/engine/probe.js';
import { judgeAcceptance } from '../support/params.js';
import { carried, PARAMS_TOGETHER, withOthers } from '../support/together.js';

export default defineProbe({
  id: 'parameters.presence_penalty',
  area: 'parameters',
  kind: 'capability',
  requirement: 'presence_penalty is accepted (its effect on repetition is not cheaply observable).',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  // The smoke prompt with it, in one request with the other parameters of PARAMS_TOGETHER.
  cost: { requests: 0, maxTokens: 0, shared: [PARAMS_TOGETHER] },
  async run(ctx) {
    const c = await carried(ctx, 'presence_penalty');
    return withOthers(judgeAcceptance(c.x, ctx.control(), 'presence_penalty: 0.5', 'presence_penalty'), c, 'presence_penalty');
  },
});
