import { z } from 'zod';

/**
 * Is it the same model, every time? (issue 34.) A model's fingerprint is what it answered to a few fixed
 * prompts at temperature 0: the first answer token's top alternatives with their logprobs where the
 * server gives them (Logprob Tracking), the answers alone where it does not (B3IT), each prompt's repeats
 * showing the model's own spread; and what the server says of itself beside the content
 * (`system_fingerprint`, the form of its ids, a few headers). Everything here is pure: the fingerprint
 * is data (kept in report.json and the baseline), and the two tests, one run against itself
 * (mixedBackends) and two runs against each other (compareFingerprints), are functions of that data only.
 * docs/identity.md describes the method; its figures are the constants below.
 */

// ---------------------------------------------------------------------------------------------------
// The constants of the decision. Every figure here comes from docs/identity.md, section "Calibration"
// (measured on real llama.cpp servers by test/real/identity.test.ts and the calibration script): change
// one only with the measurement that supports it, and the doc with it.

/** Alternatives asked for the first answer token (`top_logprobs`): OpenAI allows up to 20, some relays 5. */
export const TOP_LOGPROBS = 5;

/**
 * Repeats of the anchor prompt in one run. A load balancer that picks one of two backends at random
 * sends all r repeats to one of them with chance 2^(1-r): 8 repeats miss a 50/50 mix 1 run in 128 (0.8%).
 */
export const ANCHOR_REPEATS = 8;

/** Fewer answered repeats than this and the run tells nothing of its own spread or of a mix. */
export const MIN_REPEATS = 4;

/**
 * The tolerance floor, in logprob (natural log) units: two logprobs of one token closer than this are the
 * same number. Measured on llama.cpp (docs/identity.md, "Calibration"): the same weights repeat bit-exact
 * across repeats, restarts and thread counts, and move by up to 9.6e-3 when decoded in one batch with
 * other requests (0.0094 between two identity runs at most); Q8_0, the closest variant, moved the
 * statistic by 0.17 at least. 0.03 leaves a margin of over 3 against the one and of over 5 against the other.
 */
export const TOLERANCE_FLOOR = 0.03;

/** The threshold of a comparison is at least this many times the larger of the two runs' own spreads. */
export const SPREAD_FACTOR = 3;

/**
 * The largest threshold worth testing at: a model whose own spread pushes the threshold above this cannot
 * show a shift of the size a quantized twin makes, so the comparison is `unverifiable` (too little power).
 * Below the smallest shift a variant made on llama.cpp (Q8_0: 0.17; Q4_0: 1.1), so a threshold pushed up
 * to it still finds Q8_0 there.
 */
export const MAX_THRESHOLD = 0.1;

/**
 * Two groups of anchor repeats are two sources when the closest pair across them is this many times
 * farther apart than the widest pair within either (and past the floor): a noisy single source spreads
 * without such a gap.
 */
export const MIXED_GAP_RATIO = 4;

/** A single source's own spread above which a mix closer than it cannot be ruled out: the mix test is undecided. */
export const MIXED_NOISE_MAX = 0.05;

/**
 * Answers only (no logprobs): prompts whose answers must differ, each run self-consistent, before two runs
 * are `different`. One differing prompt could be a near tie flipped by noise that the anchor's repeats
 * happened not to show.
 */
export const ANSWERS_MIN_DIFFERING = 2;

/**
 * What the calibration measured (docs/identity.md): the false-alarm rate of `different` on same-model
 * pairs, and the power against each variant, with the runs behind each figure. `undefined`: not measured
 * yet, and the verdict says the test is uncalibrated. A measured false-alarm rate of 1% or more makes
 * every verdict of that signal `unverifiable` (issue 34: a verdict only where false alarms are under 1%).
 */
export interface Rate {
  /** The observed rate (0 to 1). */
  rate: number;
  /** The runs (pairs) it was measured over. */
  runs: number;
  /** The one-sided 95% upper bound of the false-alarm rate (for a 0/n count: 1 − 0.05^(1/n) ≈ 3/n). */
  upper95?: number;
}
export interface Calibration {
  falseAlarm: Rate | undefined;
  power: { q8_0: Rate | undefined; q4_0: Rate | undefined; otherWeights: Rate | undefined };
  /** The mixed test: a load-balanced pair found mixed, a single server found mixed. */
  mixed: { power: Rate | undefined; falseAlarm: Rate | undefined };
}
export const CALIBRATION: { logprobs: Calibration; answers: Calibration } = {
  // docs/identity.md, "Calibration": llama.cpp, the tiny F16 weights against themselves (restarts, thread
  // counts, busy servers, whole audits), Q8_0, Q4_0 and other weights; Portkey load-balancing two servers.
  logprobs: {
    falseAlarm: { rate: 0, runs: 440, upper95: 0.0068 },
    power: { q8_0: { rate: 1, runs: 59 }, q4_0: { rate: 1, runs: 59 }, otherWeights: { rate: 1, runs: 59 } },
    mixed: { power: { rate: 1, runs: 59 }, falseAlarm: { rate: 0, runs: 1057, upper95: 0.0028 } },
  },
  // The same runs with their alternatives taken away, as from a server that gives no logprobs.
  answers: {
    falseAlarm: { rate: 0, runs: 440, upper95: 0.0068 },
    power: { q8_0: { rate: 1, runs: 59 }, q4_0: { rate: 1, runs: 59 }, otherWeights: { rate: 1, runs: 59 } },
    mixed: { power: undefined, falseAlarm: undefined },
  },
};

