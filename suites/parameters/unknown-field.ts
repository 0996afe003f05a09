import { defineProbe } from '../../src/engine/probe.js';
import { judgeAcceptance } from '../support/params.js';
import { carried, PARAMS_TOGETHER, withOthers } from '../support/together.js';

export default defineProbe({
  id: 'parameters.unknown_field',
  area: 'parameters',
  kind: 'capability',
  requirement:
    'An unknown top-level field is accepted or refused: this calibrates every other "accepted" (a server that accepts anything accepts what it ignores).',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  // The smoke prompt with it, in one request with the other parameters of PARAMS_TOGETHER.
  cost: { requests: 0, maxTokens: 0, shared: [PARAMS_TOGETHER] },
  async run(ctx) {
    const c = await carried(ctx, 'unknown_field');
    const v = withOthers(judgeAcceptance(c.x, ctx.control(), 'chatprobe_unknown_field: true', 'chatprobe_unknown_field'), c, 'unknown_field');
    if (v.verdict === 'accepted') v.observed += ': this endpoint accepts fields it does not know, so "accepted" elsewhere does not mean "recognised"';
    if (v.verdict === 'rejected') v.observed += ': this endpoint validates fields, so "accepted" elsewhere means "recognised"';
    return v;
  },
});
