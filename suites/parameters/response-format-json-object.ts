import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { describeAnswer, PROSE_BASELINE, readJson } from '../support/json-answer.js';
import { contentOf, emptyContent, unreadable } from '../support/params.js';
import { PROSE_PROMPT, user } from '../support/prompts.js';

export default defineProbe({
  id: 'parameters.response_format.json_object',
  area: 'parameters',
  kind: 'capability',
  requirement: 'response_format {type: "json_object"} makes the content a JSON object, even for a prompt that invites prose.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 20, shared: [PROSE_BASELINE] },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user(PROSE_PROMPT)], response_format: { type: 'json_object' } });
    if (!x.ok) return refusal(x, ctx.control(), 'response_format json_object', 'response_format');
    const none = unreadable(x) ?? emptyContent(x);
    if (none) return none;
    const got = readJson(contentOf(x));
    if (got.kind === 'json' && typeof got.value === 'object' && got.value !== null && !Array.isArray(got.value)) {
      const baseline = await ctx.shared(PROSE_BASELINE);
      // If the model answers this prompt in JSON anyway, JSON here proves nothing about the parameter.
      const plain = baseline.ok ? readJson(contentOf(baseline)) : undefined;
      if (plain?.kind === 'json') return inconclusive(`the answer is a JSON object, but so is the answer without response_format (${describeAnswer(baseline)})`);
      return honoured(`expected a JSON object instead of prose; got ${describeAnswer(x)}`);
    }
    // Prose or fenced JSON is what breaks JSON.parse in every client: the key failure.
    const what = got.kind === 'json' ? 'JSON that is not an object' : got.kind === 'fenced' ? 'JSON inside a Markdown fence' : 'prose';
    return ignored(`expected a bare JSON object, got ${what}: ${describeAnswer(x)}`);
  },
});
