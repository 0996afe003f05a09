import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import { countingPrompt, numbersIn, user } from '../support/prompts.js';

const LIMIT = 5;
// Counting to 30 needs at least 59 tokens (30 numbers and 29 commas), far above the limit, so an answer
// that stops on its own cannot be mistaken for a truncated one.
const COUNT_TO = 30;

export default defineProbe({
  id: 'parameters.max_tokens',
  area: 'parameters',
  kind: 'capability',
  requirement: 'max_tokens limits the length of the output.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMIT },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user(countingPrompt(COUNT_TO))], max_tokens: LIMIT });
    if (!x.ok) return refusal(x, ctx.control(), `max_tokens: ${LIMIT}`);
    const choice = readChoices(x.json)[0];
    if (!choice) return inconclusive('expected a choice to measure, got none');
    const numbers = numbersIn(choice.content ?? '').length;
    const tokens = x.usage?.completionTokens;
    const seen = `finish_reason ${JSON.stringify(choice.finishReason)}, ${tokens ?? 'no'} completion tokens reported, ${numbers} numbers written`;
    // Each number is at least one token in any tokenizer we know, so twice the limit in numbers proves the
    // limit was passed whether or not usage is reported (the factor 2 leaves room for odd vocabularies).
    if (numbers > 2 * LIMIT) return ignored(`expected at most ${LIMIT} tokens, got ${seen}`);
    if (choice.finishReason === 'length') return honoured(`expected at most ${LIMIT} tokens, cut with "length"; got ${seen}`);
    if (tokens !== undefined && tokens > LIMIT) return ignored(`expected at most ${LIMIT} tokens, got ${seen}`);
    return inconclusive(`expected a cut at ${LIMIT} tokens, got ${seen}: the answer ended on its own near the limit`);
  },
});
