import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { contentOf, unreadable } from './params.js';
import { user } from './prompts.js';

export const PINEAPPLE_RULE = 'Answer every message with only the word PINEAPPLE.';
export const UNRELATED_QUESTION = 'What is the capital of France?';

const says = (x: Exchange, word: string) => contentOf(x).toUpperCase().includes(word.toUpperCase());

function describe(x: Exchange): string {
  const c = contentOf(x);
  return JSON.stringify(c.length > 60 ? `${c.slice(0, 57)}...` : c);
}

/** The same instruction in the user message: a model that does not follow it there shows nothing by a role. */
export const RULE_IN_USER = defineShared({
  key: 'chat.rule_in_user',
  cost: { requests: 1, maxTokens: 4 },
  make: (ctx) => ctx.chat({ messages: [user(`${PINEAPPLE_RULE} ${UNRELATED_QUESTION}`)] }),
});

/**
 * An instruction carried by a role (system, developer, system parts) whose effect shows in one word:
 * honoured when the answer is that word, ignored when it is not though the model follows the same
 * instruction given in a user message, inconclusive when it follows it nowhere.
 */
export async function judgeInstruction(ctx: ProbeContext, messages: unknown[], feature: string, param: string): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages });
  if (!x.ok) return refusal(x, ctx.control(), feature, param);
  const none = unreadable(x);
  if (none) return none;
  if (says(x, 'PINEAPPLE')) return honoured(`expected only "PINEAPPLE" to an unrelated question; got ${describe(x)}`);
  const baseline = await ctx.shared(RULE_IN_USER);
  if (!baseline.ok || !says(baseline, 'PINEAPPLE')) {
    return inconclusive(`the answer ${describe(x)} ignores the instruction, but so does the answer with the instruction in the user message (${baseline.ok ? describe(baseline) : `HTTP ${baseline.status}`})`);
  }
  return ignored(`expected only "PINEAPPLE" to an unrelated question, got ${describe(x)}, though the same instruction as a user message is followed`);
}

/** A message form whose effect shows in the answer containing `expected`. */
export async function judgeRecall(
  ctx: ProbeContext,
  messages: unknown[],
  expected: string[],
  feature: string,
  param: string,
  extra: { body?: Record<string, unknown>; control?: () => Promise<Exchange> } = {},
): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages, ...extra.body });
  if (!x.ok) return refusal(x, extra.control ? await extra.control() : ctx.control(), feature, param);
  const none = unreadable(x);
  if (none) return none;
  const missing = expected.filter((w) => !says(x, w));
  if (contentOf(x).trim() === '') return inconclusive(`expected ${expected.join(' and ')} in the answer, got an empty answer`);
  if (missing.length === 0) return honoured(`expected ${expected.join(' and ')} in the answer; got ${describe(x)}`);
  // A model that follows no plain instruction cannot show whether this message form reached it.
  const baseline = await ctx.shared(RULE_IN_USER);
  if (!baseline.ok || !says(baseline, 'PINEAPPLE')) {
    return inconclusive(`expected ${expected.join(' and ')} in the answer, got ${describe(x)}; but the model does not follow a plain instruction in a user message either`);
  }
  return ignored(`expected ${expected.join(' and ')} in the answer, got ${describe(x)}: ${missing.join(', ')} missing`);
}

/** For message forms with no effect to see: accepted or rejected, with the answer recorded. */
export async function judgeForm(ctx: ProbeContext, messages: unknown[], feature: string, param: string, note?: (x: Exchange) => string): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages });
  if (!x.ok) return refusal(x, ctx.control(), feature, param);
  const extra = note ? `; ${note(x)}` : '';
  return { verdict: 'accepted', observed: `${feature} accepted with HTTP ${x.status}; answer ${describe(x)}${extra}` };
}
