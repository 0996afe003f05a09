import type { ProbeContext, ProbeVerdict } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import { unreadable } from './params.js';
import { countingPrompt, numbersIn, user } from './prompts.js';

/** "Count from 1 to 20" with a stop string "7": honoured = the answer ends before the first 7. */
export async function judgeStop(ctx: ProbeContext, stop: string[], feature: string): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages: [user(countingPrompt(20))], stop });
  if (!x.ok) return refusal(x, ctx.control(), feature, 'stop');
  const none = unreadable(x);
  if (none) return none;
  const choice = readChoices(x.json)[0];
  const content = choice?.content ?? '';
  const numbers = numbersIn(content);
  const seen = `${JSON.stringify(content.length > 60 ? `${content.slice(0, 57)}...` : content)}, finish_reason ${JSON.stringify(choice?.finishReason ?? null)}`;
  if (content.includes('7') || numbers.some((n) => n > 7)) return ignored(`expected the answer to end before "7", got ${seen}`);
  // The count reached 6 and stopped: the stop string cut it, not the model's own ending.
  if (numbers.at(-1) === 6) return honoured(`expected the count to end before "7"; got ${seen}`);
  return inconclusive(`expected the count to run to 6 and stop; got ${seen}: the answer ended for another reason`);
}