/** The false-alarm rate a verdict may carry at most (issue 34). */
export const MAX_FALSE_ALARM = 0.01;

// ---------------------------------------------------------------------------------------------------
// The fingerprint

/** The prompts of the fingerprint, by key: the key is what two runs are matched on. */
export const FINGERPRINT_PROMPT_KEYS = ['anchor', 'number', 'colour', 'capital', 'sentence'] as const;

/** One answer to a fingerprint prompt. */
export const FingerprintSample = z.object({
  /** The prompt's key (FINGERPRINT_PROMPT_KEYS; a later version may add keys, matched by name). */
  prompt: z.string(),
  /** The call id (trace.jsonl, exchanges.har). */
  evidence: z.string(),
  /** The answer's text; absent when there was no answer (a refusal, an error, an error body in a 200). */
  answer: z.string().optional(),
  /** The first answer token's alternatives as the server listed them, most likely first: [token, logprob]. */
  top: z.array(z.tuple([z.string(), z.number()])).optional(),
  systemFingerprint: z.string().optional(),
  /** The form of the answer's `id` (its letters and digits as classes, e.g. `chatcmpl-<a29>`). */
  idForm: z.string().optional(),
  /** Header values that name the server or the route taken (IDENTITY_HEADERS). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Milliseconds to the whole answer: supporting evidence of a split only, never alone. */
  durationMs: z.number().optional(),
  /** Why there is no answer. */
  error: z.string().optional(),
  /** The request was refused (a 4xx with no cause of its own: not a rate limit, not the key's quota). */
  refused: z.boolean().optional(),
});
export type FingerprintSample = z.infer<typeof FingerprintSample>;

/**
 * The tokenizer the endpoint counts prompts with (usage.tokenizer, suites/support/usage.ts): a non-content
 * signal beside the answers, read from the usage series where the usage probes made it (the identity
 * probes send nothing for it). `family` only where an exact fit named one; `why` where none was named, or
 * where the series was not read (the usage probes did not run). The counts stay, so the fit can be judged
 * again offline (exactFamily).
 */
export const FingerprintTokenizer = z.object({
  /** The family's key in the table (suites/support/tokenizer-table.ts: `qwen2`, `llama3`, …). */
  family: z.string().optional(),
  /** The family in words ("Qwen 2 / 2.5 / 3"). */
  label: z.string().optional(),
  /** prompt_tokens of the smoke prompt after the unit k times (the series' points). */
  points: z.array(z.object({ k: z.number().int(), prompt: z.number().int() })).optional(),
  /** prompt_tokens of the audit's other known texts (the free points that confirm the family). */
  checks: z.array(z.object({ text: z.string(), prompt: z.number().int() })).optional(),
  /** The calls the counts come from (trace.jsonl, exchanges.har): the usage probes' own. */
  evidence: z.array(z.string()).optional(),
  /** Why no family is named, or why the counts were not read. */
  why: z.string().optional(),
});
export type FingerprintTokenizer = z.infer<typeof FingerprintTokenizer>;

export const Fingerprint = z.object({
  version: z.literal(1),
  /** `logprobs`: the first tokens' alternatives were read; `answers`: only the answers (B3IT), `why` says why. */
  signal: z.enum(['logprobs', 'answers']),
  /** Why the signal is answers only (the server refused logprobs, or answered without them). */
  why: z.string().optional(),
  /** `top_logprobs` asked for. */
  topLogprobs: z.number().int(),
  samples: z.array(FingerprintSample),
  /** The tokenizer the prompt counts follow; absent in a fingerprint taken before it was kept. */
  tokenizer: FingerprintTokenizer.optional(),
});
export type Fingerprint = z.infer<typeof Fingerprint>;

/** Response headers that may name a server or the route a gateway took (Portkey's chosen target). */
export const IDENTITY_HEADERS = ['server', 'via', 'x-powered-by', 'openai-version', 'x-portkey-last-used-option-index', 'x-portkey-provider'] as const;

/**
 * The form of an id: a leading word kept ("chatcmpl"), every other run of letters and digits as `*`,
 * separators kept. `chatcmpl-*` and a UUID's `*-*-*-*-*` tell two server kinds apart without keeping any
 * id; lengths and letter classes are left out, as a counter or a random string varies in both by chance.
 */
export function idForm(id: string): string {
  let first = true;
  return id
    .slice(0, 200)
    .replace(/[A-Za-z0-9]+/g, (run) => {
      const keep = first && /^[a-z]{2,12}$/.test(run);
      first = false;
      return keep ? run : '*';
    });
}

// ---------------------------------------------------------------------------------------------------
// Distances

type Top = readonly (readonly [string, number])[];

/**
 * How far apart two lists of alternatives are, at least: the largest difference of one token's logprob
 * between them. A token only one list names is, in the other, at most that list's last logprob, so it
 * counts only by how far it stands above it (a token that slipped out of the top N by noise counts
 * nothing). A lower bound of the largest move: it never makes noise look like a shift.
 */
