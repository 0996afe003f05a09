import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, maxSamples, REPEAT_GATE, type ChatOptions, type ProbeContext, type ProbeVerdict, type SharedExchange } from '../../src/engine/probe.js';
import { answerProblem, honoured, ignored, inconclusive, refusal, warn } from '../../src/engine/verdicts.js';
import { distinctAnswers, firstFailed, normalised } from './params.js';
import { LIMITS, RANDOM_NUMBER, user } from './prompts.js';

/**
 * Sampling probes (verdict contract, rule 6). Agreement among samples taken with a parameter (temperature
 * 0, top_p near 0, a fixed seed) is called honoured only when it is improbable had the parameter done
 * nothing. If the parameter does nothing, the samples with it and the baseline's without it are draws from
 * one distribution: all n + m of them are exchangeable, and the m with the parameter are any m of the
 * pool. The chance that m drawn at random from the pool all agree, Σᵥ C(cᵥ, m) / C(n + m, m) over the
 * pool's answers v with cᵥ copies, is then an exact bound at every distribution (a permutation test: no
 * estimate of the distribution is needed, and a baseline answer that equals the agreed one counts against
 * it). Honoured needs that chance under ALPHA; while it is not, the baseline grows, by at most
 * SAMPLE_GROWTH (two samples). Four distinct baseline answers beside three agreeing ones decide (1/35): seven
 * requests where the shrunk estimate this replaces needed nine (three beside three is 1/20, not under
 * ALPHA), and a ceiling of 11 requests for the temperature and seed probes together (the baseline of five
 * shared, three at 0, three seeded), where it had 16.
 *
 * In simulation (test/unit/judge-sampling.test.ts: 3 starting samples) a parameter that does nothing is
 * called honoured under 2% of the time whatever the distribution; an honoured parameter on a flat
 * distribution is recognised about 99% of the time.
 */
export const ALPHA = 0.05;

/** C(n, k), exact for the small counts of a sample set. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/**
 * The chance that the `set`'s answers agree as much as they do had the parameter done nothing: that m
 * answers taken at random from the pool of baseline and set answers are all one answer (exact under
 * exchangeability, see above).
 */
export function chanceOfAgreement(baseline: readonly string[], set: readonly string[]): number {
  const m = set.length;
  const counts = new Map<string, number>();
  for (const a of [...baseline, ...set]) counts.set(a, (counts.get(a) ?? 0) + 1);
  let same = 0;
  for (const c of counts.values()) same += choose(c, m);
  return Math.min(1, same / choose(baseline.length + m, m));
}

export const pct = (p: number) => (p < 0.001 ? '<0.1%' : `${(p * 100).toFixed(p < 0.1 ? 1 : 0)}%`);

/** The most samples the baseline and the set may hold. */
export interface Limits {
  baseline: number;
  set: number;
}

export const limitsAt = (samples: number): Limits => ({ baseline: maxSamples(samples, 'baseline'), set: maxSamples(samples, 'set') });

/** What to do next: call it, or add a sample to the baseline or the set, or fetch the greedy samples. */
export type Decision = { verdict: ProbeVerdict } | { more: 'baseline' | 'set' | 'greedy' };

/** Whether greedy decoding repeats: the positive control of an "ignored" collapse. */
export function greedyRepeats(t0: readonly Exchange[]): true | string {
  const bad = t0.map((x) => answerProblem(x, 'ended')).find(Boolean);
  if (bad) return `greedy decoding could not be checked (${bad})`;
  const d = distinctAnswers(t0);
  return d === 1 ? true : `greedy decoding (temperature 0) does not repeat here either (${d} distinct of ${t0.length})`;
}

/**
 * The pure judgement of a collapse: `baseline` are the samples without the parameter, `set` those with it,
 * `limit` the most either may hold. Variety under the parameter is `ignored` only when greedy decoding
 * repeats here (`greedy`, the temperature 0 samples: the positive control); `never` for temperature, where
 * variety at 0 may be the model's own randomness as much as an ignored parameter.
 */
