import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, unjudgeable } from '../../src/engine/verdicts.js';
import { errorIn2xx } from '../../src/wire/completion.js';
import { isObject } from '../../src/wire/json.js';

export default defineProbe({
  id: 'chat.error_in_2xx',
  area: 'chat',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A 2xx answer is never an error in disguise: no "error" member, no "success": false.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx chat completion');
    if (unusable) return unusable;
    const problem = errorIn2xx(x.json);
    // A body that is no JSON object carries no error member, and no answer either: chat.basic says what it is.
    if (!problem && !isObject(x.json)) return { verdict: 'inconclusive', observed: `HTTP ${x.status} with ${x.json === undefined ? 'a body that is not JSON' : 'JSON that is not an object'}: no error member to look for, and no answer (see chat.basic)` };
    return conformance(problem ? [fail('error_in_2xx', `HTTP ${x.status}, but ${problem}`)] : [], `HTTP ${x.status} with an answer, no error member`);
  },
});