export function topDistance(a: Top, b: Top): number {
  const ma = keyed(a);
  const mb = keyed(b);
  const lastA = a.length > 0 ? Math.min(...a.map(([, l]) => l)) : 0;
  const lastB = b.length > 0 ? Math.min(...b.map(([, l]) => l)) : 0;
  let d = 0;
  for (const [t, la] of ma) {
    const lb = mb.get(t);
    d = Math.max(d, lb === undefined ? la - lastB : Math.abs(la - lb));
  }
  for (const [t, lb] of mb) if (!ma.has(t)) d = Math.max(d, lb - lastA);
  return d;
}

/**
 * Alternatives by token text, a text listed twice told apart by its rank among its namesakes (llama.cpp
 * shows tokens of partial UTF-8 alike, "�"): a later namesake must not overwrite an earlier one.
 */
function keyed(top: Top): Map<string, number> {
  const out = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const [t, l] of top) {
    const k = seen.get(t) ?? 0;
    seen.set(t, k + 1);
    out.set(k === 0 ? t : `${t}\u0000${k}`, l);
  }
  return out;
}

const answered = (s: FingerprintSample): boolean => s.answer !== undefined;
const withTop = (s: FingerprintSample): boolean => answered(s) && s.top !== undefined && s.top.length > 0;

/** The answered samples of a prompt. */
export const samplesOf = (f: Fingerprint, prompt: string): FingerprintSample[] => f.samples.filter((s) => s.prompt === prompt && answered(s));

/** The prompts a fingerprint answered, in its order. */
const promptsOf = (f: Fingerprint): string[] => [...new Set(f.samples.filter(answered).map((s) => s.prompt))];

/** Whether a fingerprint's answers carry alternatives (every answered sample lists some). */
const hasLogprobs = (f: Fingerprint): boolean => f.signal === 'logprobs' && f.samples.some(answered) && f.samples.filter(answered).every(withTop);

/** The widest distance among one prompt's repeats (0 for one sample): the model's own spread there. */
function diameter(samples: readonly FingerprintSample[]): number {
  let d = 0;
  for (let i = 0; i < samples.length; i++) for (let j = i + 1; j < samples.length; j++) d = Math.max(d, topDistance(samples[i]!.top!, samples[j]!.top!));
  return d;
}

/** The model's own spread: the widest distance among the repeats of any one prompt, in logprob units. */
export function ownSpread(f: Fingerprint): number | undefined {
  if (!hasLogprobs(f)) return undefined;
  return Math.max(0, ...promptsOf(f).map((p) => diameter(samplesOf(f, p))));
}

/** Whether each prompt's repeats all answered alike (answers only). */
function answersConsistent(f: Fingerprint): boolean {
  return promptsOf(f).every((p) => new Set(samplesOf(f, p).map((s) => s.answer)).size === 1);
}

const fmt = (x: number): string => (x === 0 ? '0' : x < 0.001 ? x.toExponential(1) : String(Math.round(x * 1000) / 1000));

// ---------------------------------------------------------------------------------------------------
// Two runs: same, different or unverifiable

export interface FingerprintComparison {
  verdict: 'same' | 'different' | 'unverifiable';
  /** The test's statistic: the largest logprob move over the common prompts (logprobs), or the count of prompts answered otherwise (answers). */
  statistic: number;
  /** The statistic above which the verdict is `different`. */
  threshold: number;
  /** The calibrated false-alarm rate of `different` for this signal; undefined: not measured yet. */
  falseAlarmRate: number | undefined;
  /**
   * The calibrated power against a quantized twin (Q4_0) at this sample size; undefined: not measured, not
   * at this threshold, or the tokenizer decided (a twin keeps its tokenizer: that signal has no power
   * against one, and needs none where the tokenizers differ).
   */
  power: number | undefined;
  /** Common prompts compared, and answered samples on each side. */
  sampleSize: { prompts: number; a: number; b: number };
  /** The signal that decided: the logprobs, the answers, or the tokenizers' exact counts (`tokenizer`). */
  signal: 'logprobs' | 'answers' | 'tokenizer' | 'none';
  /** The tokenizer each side counts with, where both named one from an exact fit. */
  tokenizer?: { a: TokenizerSeen; b: TokenizerSeen };
  /** The prompts where the two differ most, largest first (at most 3), for the reports. */
  where: { prompt: string; distance: number; a: string | undefined; b: string | undefined }[];
  why: string;
}

/** A tokenizer family as a comparison names it: the family, the unit's tokens a copy, and the counts in words. */
export interface TokenizerSeen {
  family: string;
  label: string;
  /** Tokens each copy of the unit adds (the fit's slope). */
  unitTokens: number;
  /** The counts the fit rests on, in words. */
  counts: string;
}

/**
 * The family a fingerprint's tokenizer names, judged again from its counts: only where it names one, the
 * series' points lie on one line whose slope is a positive whole number (every copy of the unit adding the
 * same tokens: an exact fit), and a free point had a count to confirm it (usage.tokenizer's rule). A family
 * beside a near fit, or with nothing to confirm it, names nothing: an estimate is off by a token somewhere.
 */
