import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, note, unjudgeable, warn } from '../../src/engine/verdicts.js';
import { isObject } from '../../src/wire/json.js';

/** How the answer's `model` relates to the one requested. */
export function compareModel(requested: string, answered: string): 'exact' | 'snapshot' | 'prefix' | 'different' {
  if (answered === requested) return 'exact';
  // gpt-4o → gpt-4o-2024-08-06: a dated snapshot of the alias asked for.
  if (answered.startsWith(`${requested}-`) || requested.startsWith(`${answered}-`)) return 'snapshot';
  // openai/gpt-4o → gpt-4o: a gateway's provider prefix, dropped or added.
  const tail = (s: string) => s.slice(s.lastIndexOf('/') + 1);
  if (tail(answered) === tail(requested)) return 'prefix';
  return 'different';
}

export default defineProbe({
  id: 'chat.model_echo',
  area: 'chat',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'The answer names the model that produced it: the one requested, or a dated snapshot of it.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx chat completion');
    if (unusable) return unusable;
    const answered = isObject(x.json) ? x.json.model : undefined;
    if (typeof answered !== 'string' || answered === '') {
      return conformance([fail('missing', `expected "model" in the answer, got ${JSON.stringify(answered ?? null)}`)], '');
    }
    const relation = compareModel(ctx.model, answered);
    const seen = `requested ${JSON.stringify(ctx.model)}, answered ${JSON.stringify(answered)}`;
    if (relation === 'different') return conformance([warn('different', `${seen}: an alias, or a silent substitution`)], '');
    return conformance(relation === 'exact' ? [] : [note(relation, seen)], seen);
  },
});
