import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ChatBody, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { chatAlike, distinctSamples, type Repeatable } from './contrast.js';
import { SAMPLES_SEED, SAMPLES_T0, samplesOf, SEED, SEED_DECISION, TEMPERATURE_DECISION } from './sampling.js';

/**
 * Decoding that repeats (verdict contract, rule 1): where temperature 0 is shown to give one answer to a
 * prompt whose answers vary at temperature 1 (parameters.temperature honoured: the exact chance of that
 * agreement under the temperature 1 answers is under 5%), the model decodes greedily, and greedy decoding
 * is a function of the request the model sees. A contrast sent at temperature 0 then needs one answer a
 * side: had the parameter done nothing, the model would have seen the same request with it as without it
 * and given the same answer, so an answer with the effect beside one without it is the parameter's doing,
 * not a draw. Elsewhere (temperature 0 refused, answers that vary at 0, or agreement likely by chance)
 * contrasts take the answers the chance bound needs (contrast.ts), unless a fixed seed repeats at
 * temperature 1 (parameters.seed honoured, the same exact bound): a seeded sampler draws the same answer
 * from the same request, and a parameter that does nothing leaves the request the model sees as it was.
 * Temperature 0 comes first: greedy decoding depends on nothing but the request, where a seed is only as
 * good as the server keeps it (OpenAI calls it best effort; batching can make it drift, which
 * parameters.seed sees as answers that vary less without repeating, and then it is no gate).
 *
 * The answers at 0 must be separate samples: three handed back with one id (a response cache that keeps
 * temperature 0 answers) show the cache repeating, not the model, and say nothing of another request.
 */
export type { Repeatable };

/**
 * The pure judgement: the temperature verdict on the shared sample sets and the answers at 0; where that
 * gives no gate, the seed's verdict and its answers.
 */
export function judgeRepeatable(temperature: ProbeVerdict, t0: readonly Exchange[], seed?: { verdict: ProbeVerdict; seeded: readonly Exchange[] }): Repeatable | undefined {
  if (temperature.verdict === 'honoured' && distinctSamples(t0) === t0.length) {
    return {
      settings: { temperature: 0 },
      sent: 'at temperature 0',
      why: `temperature 0 repeats (parameters.temperature: ${t0.length} answers at 0 alike, each with its own id, where the answers at temperature 1 vary), so at temperature 0 an answer is the model's one answer to its request`,
    };
  }
  if (seed && seed.verdict.verdict === 'honoured' && distinctSamples(seed.seeded) === seed.seeded.length) {
    return {
      settings: { temperature: 1, seed: SEED },
      sent: `with seed ${SEED} at temperature 1`,
      why: `seed ${SEED} repeats at temperature 1 (parameters.seed: ${seed.seeded.length} answers alike, each with its own id, where the answers without it vary), so with it an answer is the model's one answer to its request`,
    };
  }
  return undefined;
}

/**
 * The decision, made once per model from parameters.temperature's and parameters.seed's own decisions
 * (sampling.ts TEMPERATURE_DECISION, SEED_DECISION): the gate never disagrees with those cells, and sends
 * nothing of its own.
 */
export const REPEATABLE = defineShared({
  key: 'decoding.repeatable',
  cost: { requests: 0, maxTokens: 0 },
  async make(ctx): Promise<Repeatable | undefined> {
    // parameters.temperature's and parameters.seed's own decisions (sampling.ts): never a second look at the sets.
    const temperature = await ctx.shared(TEMPERATURE_DECISION);
    const t0 = await samplesOf(ctx, SAMPLES_T0, ctx.options.samples);
    if (!ctx.planned?.(SEED_DECISION)) return judgeRepeatable(temperature, t0);
    // The seed's decision is awaited even where temperature 0 decides: the contrasts' requests, which wait
    // for the gate, then come after the seeded samples, not in a burst beside them (a server that batches
    // requests, llama.cpp with several slots, makes seeded sampling drift when others are in flight).
    const verdict = await ctx.shared(SEED_DECISION);
    return judgeRepeatable(temperature, t0, { verdict, seeded: await samplesOf(ctx, SAMPLES_SEED, ctx.options.samples) });
  },
});

/**
 * What a contrast probe declares to read the decision. The sample sets are not in it: they are the
 * sampling probes' (parameters.temperature, seed), and a contrast reads them only where those run anyway.
 */
export const REPEAT_SHARED = [REPEATABLE] as const;

/**
 * The decision where the run's plan holds a contrast (one declares REPEATABLE) and parameters.temperature
 * (whose decision and sets decide it); else undefined. A run without them (`--probes 'parameters.tool_choice.*'`, say)
 * sends no sample for the gate: its contrasts take the chance bound's answers, which the dry run prices as
 * the further answers of a model whose decoding does not repeat. The quick tier's tool and JSON requests,
 * which no contrast reads, are sent as they always were.
 */
export async function repeatableOf(ctx: ProbeContext): Promise<Repeatable | undefined> {
  // TEMPERATURE_DECISION's place in the plan is the gate the plan prices (REPEAT_GATE): its probe reads the sets too.
  if (!ctx.planned?.(REPEATABLE) || !ctx.planned(TEMPERATURE_DECISION)) return undefined;
  return ctx.shared(REPEATABLE);
}

/**
 * A contrast's shared request, with the settings where decoding repeats (temperature 0, or a seed), sent
 * again without them where the server refuses them only here (contrast.ts chatAlike).
 */
export async function sendAlike(ctx: ProbeContext, body: ChatBody): Promise<Exchange> {
  return chatAlike(ctx, body, await repeatableOf(ctx));
}