export function exactFamily(t: FingerprintTokenizer | undefined): TokenizerSeen | undefined {
  if (!t?.family || !t.points || t.points.length < 2 || !t.checks || t.checks.length === 0) return undefined;
  const points = [...t.points].sort((x, y) => x.k - y.k);
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (last.k === first.k) return undefined;
  const slope = (last.prompt - first.prompt) / (last.k - first.k);
  if (!Number.isInteger(slope) || slope <= 0 || !points.every((p) => p.prompt === first.prompt + (p.k - first.k) * slope)) return undefined;
  const counts = `prompt_tokens ${points.map((p) => p.prompt).join(' and ')} for the unit × ${points.map((p) => p.k).join(' and ')}; ${t.checks.map((c) => c.prompt).join(' and ')} for the audit's other known ${t.checks.length === 1 ? 'text' : 'texts'}`;
  return { family: t.family, label: t.label ?? t.family, unitTokens: slope, counts };
}

/** The common prompts' closest pair across two runs: a mixed run still matches the other on its shared source. */
function crossDistance(a: readonly FingerprintSample[], b: readonly FingerprintSample[]): number {
  let d = Infinity;
  for (const x of a) for (const y of b) d = Math.min(d, topDistance(x.top!, y.top!));
  return d;
}

const firstAnswer = (s: readonly FingerprintSample[]): string | undefined => s[0]?.answer;

/**
 * Two fingerprints of one model name (two runs, or two endpoints): the same model, a different one, or
 * not decidable at this sample size. With logprobs on both sides: the largest logprob move of the common
 * prompts (each prompt's closest pair across the runs) against a threshold of the tolerance floor or
 * SPREAD_FACTOR times the larger own spread; a threshold past MAX_THRESHOLD leaves too little power
 * (`unverifiable`). With answers only: prompts answered otherwise, each run agreeing with itself.
 */
export function compareFingerprints(a: Fingerprint, b: Fingerprint): FingerprintComparison {
  const content = compareContent(a, b);
  const ta = exactFamily(a.tokenizer);
  const tb = exactFamily(b.tokenizer);
  // A side without a family (not read, or none named) leaves the content's verdict as it is: absence
  // says nothing, and never pushes toward `same`.
  if (!ta || !tb) return content;
  const tokenizer = { a: ta, b: tb };
  if (ta.family === tb.family) return { ...content, tokenizer };
  // An exact count is no sample: the same tokenizer counts the same text the same every time, so two
  // families are two tokenizers, with no chance involved (false alarms 0; docs/identity.md).
  return {
    ...content,
    verdict: 'different',
    signal: 'tokenizer',
    statistic: Math.abs(ta.unitTokens - tb.unitTokens),
    threshold: 0,
    falseAlarmRate: 0,
    power: undefined,
    tokenizer,
    why: `the prompt counts follow two tokenizers: the first counts like ${ta.label} (${ta.counts}), the second like ${tb.label} (${tb.counts}); exact counts, which one tokenizer never gives otherwise (no chance involved), so another model answers, or something in between now counts the prompt with its own tokenizer; the content alone: ${content.verdict} (${content.why})`,
  };
}

/** compareFingerprints on the answers alone: the logprobs where both sides give them, else the answers. */
function compareContent(a: Fingerprint, b: Fingerprint): FingerprintComparison {
  const common = promptsOf(a).filter((p) => promptsOf(b).includes(p));
  const sampleSize = { prompts: common.length, a: common.reduce((n, p) => n + samplesOf(a, p).length, 0), b: common.reduce((n, p) => n + samplesOf(b, p).length, 0) };
  const base = { sampleSize, where: [] as FingerprintComparison['where'] };
  if (common.length === 0) {
    return { ...base, verdict: 'unverifiable', statistic: 0, threshold: 0, falseAlarmRate: undefined, power: undefined, signal: 'none', why: 'the two fingerprints have no answered prompt in common' };
  }
  if (hasLogprobs(a) && hasLogprobs(b)) return compareLogprobs(a, b, common, base);
  return compareAnswers(a, b, common, base);
}

function calibrated(signal: 'logprobs' | 'answers'): { falseAlarmRate: number | undefined; power: number | undefined; note: string; tooHigh: boolean } {
  const c = CALIBRATION[signal];
  const fa = c.falseAlarm;
  const note = fa
    ? `false alarms ${fmt(fa.rate * 100)}% over ${fa.runs} same-model pairs${fa.upper95 !== undefined ? ` (95% bound ${fmt(fa.upper95 * 100)}%)` : ''}`
    : 'not yet calibrated (docs/identity.md)';
  return { falseAlarmRate: fa?.rate, power: c.power.q4_0?.rate, note, tooHigh: fa !== undefined && fa.rate >= MAX_FALSE_ALARM };
}

