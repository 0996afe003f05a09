import type { ProbeContext, ProbeVerdict } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import { countingPrompt, numbersIn, user } from './prompts.js';

export const LENGTH_LIMIT = 5;
// Counting to 30 needs at least 59 tokens (30 numbers and 29 commas), far above the limit, so an answer
// that stops on its own cannot be mistaken for a truncated one.
const COUNT_TO = 30;

/** A long-answer prompt with a small limit: honoured = cut with "length" within the limit. */
export async function judgeLengthLimit(ctx: ProbeContext, param: 'max_tokens' | 'max_completion_tokens'): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages: [user(countingPrompt(COUNT_TO))], [param]: LENGTH_LIMIT });
  if (!x.ok) return refusal(x, ctx.control(), `${param}: ${LENGTH_LIMIT}`, param);
  const choice = readChoices(x.json)[0];
  if (!choice) return inconclusive('expected a choice to measure, got none');
  const numbers = numbersIn(choice.content ?? '').length;
  const tokens = x.usage?.completionTokens;
  const seen = `finish_reason ${JSON.stringify(choice.finishReason)}, ${tokens ?? 'no'} completion tokens reported, ${numbers} numbers written`;
  // Each number is at least one token in any tokenizer we know, so twice the limit in numbers proves the
  // limit was passed whether or not usage is reported (the factor 2 leaves room for odd vocabularies).
  if (numbers > 2 * LENGTH_LIMIT) return ignored(`expected at most ${LENGTH_LIMIT} tokens, got ${seen}`);
  if (choice.finishReason === 'length') return honoured(`expected at most ${LENGTH_LIMIT} tokens, cut with "length"; got ${seen}`);
  if (tokens !== undefined && tokens > LENGTH_LIMIT) return ignored(`expected at most ${LENGTH_LIMIT} tokens, got ${seen}`);
  return inconclusive(`expected a cut at ${LENGTH_LIMIT} tokens, got ${seen}: the answer ended on its own near the limit`);
}
