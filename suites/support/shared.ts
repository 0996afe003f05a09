import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { defineShared, type ProbeContext } from '../../src/engine/probe.js';
import { GREEDY_COUNT } from './length.js';
import { countingPrompt, LIMITS, user } from './prompts.js';

/**
 * Exchanges several streaming probes read, sent once per model: most judge one aspect each of the same
 * plain stream, so the catalogue costs one stream, not eleven.
 */

// Counting to 12 gives about 24 content chunks: enough to see timing, cheap to send.
export const PLAIN_STREAM = defineShared({
  key: 'stream.plain',
  cost: { requests: 1, maxTokens: LIMITS.count },
  make: (ctx) => ctx.stream({ messages: [user(countingPrompt(12))], max_tokens: LIMITS.count }),
});

/** The greedy counting request streamed with include_usage: its counts are compared with the same request
 *  not streamed, which the length and stop probes read too. */
export const USAGE_STREAM = defineShared({
  key: 'stream.usage',
  cost: { requests: 1, maxTokens: LIMITS.count },
  make: async (ctx) => ctx.stream({ ...(await ctx.shared(GREEDY_COUNT)).body, stream_options: { include_usage: true } }),
});

export const plainStream = (ctx: ProbeContext): Promise<StreamExchange> => ctx.shared(PLAIN_STREAM);
export const usageStream = (ctx: ProbeContext): Promise<StreamExchange> => ctx.shared(USAGE_STREAM);
export const usageTwin = async (ctx: ProbeContext): Promise<Exchange> => (await ctx.shared(GREEDY_COUNT)).x;