function compareLogprobs(a: Fingerprint, b: Fingerprint, common: string[], base: Pick<FingerprintComparison, 'sampleSize' | 'where'>): FingerprintComparison {
  const spread = Math.max(ownSpread(a)!, ownSpread(b)!);
  const threshold = Math.max(TOLERANCE_FLOOR, SPREAD_FACTOR * spread);
  const moves = common
    .map((p) => ({ prompt: p, distance: crossDistance(samplesOf(a, p), samplesOf(b, p)), a: firstAnswer(samplesOf(a, p)), b: firstAnswer(samplesOf(b, p)) }))
    .sort((x, y) => y.distance - x.distance);
  const statistic = moves[0]!.distance;
  const where = moves.filter((m) => m.distance > 0).slice(0, 3);
  const cal = calibrated('logprobs');
  const out = { ...base, statistic, threshold, falseAlarmRate: cal.falseAlarmRate, signal: 'logprobs' as const, where };
  const seen = `largest logprob move ${fmt(statistic)} (prompt "${moves[0]!.prompt}") over ${common.length} prompts, threshold ${fmt(threshold)}`;
  if (threshold > MAX_THRESHOLD) {
    return { ...out, verdict: 'unverifiable', power: undefined, why: `the model's own spread (${fmt(spread)} between repeats at temperature 0) puts the threshold at ${fmt(threshold)}, past ${MAX_THRESHOLD}: a quantized twin's shift would not show (${seen})` };
  }
  // The calibrated power holds at the floor (a deterministic server); above it, it was not measured.
  const power = threshold === TOLERANCE_FLOOR ? cal.power : undefined;
  if (cal.tooHigh) return { ...out, verdict: 'unverifiable', power, why: `${seen}; but the measured ${cal.note} is not under ${MAX_FALSE_ALARM * 100}%` };
  if (statistic > threshold) return { ...out, verdict: 'different', power, why: `${seen}: the logprobs moved past the model's own spread (${fmt(spread)}) and the floor; ${cal.note}` };
  return { ...out, verdict: 'same', power, why: `${seen}: within the model's own spread (${fmt(spread)}) and the floor; ${cal.note}` };
}

function compareAnswers(a: Fingerprint, b: Fingerprint, common: string[], base: Pick<FingerprintComparison, 'sampleSize' | 'where'>): FingerprintComparison {
  const which = [!hasLogprobs(a) && 'the first', !hasLogprobs(b) && 'the second'].filter(Boolean).join(' and ');
  // One reason said once, where both runs give the same.
  const whys = [...new Set([a.why, b.why].filter(Boolean))];
  const only = `answers only (${which} without logprobs${whys.length ? `: ${whys.join('; ')}` : ''})`;
  const cal = calibrated('answers');
  const out = { ...base, threshold: ANSWERS_MIN_DIFFERING, falseAlarmRate: cal.falseAlarmRate, power: cal.power, signal: 'answers' as const };
  const noisy = [!answersConsistent(a) && 'the first', !answersConsistent(b) && 'the second'].filter(Boolean);
  const differing = common.filter((p) => !samplesOf(a, p).some((x) => samplesOf(b, p).some((y) => x.answer === y.answer)));
  const where = differing.slice(0, 3).map((p) => ({ prompt: p, distance: 1, a: firstAnswer(samplesOf(a, p)), b: firstAnswer(samplesOf(b, p)) }));
  const stat = { ...out, statistic: differing.length, where };
  if (noisy.length > 0) {
    return { ...stat, verdict: 'unverifiable', why: `${only}: ${noisy.join(' and ')} run's repeats answered otherwise at temperature 0 (its own spread), so a different answer says nothing; ${differing.length} of ${common.length} prompts answered otherwise` };
  }
  if (cal.tooHigh) return { ...stat, verdict: 'unverifiable', why: `${only}; the measured ${cal.note} is not under ${MAX_FALSE_ALARM * 100}%` };
  if (differing.length >= ANSWERS_MIN_DIFFERING) {
    return { ...stat, verdict: 'different', why: `${only}: ${differing.length} of ${common.length} prompts answered otherwise at temperature 0, each run agreeing with itself (threshold ${ANSWERS_MIN_DIFFERING}); ${cal.note}` };
  }
  if (differing.length > 0) {
    return { ...stat, verdict: 'unverifiable', why: `${only}: 1 of ${common.length} prompts answered otherwise, fewer than the ${ANSWERS_MIN_DIFFERING} that rule out a near tie flipped by noise` };
  }
  return { ...stat, verdict: 'same', why: `${only}: all ${common.length} prompts answered alike; answers alone do not tell a quantized twin (low power); ${cal.note}` };
}

/**
 * A baseline's fingerprint of a model, and what the gate requires of the run's against it: `same` (only
 * `same` passes), `not_different` (`unverifiable` passes too), or nothing (the comparison is reported, not
 * gated). docs/identity.md describes the field.
 */
export const IdentityRequirement = z.enum(['same', 'not_different']);
export type IdentityRequirement = z.infer<typeof IdentityRequirement>;
export const BaselineIdentity = z.object({ require: IdentityRequirement.optional(), fingerprint: Fingerprint });
export type BaselineIdentity = z.infer<typeof BaselineIdentity>;

const TokenizerSeenSchema = z.object({ family: z.string(), label: z.string(), unitTokens: z.number().int(), counts: z.string() });