export function judgeCollapse(
  feature: string,
  baseline: readonly Exchange[],
  set: readonly Exchange[],
  limit: Limits,
  control: Exchange,
  greedy: readonly Exchange[] | 'never' | undefined,
  names: string,
): Decision {
  const refusedBase = firstFailed(baseline);
  if (refusedBase) return { verdict: inconclusive(`the baseline without ${feature} was refused (${answerProblem(refusedBase)}), so there is no variety to compare with`) };
  const refused = firstFailed(set);
  if (refused) return { verdict: refusal(refused, control, feature, names) };
  // An empty answer that ended on its own is a sample like any other (a model that may end its turn at once).
  for (const x of [...set, ...baseline]) {
    const problem = answerProblem(x, 'ended');
    if (problem) {
      const v = inconclusive(`${problem}: every sample must be a readable answer`);
      if (problem.includes('error body')) v.findings = [warn('error_in_2xx', problem)];
      return { verdict: v };
    }
  }
  const db = distinctAnswers(baseline);
  const ds = distinctAnswers(set);
  const seen = `${baseline.length} samples without it: ${db} distinct; ${set.length} with ${feature}: ${ds} distinct`;
  if (ds > 1) {
    if (greedy === 'never') return { verdict: inconclusive(`${seen}: the answers vary with ${feature}, so either it is ignored or the model is random there; samples cannot tell which`) };
    // Absence of the effect is variety as high as without the parameter. Answers that repeat where the
    // baseline's do not show an effect that does not reproduce exactly: a seed on a server that batches
    // requests (llama.cpp with several slots), where tiny numeric differences change sampled tokens.
    if (ds / set.length < db / baseline.length) {
      return { verdict: inconclusive(`${seen}: the answers vary less with ${feature} than without it, so it has an effect, but they do not repeat exactly (batched inference can make seeded sampling drift)`) };
    }
    if (greedy === undefined) return { more: 'greedy' };
    const repeats = greedyRepeats(greedy);
    if (repeats === true) return { verdict: ignored(`expected one answer with ${feature}; got ${seen}, though greedy decoding repeats here`) };
    return { verdict: inconclusive(`${seen}, but ${repeats}, so the variety proves nothing`) };
  }
  const p = chanceOfAgreement(baseline.map(normalised), set.map(normalised));
  if (p < ALPHA) return { verdict: honoured(`expected one answer with ${feature}; got ${seen}; the chance of such agreement without it is at most ${pct(p)} (any ${set.length} of the ${baseline.length + set.length} answers agreeing)`) };
  if (baseline.length < limit.baseline && baseline.length <= set.length) return { more: 'baseline' };
  if (set.length < limit.set) return { more: 'set' };
  if (baseline.length < limit.baseline) return { more: 'baseline' };
  const why = db === 1 ? 'no variety without it either' : `agreement this likely by chance (up to ${pct(p)})`;
  return { verdict: inconclusive(`${seen}: ${why}, so the agreement proves nothing`) };
}

/** One sample of the open prompt with the given parameters. */
const sample = (ctx: ProbeContext, extra: Record<string, unknown>, inSlot: ChatOptions) => ctx.chat({ messages: [user(RANDOM_NUMBER)], max_tokens: LIMITS.sample, ...extra }, inSlot);

/**
 * A set of samples that grows on demand, sent one after another in one request slot (ctx.sequence: at
 * --concurrency 1 no other request comes between two samples and changes the server's cache under them);
 * a refusal ends it (the rest would be refused too). Shared sets (the baselines) grow for whichever probe
 * needs more first.
 */
export class SampleSet {
  readonly samples: Exchange[] = [];
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ProbeContext,
    private readonly extra: Record<string, unknown>,
  ) {}

  /** Ensures at least `n` samples (fewer if one was refused). */
  atLeast(n: number): Promise<Exchange[]> {
    this.pending = this.pending.then(() =>
      this.ctx.sequence(async (inSlot) => {
        while (this.samples.length < n && !firstFailed(this.samples)) this.samples.push(await sample(this.ctx, this.extra, inSlot));
      }),
    );
    return this.pending.then(() => this.samples);
  }
}

function pool(key: string, extra: Record<string, unknown>, role: 'baseline' | 'set'): SharedExchange<SampleSet> {
  return defineShared({
    key,
    cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: LIMITS.sample, role } },
    make: async (ctx) => {
      const set = new SampleSet(ctx, extra);
      await set.atLeast(ctx.options.samples);
      return set;
    },
  });
}

/** The sampling baselines: greedy (temperature 0) and default sampling (temperature 1). */
export const SAMPLES_T0 = pool('samples.t0', { temperature: 0 }, 'set');
export const SAMPLES_T1 = pool('samples.t1', { temperature: 1 }, 'baseline');

