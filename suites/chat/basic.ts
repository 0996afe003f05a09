import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, unjudgeable, warn } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import type { Finding } from '../../src/results/model.js';

export default defineProbe({
  id: 'chat.basic',
  area: 'chat',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A plain chat request gets a 2xx JSON body from which a client reads the answer at choices[0].message.content.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  // Reads the model's smoke call (a plain non-stream request), so it costs nothing more.
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx chat completion');
    if (unusable) return unusable;
    const findings: Finding[] = [];
    if (x.json === undefined) {
      const hint = x.contentType.includes('html') ? ' (an HTML page: the base URL may be wrong)' : '';
      return conformance([fail('not_json', `expected a JSON body, got ${x.contentType || 'no content type'}${hint}`)], '');
    }
    const first = readChoices(x.json)[0];
    if (!first) {
      findings.push(fail('no_choice', 'expected choices[0].message, got no choice'));
    } else if (!first.content && first.toolCalls.length === 0) {
      findings.push(warn('empty_content', 'expected an answer in choices[0].message.content, got an empty one'));
    }
    return conformance(findings, `answer ${JSON.stringify((first?.content ?? '').slice(0, 40))} read from choices[0].message.content`);
  },
});
