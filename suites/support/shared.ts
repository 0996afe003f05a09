import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { defineShared, type ProbeContext } from '../../src/engine/probe.js';
import { countingPrompt, RANDOM_WORD, user } from './prompts.js';

/**
 * Exchanges several probes read, sent once per model. Most streaming probes judge one aspect each of the
 * same plain stream, so the catalogue costs one stream, not eleven; the sampling probes share their
 * temperature baselines.
 */

// Counting to 12 gives about 24 content chunks: enough to see timing, cheap to send.
export const PLAIN_STREAM = defineShared({
  key: 'stream.plain',
  cost: { requests: 1, maxTokens: 24 },
  make: (ctx) => ctx.stream({ messages: [user(countingPrompt(12))] }),
});

/** A stream asking for usage, and the same request not streamed, to compare the two counts. */
export const USAGE_STREAM = defineShared({
  key: 'stream.usage',
  cost: { requests: 1, maxTokens: 10 },
  make: (ctx) => ctx.stream({ messages: [user(countingPrompt(5))], stream_options: { include_usage: true } }),
});

export const USAGE_TWIN = defineShared({
  key: 'chat.usage_twin',
  cost: { requests: 1, maxTokens: 10 },
  make: (ctx) => ctx.chat({ messages: [user(countingPrompt(5))] }),
});

/** --samples answers to an open prompt, sent one after another, with the given extra parameters; a
 *  refusal ends the set at once (the rest would be refused too). */
export async function sampleSet(ctx: ProbeContext, extra: Record<string, unknown>): Promise<Exchange[]> {
  const out: Exchange[] = [];
  for (let i = 0; i < ctx.options.samples; i++) {
    const x = await ctx.chat({ messages: [user(RANDOM_WORD)], ...extra });
    out.push(x);
    if (!x.ok) break;
  }
  return out;
}

/** The sampling baselines: greedy (temperature 0) and default sampling (temperature 1). */
export const SAMPLES_T0 = defineShared({ key: 'samples.t0', cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: 3 } }, make: (ctx) => sampleSet(ctx, { temperature: 0 }) });
export const SAMPLES_T1 = defineShared({ key: 'samples.t1', cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: 3 } }, make: (ctx) => sampleSet(ctx, { temperature: 1 }) });

export const plainStream = (ctx: ProbeContext): Promise<StreamExchange> => ctx.shared(PLAIN_STREAM);
export const usageStream = (ctx: ProbeContext): Promise<StreamExchange> => ctx.shared(USAGE_STREAM);
export const usageTwin = (ctx: ProbeContext): Promise<Exchange> => ctx.shared(USAGE_TWIN);