/** A model's fingerprint weighed against its baseline's, as the report keeps it (report/gate.ts). */
export const IdentityCheck = z.object({
  model: z.string(),
  verdict: z.enum(['same', 'different', 'unverifiable']),
  statistic: z.number(),
  threshold: z.number(),
  falseAlarmRate: z.number().optional(),
  power: z.number().optional(),
  sampleSize: z.object({ prompts: z.number().int(), a: z.number().int(), b: z.number().int() }),
  signal: z.enum(['logprobs', 'answers', 'tokenizer', 'none']),
  where: z.array(z.object({ prompt: z.string(), distance: z.number(), a: z.string().optional(), b: z.string().optional() })),
  /** The tokenizer each side counts with, where both named one from an exact fit. */
  tokenizer: z.object({ a: TokenizerSeenSchema, b: TokenizerSeenSchema }).optional(),
  why: z.string(),
  /** What the baseline requires; absent: reported, not gated. */
  require: IdentityRequirement.optional(),
  /** passed / failed against the requirement; `skipped` when nothing is required. */
  outcome: z.enum(['passed', 'failed', 'skipped']),
});
export type IdentityCheck = z.infer<typeof IdentityCheck>;

/** Whether a comparison meets a requirement. */
export const meets = (verdict: FingerprintComparison['verdict'], require: IdentityRequirement): boolean => verdict === 'same' || (require === 'not_different' && verdict === 'unverifiable');

/** A comparison as the report keeps it (undefined members left out: the schema's optional fields). */
export function identityCheck(model: string, c: FingerprintComparison, require: IdentityRequirement | undefined): IdentityCheck {
  const out: IdentityCheck = {
    model,
    verdict: c.verdict,
    statistic: Number.isFinite(c.statistic) ? c.statistic : Number.MAX_VALUE,
    threshold: c.threshold,
    sampleSize: c.sampleSize,
    signal: c.signal,
    where: c.where.map((w) => ({ prompt: w.prompt, distance: Number.isFinite(w.distance) ? w.distance : Number.MAX_VALUE, ...(w.a !== undefined ? { a: w.a } : {}), ...(w.b !== undefined ? { b: w.b } : {}) })),
    why: c.why,
    outcome: require === undefined ? 'skipped' : meets(c.verdict, require) ? 'passed' : 'failed',
  };
  if (c.falseAlarmRate !== undefined) out.falseAlarmRate = c.falseAlarmRate;
  if (c.power !== undefined) out.power = c.power;
  if (c.tokenizer) out.tokenizer = c.tokenizer;
  if (require) out.require = require;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// One run: one source or several

export interface MixedBackends {
  /** `one`: one source; `mixed`: two sources told apart; `config`: the content is one source, the server's own signals differ (system_fingerprint, id form, headers); `undecided`. */
  verdict: 'one' | 'mixed' | 'config' | 'undecided';
  /** Anchor repeats in each group (mixed), largest first, with the call ids of each. */
  split?: { size: number; evidence: string[]; answer: string | undefined; systemFingerprints: string[]; medianMs: number | undefined }[];
  /** The widest distance within a group, and the closest across groups (logprobs). */
  spread?: number;
  gap?: number;
  signal: 'logprobs' | 'answers';
  repeats: number;
  /** What else differs across the repeats: system_fingerprint, id form, headers, timing (supporting only). */
  supporting: string[];
  why: string;
}

/** Single linkage down to two groups: each point's group, and the distance the last join would take. */
function twoGroups(n: number, dist: (i: number, j: number) => number): { groups: number[][]; gap: number; within: number } {
  const groupOf = Array.from({ length: n }, (_, i) => i);
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push([dist(i, j), i, j]);
  // Sorted by distance, then by position, so equal distances join in one order every time.
  pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  let groups = n;
  let within = 0;
  let gap = 0;
  for (const [d, i, j] of pairs) {
    const gi = groupOf[i]!;
    const gj = groupOf[j]!;
    if (gi === gj) continue;
    if (groups === 2) {
      gap = d;
      break;
    }
    for (let k = 0; k < n; k++) if (groupOf[k] === gj) groupOf[k] = gi;
    groups--;
    within = Math.max(within, d);
  }
  const byGroup = new Map<number, number[]>();
  groupOf.forEach((g, i) => byGroup.set(g, [...(byGroup.get(g) ?? []), i]));
  return { groups: [...byGroup.values()].sort((x, y) => y.length - x.length || x[0]! - y[0]!), gap, within };
}

const median = (xs: number[]): number | undefined => {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

/** What differs across the samples beside the content: each signal with more than one value. */
function sideSignals(samples: readonly FingerprintSample[]): { name: string; values: (string | undefined)[] }[] {
  const out: { name: string; values: (string | undefined)[] }[] = [];
  const take = (name: string, get: (s: FingerprintSample) => string | undefined) => {
    const values = samples.map(get);
    if (new Set(values.filter((v) => v !== undefined)).size > 1) out.push({ name, values });
  };
  take('system_fingerprint', (s) => s.systemFingerprint);
  take('id form', (s) => s.idForm);
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.headers ?? {})))].sort();
  for (const h of names) take(`header ${h}`, (s) => s.headers?.[h]);
  return out;
}

