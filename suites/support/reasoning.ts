import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { answerProblem } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import { isObject } from '../../src/spec/stream.js';

/** Where an answer's reasoning was: a message field, `<think>` tags in the content, or only a token count. */
export type ReasoningPlace = 'reasoning_content' | 'reasoning' | 'think' | 'hidden';

export interface ReasoningView {
  place: ReasoningPlace | undefined;
  /** The reasoning text (for `think`, what is inside the tags). */
  text: string;
  /** The content without any `<think>` block. */
  content: string;
  finishReason: unknown;
  /** usage.completion_tokens_details.reasoning_tokens, when the server reports it. */
  reasoningTokens: number | undefined;
  completionTokens: number | undefined;
  promptTokens: number | undefined;
  totalTokens: number | undefined;
}

const THINK = /<think>([\s\S]*?)(?:<\/think>|$)/i;

/** The reasoning of a non-stream answer, wherever the server put it. */
export function reasoningOf(x: Exchange): ReasoningView {
  const json = x.json;
  const choice = isObject(json) && Array.isArray(json.choices) && isObject(json.choices[0]) ? json.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const usage = isObject(json) && isObject(json.usage) ? json.usage : {};
  const details = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const rawContent = typeof message.content === 'string' ? message.content : '';
  const view: ReasoningView = {
    place: undefined,
    text: '',
    content: rawContent,
    finishReason: readChoices(json)[0]?.finishReason,
    reasoningTokens: num(details.reasoning_tokens),
    completionTokens: num(usage.completion_tokens),
    promptTokens: num(usage.prompt_tokens),
    totalTokens: num(usage.total_tokens),
  };
  for (const key of ['reasoning_content', 'reasoning'] as const) {
    if (typeof message[key] === 'string' && message[key] !== '') return { ...view, place: key, text: message[key] };
  }
  const think = THINK.exec(rawContent);
  if (think) return { ...view, place: 'think', text: think[1]!.trim(), content: rawContent.replace(THINK, '').trim() };
  if ((view.reasoningTokens ?? 0) > 0) return { ...view, place: 'hidden' };
  return view;
}

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
