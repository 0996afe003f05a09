import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { answerProblem } from '../../src/engine/verdicts.js';
import { readReasoning, THINK, type ReasoningPlace, type ReasoningView } from '../../src/wire/reasoning.js';

export type { ReasoningPlace, ReasoningView } from '../../src/wire/reasoning.js';

/** The reasoning of a non-stream answer, wherever the server put it. */
export const reasoningOf = (x: Exchange): ReasoningView => readReasoning(x.json);

/** The reasoning of a stream: the delta fields it came in, or `<think>` tags in the streamed content. */
export function streamReasoningOf(x: StreamExchange): { fields: string[]; think: boolean; text: string; content: string } {
  const choice = x.assembled?.choices.get(0);
  const content = choice?.content ?? '';
  return { fields: choice?.reasoningFields ?? [], think: THINK.test(content), text: choice?.reasoning ?? '', content };
}

/** Whether the smoke call (the plain request) shows a reasoning model; undefined when it cannot tell. */
export function reasoningSeen(smoke: Exchange): boolean | undefined {
  if (!smoke.ok || answerProblem(smoke, 'choice')) return undefined;
  return reasoningOf(smoke).place !== undefined;
}

export const describePlace = (p: ReasoningPlace): string =>
  p === 'think' ? '<think> tags in message.content' : p === 'hidden' ? 'no text: only usage.completion_tokens_details.reasoning_tokens' : `message.${p}`;

/** Why a reasoning probe is skipped for this model, or undefined when the smoke call shows reasoning. */
export function notReasoning(smoke: Exchange): string | undefined {
  const seen = reasoningSeen(smoke);
  if (seen === undefined) return 'the plain request got no readable answer, so whether the model reasons is unknown';
  return seen ? undefined : 'no reasoning seen in the plain request (see reasoning.field): not a reasoning model, or one whose reasoning is off by default';
}

/** A question that takes a moment's thought, with a one-number answer: effort shows in the reasoning's length. */
export const THINKING_PROMPT = 'A farmer has 17 sheep. All but 9 run away. Then he buys twice as many as he has left. How many sheep does he have now? Reply with the number only.';

/** Room for a reasoning model to think and answer: reasoning counts against the limit. */
export const REASONING_LIMIT = 512;
