import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, warn } from '../../src/engine/verdicts.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.role_first',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'The first delta carries role "assistant", and later deltas carry no role.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const unusable = unusableStream(x, 'the delta roles');
    if (unusable) return unusable;
    const choice = x.assembled!.choices.get(0);
    if (!choice) return conformance([fail('no_choice', 'expected deltas for choice 0, got none')], '');
    const roles = choice.roles;
    if (roles.length === 0) return conformance([warn('missing', 'expected role "assistant" in the first delta, got no role at all')], '');
    if (roles[0] !== 'assistant') return conformance([fail('wrong_role', `expected role "assistant", got ${JSON.stringify(roles[0])}`)], '');
    if (roles.length > 1) return conformance([warn('repeated', `expected the role once, got it in ${roles.length} deltas`)], '');
    return conformance([], 'role "assistant" in the first delta only');
  },
});
