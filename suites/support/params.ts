import { looksLikeSse, type Exchange } from '../../src/engine/exchange.js';
import { SMOKE_PROMPT, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { accepted, refusal, unreadable } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { LIMITS, user } from './prompts.js';

/**
 * For parameters whose effect cannot be seen cheaply (user, metadata, penalties, …): the smoke request
 * with the parameter is either accepted or refused. Never `honoured`.
 */
export async function acceptance(ctx: ProbeContext, param: string, extra: Record<string, unknown>, feature = `${param}: ${JSON.stringify(extra[param])}`): Promise<ProbeVerdict> {
  const x = await ctx.chat({ messages: [user(SMOKE_PROMPT)], max_tokens: LIMITS.word, ...extra });
  return judgeAcceptance(x, ctx.control(), feature, param);
}

/** Accepted needs an answer: a 2xx carrying an error body is no acceptance (verdict contract, rule 3). */
export function judgeAcceptance(x: Exchange, control: Exchange, feature: string, names: string | readonly string[]): ProbeVerdict {
  if (!x.ok) return refusal(x, control, feature, names);
  // An answer streamed though no stream was asked for is an answer (streaming.no_stream_field judges that).
  if (x.json === undefined && looksLikeSse(x.text)) return accepted(`${feature} accepted with HTTP ${x.status}, answered as an event stream nobody asked for`);
  return unreadable(x, 'choice', `cannot tell whether ${feature} was accepted`) ?? accepted(`${feature} accepted with HTTP ${x.status}; its effect is not cheaply observable`);
}

/** The first choice's content, as written. */
export function contentOf(x: Exchange): string {
  return readChoices(x.json)[0]?.content ?? '';
}

/** An answer compared without case, spaces or punctuation. */
export function normalised(x: Exchange): string {
  return contentOf(x).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Distinct answers among samples, compared without case, spaces or punctuation. */
export function distinctAnswers(xs: readonly Exchange[]): number {
  return new Set(xs.map(normalised)).size;
}

export const firstFailed = (xs: readonly Exchange[]): Exchange | undefined => xs.find((x) => !x.ok);

/** A short quote of an answer for `observed`. */
export function quote(x: Exchange): string {
  const c = contentOf(x);
  return JSON.stringify(c.length > 60 ? `${c.slice(0, 57)}...` : c);
}
