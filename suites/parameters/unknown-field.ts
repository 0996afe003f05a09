import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.unknown_field',
  area: 'parameters',
  kind: 'capability',
  requirement:
    'An unknown top-level field is accepted or refused: this calibrates every other "accepted" (a server that accepts anything accepts what it ignores).',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  async run(ctx) {
    const v = await acceptance(ctx, 'chatprobe_unknown_field', { chatprobe_unknown_field: true });
    if (v.verdict === 'accepted') v.observed += ': this endpoint accepts fields it does not know, so "accepted" elsewhere does not mean "recognised"';
    if (v.verdict === 'rejected') v.observed += ': this endpoint validates fields, so "accepted" elsewhere means "recognised"';
    return v;
  },
});
