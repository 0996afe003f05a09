import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import type { ProbeContext } from '../../src/engine/probe.js';
import { countingPrompt, user } from './prompts.js';

/**
 * Exchanges several probes read, sent once per model. Most streaming probes judge one aspect each of the
 * same plain stream, so the catalogue costs one stream, not eleven.
 */
export const SHARED_COST: Record<string, { requests: number; maxTokens: number }> = {
  // Counting to 12 gives about 24 content chunks: enough to see timing, cheap to send.
  'stream.plain': { requests: 1, maxTokens: 24 },
  'stream.usage': { requests: 1, maxTokens: 10 },
  'chat.usage_twin': { requests: 1, maxTokens: 10 },
};

export const plainStream = (ctx: ProbeContext): Promise<StreamExchange> =>
  ctx.shared('stream.plain', () => ctx.stream({ messages: [user(countingPrompt(12))] }));

/** A stream asking for usage, and the same request not streamed, to compare the two counts. */
export const usageStream = (ctx: ProbeContext): Promise<StreamExchange> =>
  ctx.shared('stream.usage', () => ctx.stream({ messages: [user(countingPrompt(5))], stream_options: { include_usage: true } }));

export const usageTwin = (ctx: ProbeContext): Promise<Exchange> =>
  ctx.shared('chat.usage_twin', () => ctx.chat({ messages: [user(countingPrompt(5))] }));
