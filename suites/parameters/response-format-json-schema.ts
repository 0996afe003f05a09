import { Ajv2020 } from 'ajv/dist/2020.js';
import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { describeAnswer, readJson, PROSE_BASELINE } from '../support/json-answer.js';
import { contentOf, emptyContent, unreadable } from '../support/params.js';
import { PROSE_PROMPT, SKY_SCHEMA, user } from '../support/prompts.js';

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(SKY_SCHEMA);

export default defineProbe({
  id: 'parameters.response_format.json_schema',
  area: 'parameters',
  kind: 'capability',
  requirement: 'response_format {type: "json_schema", strict: true} makes the content JSON that validates against the schema, even for a prompt that invites prose.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 20, shared: [PROSE_BASELINE] },
  async run(ctx) {
    const x = await ctx.chat({
      messages: [user(PROSE_PROMPT)],
      response_format: { type: 'json_schema', json_schema: { name: 'sky_facts', strict: true, schema: SKY_SCHEMA } },
    });
    if (!x.ok) return refusal(x, ctx.control(), 'response_format json_schema', 'response_format');
    const none = unreadable(x) ?? emptyContent(x);
    if (none) return none;
    const got = readJson(contentOf(x));
    if (got.kind !== 'json') {
      return ignored(`expected JSON matching the schema, got ${got.kind === 'fenced' ? 'JSON inside a Markdown fence' : 'prose'}: ${describeAnswer(x)}`);
    }
    if (!validate(got.value)) {
      const why = (validate.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message}`).slice(0, 3).join('; ');
      return ignored(`expected JSON matching the schema, got JSON that does not (${why}): ${describeAnswer(x)}`);
    }
    const baseline = await ctx.shared(PROSE_BASELINE);
    const plain = baseline.ok ? readJson(contentOf(baseline)) : undefined;
    if (plain?.kind === 'json' && validate(plain.value)) {
      return inconclusive(`the answer matches the schema, but so does the answer without response_format (${describeAnswer(baseline)})`);
    }
    return honoured(`expected JSON matching the schema instead of prose; got ${describeAnswer(x)}`);
  },
});
