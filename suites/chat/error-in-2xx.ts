import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, unjudgeable } from '../../src/engine/verdicts.js';
import { errorIn2xx } from '../../src/spec/completion.js';

export default defineProbe({
  id: 'chat.error_in_2xx',
  area: 'chat',
  kind: 'conformance',
  requirement: 'A 2xx answer is never an error in disguise: no "error" member, no "success": false.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx chat completion');
    if (unusable) return unusable;
    const problem = errorIn2xx(x.json);
    return conformance(problem ? [fail('error_in_2xx', `HTTP ${x.status}, but ${problem}`)] : [], `HTTP ${x.status} with an answer, no error member`);
  },
});