/** Whether a side signal splits the samples exactly as `groups` do (each group one value, the groups' values apart). */
function alignsWith(values: readonly (string | undefined)[], groups: readonly number[][]): boolean {
  const perGroup = groups.map((g) => new Set(g.map((i) => values[i])));
  if (perGroup.some((s) => s.size !== 1 || s.has(undefined))) return false;
  return new Set(perGroup.map((s) => [...s][0])).size === groups.length;
}

/**
 * One run's anchor repeats: one source, or more behind the name (a load balancer over two backends).
 * With logprobs: the repeats' alternatives joined by single linkage into two groups; two sources when the
 * closest pair across the groups is past the floor and MIXED_GAP_RATIO times the widest pair within
 * them. A spread without such a gap is one noisy source (undecided past MIXED_NOISE_MAX: a mix closer than
 * the noise would not show). With answers only: differing answers are a mix only when a side signal
 * (system_fingerprint, id form, a route header) splits the repeats the same way; alone they could be a
 * server that samples at temperature 0. Side signals that differ over one content are `config`; timing is
 * only ever told beside a split, never decides one.
 */
export function mixedBackends(f: Fingerprint, prompt: string = FINGERPRINT_PROMPT_KEYS[0]): MixedBackends {
  const samples = samplesOf(f, prompt);
  const logprobs = hasLogprobs(f);
  const signal = logprobs ? ('logprobs' as const) : ('answers' as const);
  const base = { signal, repeats: samples.length };
  // The same request answered some times and refused others: two backends that treat it otherwise (one
  // takes logprobs, the other refuses them). A refusal is never chance the way a sampled answer is.
  const refused = f.samples.filter((s) => s.prompt === prompt && s.refused);
  if (refused.length >= 2 && samples.length >= 2) {
    const all = [samples, refused];
    return {
      ...base,
      verdict: 'mixed',
      split: all.map((g) => ({
        size: g.length,
        evidence: g.map((x) => x.evidence),
        answer: g[0]!.answer,
        systemFingerprints: [...new Set(g.map((x) => x.systemFingerprint).filter((v): v is string => v !== undefined))],
        medianMs: median(g.map((x) => x.durationMs).filter((v): v is number => v !== undefined)),
      })),
      supporting: [],
      why: `the same request at temperature 0 was answered ${samples.length} times and refused ${refused.length} times (${refused[0]!.error ?? 'a 4xx'}): two backends that treat it otherwise`,
    };
  }
  if (samples.length < MIN_REPEATS) {
    return { ...base, verdict: 'undecided', supporting: [], why: `${samples.length} of the anchor's repeats answered, fewer than the ${MIN_REPEATS} a split needs` };
  }
  const sides = sideSignals(samples);
  const describeSplit = (groups: number[][]) =>
    groups.map((g) => ({
      size: g.length,
      evidence: g.map((i) => samples[i]!.evidence),
      answer: samples[g[0]!]!.answer,
      systemFingerprints: [...new Set(g.map((i) => samples[i]!.systemFingerprint).filter((v): v is string => v !== undefined))],
      medianMs: median(g.map((i) => samples[i]!.durationMs).filter((v): v is number => v !== undefined)),
    }));
  const timing = (groups: number[][]): string[] => {
    const ms = groups.map((g) => median(g.map((i) => samples[i]!.durationMs).filter((v): v is number => v !== undefined)));
    return ms.every((m) => m !== undefined) ? [`median time ${ms.map((m) => `${Math.round(m!)} ms`).join(' vs ')} (supporting only)`] : [];
  };
  if (logprobs) {
    const d = (i: number, j: number) => topDistance(samples[i]!.top!, samples[j]!.top!);
    const all = diameter(samples);
    const { groups, gap, within } = twoGroups(samples.length, d);
    if (all <= TOLERANCE_FLOOR) {
      return sideVerdict({ ...base, spread: all }, sides, `the ${samples.length} repeats' logprobs agree within the floor (${fmt(all)} ≤ ${TOLERANCE_FLOOR})`);
    }
    if (gap > TOLERANCE_FLOOR && gap >= MIXED_GAP_RATIO * Math.max(within, TOLERANCE_FLOOR)) {
      const aligned = sides.filter((s) => alignsWith(s.values, groups)).map((s) => `${s.name} splits the same way`);
      return {
        ...base,
        verdict: 'mixed',
        split: describeSplit(groups),
        spread: within,
        gap,
        supporting: [...aligned, ...timing(groups)],
        why: `the anchor's ${samples.length} repeats fall in two groups of ${groups.map((g) => g.length).join(' and ')}: logprobs ${fmt(gap)} apart across them, at most ${fmt(within)} within (ratio ≥ ${MIXED_GAP_RATIO})`,
      };
    }
    if (all > MIXED_NOISE_MAX) {
      return { ...base, verdict: 'undecided', spread: all, gap, supporting: sides.map((s) => `${s.name} differs`), why: `the repeats spread by ${fmt(all)} at temperature 0 with no gap between groups: one noisy source, or a mix closer than its noise` };
    }
    return sideVerdict({ ...base, spread: all }, sides, `the ${samples.length} repeats spread by ${fmt(all)}, without two groups apart`);
  }
  const answers = [...new Set(samples.map((s) => s.answer))];
  if (answers.length === 1) {
    return sideVerdict(base, sides, `answers only (${f.why ?? 'no logprobs'}): the ${samples.length} repeats answered alike (a quantized twin would too)`);
  }
  const groups = answers.map((a) => samples.flatMap((s, i) => (s.answer === a ? [i] : []))).sort((x, y) => y.length - x.length || x[0]! - y[0]!);
  const aligned = sides.filter((s) => alignsWith(s.values, groups));
  if (groups.length === 2 && aligned.length > 0) {
    return {
      ...base,
      verdict: 'mixed',
      split: describeSplit(groups),
      supporting: [...aligned.map((s) => `${s.name} splits the same way`), ...timing(groups)],
      why: `answers only: the anchor's ${samples.length} repeats answered ${answers.length} ways at temperature 0, and ${aligned.map((s) => s.name).join(', ')} split them the same way`,
    };
  }
  return {
    ...base,
    verdict: 'undecided',
    supporting: sides.map((s) => `${s.name} differs`),
    why: `answers only: the anchor's ${samples.length} repeats answered ${answers.length} ways at temperature 0 with no side signal splitting them alike: two sources, or one that samples at temperature 0`,
  };
}