/** The seed parameters.seed sends, at temperature 1. */
export const SEED = 42;
/** The seeded set (parameters.seed's), shared: repeat.ts reads it where temperature 0 does not repeat. */
export const SAMPLES_SEED = pool('samples.seed', { temperature: 1, seed: SEED }, 'set');

/** A shared set's samples, at least `n` of them; awaited again so the caller's evidence has every call. */
export async function samplesOf(ctx: ProbeContext, s: SharedExchange<SampleSet>, n: number): Promise<Exchange[]> {
  const set = await ctx.shared(s);
  await set.atLeast(n);
  await ctx.shared(s);
  return set.samples;
}

/** Runs a collapse judgement, adding samples while it asks for more. */
export async function decideCollapse(
  ctx: ProbeContext,
  baselineSet: SharedExchange<SampleSet>,
  withParam: SharedExchange<SampleSet> | SampleSet,
  judge: (baseline: readonly Exchange[], set: readonly Exchange[], limit: Limits, greedy: readonly Exchange[] | undefined) => Decision,
): Promise<ProbeVerdict> {
  const limit = limitsAt(ctx.options.samples);
  const take = (n: number) => (withParam instanceof SampleSet ? withParam.atLeast(n) : samplesOf(ctx, withParam, n));
  let baseline = await samplesOf(ctx, baselineSet, ctx.options.samples);
  let samples = await take(ctx.options.samples);
  let greedy: Exchange[] | undefined;
  for (;;) {
    const d = judge(baseline, samples, limit, greedy);
    if ('verdict' in d) return d.verdict;
    if (d.more === 'baseline') baseline = await samplesOf(ctx, baselineSet, baseline.length + 1);
    else if (d.more === 'set') samples = await take(samples.length + 1);
    else greedy = await samplesOf(ctx, SAMPLES_T0, ctx.options.samples);
  }
}

/**
 * temperature 0 against temperature 1. Never `ignored`: a model that varies at 0 may ignore temperature
 * or be random at 0 (batched or MoE deployments), and samples cannot tell which.
 */
export function judgeTemperature(t1: readonly Exchange[], t0: readonly Exchange[], limit: Limits, control: Exchange): Decision {
  const refused1 = firstFailed(t1);
  if (refused1) return { verdict: refusal(refused1, control, firstFailed(t0) ? 'temperature: 0 and 1' : 'temperature: 1 (temperature: 0 was accepted)', 'temperature') };
  return judgeCollapse('temperature: 0', t1, t0, limit, control, 'never', 'temperature');
}

/**
 * parameters.temperature's decision, made once per model and read by the cell and by the contrasts' gate
 * (repeat.ts) alike: the sets grow under other judgements too (top_p and the seed share the baseline), so
 * two judgements of them at two moments may differ, and the gate must never take temperature 0 as
 * repeating where the cell says it is not shown to.
 */
export const TEMPERATURE_DECISION = defineShared({
  key: REPEAT_GATE,
  cost: { requests: 0, maxTokens: 0 },
  make: (ctx): Promise<ProbeVerdict> => decideCollapse(ctx, SAMPLES_T1, SAMPLES_T0, (t1, t0, limit) => judgeTemperature(t1, t0, limit, ctx.control())),
});

/** parameters.seed's decision, once per model: the cell and the gate read it alike (see TEMPERATURE_DECISION). */
export const SEED_DECISION = defineShared({
  key: 'decoding.seed',
  cost: { requests: 0, maxTokens: 0 },
  make: (ctx): Promise<ProbeVerdict> => probeCollapse(ctx, 'seed', SEED, SAMPLES_SEED),
});

/** A shared decision as a cell's own verdict: a copy, so the engine's additions to one reach no other reader. */
export async function decisionOf(ctx: ProbeContext, s: SharedExchange<ProbeVerdict>): Promise<ProbeVerdict> {
  return structuredClone(await ctx.shared(s));
}

/**
 * top_p near 0 or a fixed seed, at temperature 1: one answer where the baseline varies. `set` is the shared
 * set of those samples, where one is (the seed's: SAMPLES_SEED).
 */
export function probeCollapse(ctx: ProbeContext, param: string, value: unknown, set?: SharedExchange<SampleSet>): Promise<ProbeVerdict> {
  const feature = `${param}: ${JSON.stringify(value)}`;
  return decideCollapse(
    ctx,
    SAMPLES_T1,
    set ?? new SampleSet(ctx, { temperature: 1, [param]: value }),
    (b, s, limit, greedy) => judgeCollapse(feature, b, s, limit, ctx.control(), greedy, param),
  );
}
