import type { Exchange } from '../../src/engine/exchange.js';
import { SMOKE_PROMPT, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { accepted, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import { user } from './prompts.js';

/**
 * For parameters whose effect cannot be seen cheaply (user, metadata, penalties, …): the smoke request
 * with the parameter is either accepted or refused. Never `honoured`.
 */
export async function acceptance(ctx: ProbeContext, param: string, extra: Record<string, unknown>, feature = `${param}: ${JSON.stringify(extra[param])}`): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages: [user(SMOKE_PROMPT)], ...extra });
  if (!x.ok) return refusal(x, ctx.control(), feature, param);
  return accepted(`${feature} accepted with HTTP ${x.status}; its effect is not cheaply observable`);
}

/** The first choice's content, as written. */
export function contentOf(x: Exchange): string {
  return readChoices(x.json)[0]?.content ?? '';
}

/** Distinct answers among samples, compared without case, spaces or punctuation. */
export function distinctAnswers(xs: readonly Exchange[]): number {
  return new Set(xs.map((x) => contentOf(x).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''))).size;
}

export const firstFailed = (xs: readonly Exchange[]): Exchange | undefined => xs.find((x) => !x.ok);

/**
 * A 2xx whose body holds no choice to read (an error in disguise, a stream nobody asked for) shows
 * nothing about a parameter: inconclusive, never "ignored". chat.basic reports the body itself.
 */
export function unreadable(x: Exchange): ProbeVerdict | undefined {
  if (readChoices(x.json).length > 0) return undefined;
  const what = x.json === undefined ? `a ${x.contentType || 'untyped'} body that is not JSON` : 'JSON without choices';
  return inconclusive(`HTTP ${x.status} with ${what}: no answer to judge (see chat.basic)`);
}

/** An empty content (the answer went to a reasoning field, say) is neither JSON nor prose. */
export function emptyContent(x: Exchange): ProbeVerdict | undefined {
  return contentOf(x).trim() === '' ? inconclusive(`HTTP ${x.status} with an empty content: no answer to judge`) : undefined;
}

/** The first sample with no answer to read, as a verdict. */
export function unreadableAmong(xs: readonly Exchange[]): ProbeVerdict | undefined {
  for (const x of xs) {
    const v = unreadable(x) ?? emptyContent(x);
    if (v) return v;
  }
  return undefined;
}