function sideVerdict(base: Pick<MixedBackends, 'signal' | 'repeats' | 'spread'>, sides: { name: string; values: (string | undefined)[] }[], seen: string): MixedBackends {
  if (sides.length === 0) return { ...base, verdict: 'one', supporting: [], why: `one source: ${seen}` };
  const which = sides.map((s) => `${s.name} (${[...new Set(s.values.filter((v) => v !== undefined))].slice(0, 3).join(', ')})`);
  return { ...base, verdict: 'config', supporting: which.map((w) => `${w} differs`), why: `${seen}, but ${which.join('; ')} differ across them: backends of one configuration apart, serving alike` };
}

// ---------------------------------------------------------------------------------------------------
// What the reports show of a fingerprint

export interface FingerprintView {
  signal: Fingerprint['signal'];
  /** Samples answered, of those sent. */
  answered: number;
  sent: number;
  prompts: number;
  /** The widest distance among one prompt's repeats (logprobs only). */
  spread: number | undefined;
  /** The anchor's answers, most frequent first, with their counts. */
  anchor: { answer: string; count: number }[];
  systemFingerprints: string[];
  idForms: string[];
  /** The anchor's repeats in the order sent: each answer (or the failure) and its first token's logprob. */
  repeats: { evidence: string; answer?: string; logprob?: number; error?: string }[];
  /** In words, one line. */
  text: string;
}

/** A fingerprint as the matrix, JUnit and report.html show it: its signal, its own spread, the anchor's answers. */
export function viewFingerprint(f: Fingerprint): FingerprintView {
  const answered = f.samples.filter(answered_);
  const counts = new Map<string, number>();
  for (const s of samplesOf(f, FINGERPRINT_PROMPT_KEYS[0])) counts.set(s.answer!, (counts.get(s.answer!) ?? 0) + 1);
  const anchor = [...counts].map(([answer, count]) => ({ answer, count })).sort((a, b) => b.count - a.count || (a.answer < b.answer ? -1 : 1));
  const spread = ownSpread(f);
  const systemFingerprints = [...new Set(answered.map((s) => s.systemFingerprint).filter((v): v is string => v !== undefined))];
  const idForms = [...new Set(answered.map((s) => s.idForm).filter((v): v is string => v !== undefined))];
  const prompts = new Set(answered.map((s) => s.prompt)).size;
  const tokenizer = exactFamily(f.tokenizer);
  const parts = [
    f.signal === 'logprobs' ? `logprobs (top ${f.topLogprobs})` : `answers only${f.why ? ` (${f.why})` : ''}`,
    `${answered.length}/${f.samples.length} answered over ${prompts} prompts`,
    spread !== undefined ? `own spread ${fmt(spread)}` : '',
    anchor.length > 0 ? `anchor ${anchor.slice(0, 3).map((a) => `${JSON.stringify(a.answer)} ×${a.count}`).join(', ')}${anchor.length > 3 ? ', …' : ''}` : '',
    systemFingerprints.length > 0 ? `system_fingerprint ${systemFingerprints.slice(0, 3).join(', ')}` : '',
    tokenizer ? `counts like ${tokenizer.label}` : '',
  ];
  const repeats = f.samples
    .filter((s) => s.prompt === FINGERPRINT_PROMPT_KEYS[0])
    .map((s) => {
      const lp = s.top?.find(([t]) => s.answer !== undefined && s.answer.startsWith(t))?.[1] ?? s.top?.[0]?.[1];
      return { evidence: s.evidence, ...(s.answer !== undefined ? { answer: s.answer } : {}), ...(lp !== undefined ? { logprob: lp } : {}), ...(s.error !== undefined ? { error: s.error } : {}) };
    });
  return { signal: f.signal, answered: answered.length, sent: f.samples.length, prompts, spread, anchor, systemFingerprints, idForms, repeats, text: parts.filter(Boolean).join(' · ') };
}

const answered_ = (s: FingerprintSample): boolean => s.answer !== undefined;
