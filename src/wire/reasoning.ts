import { readChoices } from './completion.js';
import { isObject } from './json.js';

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

/** A `<think>` block; an unclosed one is thinking to the end of the content. */
export const THINK = /<think>([\s\S]*?)(?:<\/think>|$)/i;

/**
 * The reasoning of a non-stream answer, wherever the server put it: message.reasoning_content (DeepSeek,
 * vLLM and SGLang parsers), message.reasoning (OpenRouter, mlx-lm), `<think>` tags in the content, or only
 * usage.completion_tokens_details.reasoning_tokens (OpenAI's o-series).
 */
export function readReasoning(json: unknown): ReasoningView {
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
