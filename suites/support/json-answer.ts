import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared } from '../../src/engine/probe.js';
import { contentOf } from './params.js';
import { PROSE_PROMPT, user } from './prompts.js';

/** How an answer's content relates to JSON: bare JSON, JSON in a Markdown fence, or prose. */
export function readJson(content: string): { kind: 'json'; value: unknown } | { kind: 'fenced' | 'prose' } {
  try {
    return { kind: 'json', value: JSON.parse(content.trim()) };
  } catch {
    return /```(?:json)?\s*[[{][\s\S]*```/i.test(content) ? { kind: 'fenced' } : { kind: 'prose' };
  }
}

/** The same prompt without response_format: if it already answers JSON, a format's effect cannot show. */
export const PROSE_BASELINE = defineShared({ key: 'chat.prose', cost: { requests: 1, maxTokens: 20 }, make: (ctx) => ctx.chat({ messages: [user(PROSE_PROMPT)] }) });

export function describeAnswer(x: Exchange): string {
  const c = contentOf(x);
  return JSON.stringify(c.length > 60 ? `${c.slice(0, 57)}...` : c);
}
