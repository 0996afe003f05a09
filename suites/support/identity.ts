import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ChatBody, type ChatOptions, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, describeFailure, errored, inconclusive, namesAny, note, warn } from '../../src/engine/verdicts.js';
import {
  ANCHOR_REPEATS,
  Fingerprint,
  IDENTITY_HEADERS,
  idForm,
  MAX_THRESHOLD,
  MIN_REPEATS,
  mixedBackends,
  ownSpread,
  samplesOf,
  SPREAD_FACTOR,
  TOLERANCE_FLOOR,
  TOP_LOGPROBS,
  type FingerprintSample,
  type FingerprintTokenizer,
  type MixedBackends,
} from '../../src/results/identity.js';
import type { Finding } from '../../src/results/model.js';
import { readChoices } from '../../src/wire/completion.js';
import { isObject } from '../../src/wire/json.js';
import { RANDOM_NUMBER, user } from './prompts.js';
import { familyLabel, fitSeries, unnamed, USAGE_SERIES, type Series } from './usage.js';

/**
 * The fingerprint (identity.*, issue 34): fixed prompts at temperature 0 with one-token answers (one short
 * answer), `top_logprobs` where the model gives them. The anchor is repeated ANCHOR_REPEATS times for the
 * model's own spread and the mixed-channel test; the other prompts, once each, widen the fingerprint that
 * two runs are compared on. The judgements are in src/results/identity.ts, pure functions of the
 * Fingerprint this file reads from the exchanges.
 */

/** A fingerprint prompt: its key (what two runs are matched on), its text, and its output limit. */
export interface FingerprintPrompt {
  key: string;
  text: string;
  maxTokens: number;
}

/**
 * Open prompts whose first token spreads over many candidates (so the alternatives carry information about
 * the weights), and one short sentence for the answers-only fallback, where a few tokens tell more than one.
 * Never changed in place: a changed text is a new key, or two runs would be compared on different prompts.
 */
export const ANCHOR: FingerprintPrompt = { key: 'anchor', text: 'Reply with one random English noun, nothing else.', maxTokens: 1 };
export const WIDENING: readonly FingerprintPrompt[] = [
  { key: 'number', text: RANDOM_NUMBER, maxTokens: 1 },
  { key: 'colour', text: 'Name one colour. Reply with the colour only.', maxTokens: 1 },
  { key: 'capital', text: 'Complete with one word: The capital of France is', maxTokens: 1 },
  { key: 'sentence', text: 'Write one short sentence about the sea.', maxTokens: 8 },
];

/** The requests, in the order sent: the anchor's repeats, then each widening prompt once. */
export const FINGERPRINT_PLAN: readonly FingerprintPrompt[] = [...Array.from({ length: ANCHOR_REPEATS }, () => ANCHOR), ...WIDENING];

const body = (p: FingerprintPrompt, logprobs: boolean): ChatBody => ({
  messages: [user(p.text)],
  max_tokens: p.maxTokens,
  temperature: 0,
  ...(logprobs ? { logprobs: true, top_logprobs: TOP_LOGPROBS } : {}),
});

/** The first answer token's alternatives, most likely first, as the server listed them; undefined if none. */
export function firstTop(json: unknown): [string, number][] | undefined {
  if (!isObject(json) || !Array.isArray(json.choices) || !isObject(json.choices[0])) return undefined;
  const lp = json.choices[0].logprobs;
  if (!isObject(lp) || !Array.isArray(lp.content) || !isObject(lp.content[0])) return undefined;
  const top = lp.content[0].top_logprobs;
  if (!Array.isArray(top)) return undefined;
  const out: [string, number][] = [];
  // Our cap: the first TOP_LOGPROBS × 4 entries (a server may list more than asked; none needs more).
  for (const t of top.slice(0, TOP_LOGPROBS * 4)) {
    if (isObject(t) && typeof t.token === 'string' && typeof t.logprob === 'number' && Number.isFinite(t.logprob)) out.push([t.token.slice(0, 64), t.logprob]);
  }
  return out.length > 0 ? out.sort((a, b) => b[1] - a[1]) : undefined;
}

/** One exchange as a fingerprint sample: the answer, its first token's alternatives, and the side signals. */
export function readSample(x: Exchange, prompt: string): FingerprintSample {
  const s: FingerprintSample = { prompt, evidence: x.callId, durationMs: Math.round(x.durationMs) };
  const headers: Record<string, string> = {};
  for (const h of IDENTITY_HEADERS) if (x.headers[h] !== undefined) headers[h] = x.headers[h]!.slice(0, 120);
  if (Object.keys(headers).length > 0) s.headers = headers;
  const problem = answerProblem(x, 'content');
  if (problem) {
    s.error = problem.slice(0, 300);
    // A refusal of what the request carries (400, 422), which one backend gives every time or never; not
    // a 408, 409 or 429 a single busy backend gives now and then, nor one of a cause of its own (the key).
    if (!x.cause && (x.status === 400 || x.status === 422)) s.refused = true;
    return s;
  }
  s.answer = (readChoices(x.json)[0]?.content ?? '').slice(0, 200);
  const top = firstTop(x.json);
  if (top) s.top = top;
  if (isObject(x.json)) {
    if (typeof x.json.system_fingerprint === 'string' && x.json.system_fingerprint !== '') s.systemFingerprint = x.json.system_fingerprint.slice(0, 120);
    if (typeof x.json.id === 'string' && x.json.id !== '') s.idForm = idForm(x.json.id);
  }
  return s;
}

/** The fingerprint from its exchanges (in FINGERPRINT_PLAN's order), and why it is answers only when it is. */
export function fingerprintOf(xs: readonly { prompt: FingerprintPrompt; x: Exchange; logprobs: boolean }[], refused?: string): Fingerprint {
  const samples = xs.map(({ prompt, x }) => readSample(x, prompt.key));
  const answered = samples.filter((s) => s.answer !== undefined);
  const withTop = answered.filter((s) => s.top !== undefined);
  const f: Fingerprint = { version: 1, signal: 'logprobs', topLogprobs: TOP_LOGPROBS, samples };
  if (refused) return { ...f, signal: 'answers', why: refused };
  if (answered.length > 0 && withTop.length === 0) return { ...f, signal: 'answers', why: 'the server answered without logprobs (ignored)' };
  if (withTop.length < answered.length) return { ...f, signal: 'answers', why: `${answered.length - withTop.length} of ${answered.length} answers came without logprobs` };
  return f;
}

/**
 * The fingerprint's requests, back to back in one request slot (their order is the record's, so a replay
 * answers each repeat as the run did). The first asks for logprobs; if it gets no answer where the smoke
 * call got one (a 4xx, or an error body in a 200), the others go without, and the fingerprint is answers
 * only (B3IT). A refusal of temperature 0 ends it: a model that samples cannot be fingerprinted greedily.
 */
export const FINGERPRINT = defineShared({
  key: 'identity.fingerprint',
  cost: { requests: FINGERPRINT_PLAN.length, maxTokens: FINGERPRINT_PLAN.reduce((n, p) => n + p.maxTokens, 0) },
  make: (ctx: ProbeContext) =>
    ctx.sequence(async (inSlot: ChatOptions) => {
      const out: { prompt: FingerprintPrompt; x: Exchange; logprobs: boolean }[] = [];
      let logprobs = true;
      let refused: string | undefined;
      for (const prompt of FINGERPRINT_PLAN) {
        // A reasoning model's limits get room for its reasoning (engine/room.ts): the answer still comes.
        const x = await ctx.chat(body(prompt, logprobs), inSlot);
        out.push({ prompt, x, logprobs });
        const declined = !x.cause && x.status !== undefined && x.status >= 400 && x.status < 500;
        if (declined && namesAny(x, ['temperature'])) {
          refused = `the model refuses temperature 0 (${describeFailure(x).slice(0, 160)})`;
          break;
        }
        const noAnswer = declined || (x.ok && answerProblem(x, 'choice') !== undefined && !x.truncated);
        if (out.length === 1 && noAnswer && !answerProblem(ctx.control(), 'content')) {
          logprobs = false;
          refused = `the request with logprobs got no answer where the plain one did (${(answerProblem(x, 'choice') ?? describeFailure(x)).slice(0, 160)})`;
        }
      }
      return { fingerprint: fingerprintOf(out, refused), exchanges: out.map((o) => o.x) };
    }),
  // The tokenizer beside it, from the usage series where the usage probes made it (nothing is sent for it).
  summary: ({ fingerprint }, made) => ({ fingerprint: { ...fingerprint, tokenizer: tokenizerOf(made(USAGE_SERIES)) } }),
});

/**
 * The fingerprint's tokenizer signal: the family usage.tokenizer names from the series (an exact fit that
 * a free point confirms: suites/support/usage.ts), the counts it rests on and their calls; or why none is
 * named, or that the series was not read (a run without the usage probes has no tokenizer signal).
 */
export function tokenizerOf(series: Series | undefined): FingerprintTokenizer {
  if (!series) return { why: 'not read: no usage series in this run (the usage probes did not run, or could not make it), so no prompt counts to fit; nothing is sent for them here' };
  const evidence = [...series.points.map((p) => p.x.callId), ...series.checks.map((c) => c.x.callId)];
  const r = fitSeries(series);
  if ('verdict' in r) return { evidence, why: `no family named: ${r.verdict.observed}`.slice(0, 400) };
  // A server's count past the integers JSON keeps exactly (a hostile or broken usage) is kept as no count.
  if (![...r.fit.points, ...r.fit.checks].every((p) => Number.isSafeInteger(p.prompt))) {
    return { evidence, why: 'no family named: a prompt count past the integers a report keeps exactly (2^53), which no tokenizer counts' };
  }
  const counts = { points: r.fit.points, checks: r.fit.checks, evidence };
  const why = unnamed(r.fit);
  if (why || !r.fit.family) return { ...counts, why: `no family named: ${why ?? 'no exact fit'}`.slice(0, 400) };
  return { family: r.fit.family, label: familyLabel(r.fit.family), ...counts };
}

const fmt = (x: number): string => (x === 0 ? '0' : x < 0.001 ? x.toExponential(1) : String(Math.round(x * 1000) / 1000));

/** Every sample failed the same way for a cause (auth, quota, 5xx…): the cell is an error, not a fingerprint. */
function failedWhole(f: Fingerprint, xs: readonly Exchange[]): ProbeVerdict | undefined {
  if (f.samples.some((s) => s.answer !== undefined)) return undefined;
  const caused = xs.find((x) => x.cause);
  if (caused?.cause) return errored(caused.cause, caused, `expected answers to the fingerprint's prompts, got ${describeFailure(caused)}`);
  return inconclusive(`expected answers to the fingerprint's prompts, got none: ${f.samples[0]?.error ?? 'no sample'}`);
}

/**
 * identity.fingerprint: the model's own spread at temperature 0. Repeats of one prompt that agree within
 * the floor make a fingerprint later runs can be weighed against; a spread that puts the comparison's
 * threshold past MAX_THRESHOLD leaves it no power (warn: comparisons will say `unverifiable`). Answers
 * only is a note, not a fault (fewer signals, lower power). A spread that is two sources is
 * identity.mixed_backends's finding: here it is inconclusive.
 */
export function judgeFingerprint(f: Fingerprint, xs: readonly Exchange[] = []): ProbeVerdict {
  const failed = failedWhole(f, xs);
  if (failed) return failed;
  const anchor = samplesOf(f, ANCHOR.key);
  const expected = `expected the anchor's ${ANCHOR_REPEATS} repeats at temperature 0 to agree`;
  if (anchor.length < MIN_REPEATS) {
    const why = f.samples.find((s) => s.prompt === ANCHOR.key && s.error)?.error;
    return inconclusive(`${expected}, got ${anchor.length} answers, fewer than ${MIN_REPEATS}${why ? ` (${why})` : ''}`);
  }
  const findings: Finding[] = [];
  const errors = f.samples.filter((s) => s.answer === undefined).length;
  const answeredPrompts = new Set(f.samples.filter((s) => s.answer !== undefined).map((s) => s.prompt)).size;
  const size = `${f.samples.length - errors} of ${f.samples.length} answered, ${answeredPrompts} prompts`;
  if (errors > 0) findings.push(note('unanswered', `${errors} of the fingerprint's ${f.samples.length} requests got no answer`));
  const mixed = mixedBackends(f);
  if (mixed.verdict === 'mixed') return { ...inconclusive(`${expected}, got two groups of ${mixed.split!.map((g) => g.size).join(' and ')} (identity.mixed_backends): no one model's spread to keep`), findings };
  if (f.signal === 'answers') {
    findings.push(note('answers_only', `answers only (${f.why ?? 'no logprobs'}): the fingerprint has fewer signals, and comparisons less power`));
    const distinct = new Set(anchor.map((s) => s.answer)).size;
    if (distinct > 1) {
      findings.push(warn('spread', `the anchor's ${anchor.length} repeats answered ${distinct} ways at temperature 0: comparisons of this model will be unverifiable`));
      return { verdict: 'warn', observed: `${expected}, got ${distinct} different answers (answers only; ${size})`, findings };
    }
    return { verdict: 'pass', observed: `${expected}; they did: one answer ${JSON.stringify(anchor[0]!.answer)} (answers only; ${size})`, findings };
  }
  const spread = ownSpread(f)!;
  const threshold = Math.max(TOLERANCE_FLOOR, SPREAD_FACTOR * spread);
  if (threshold > MAX_THRESHOLD) {
    findings.push(warn('spread', `the model's own spread (${fmt(spread)}) puts a comparison's threshold at ${fmt(threshold)}, past ${MAX_THRESHOLD}: comparisons of this model will be unverifiable`));
    return { verdict: 'warn', observed: `${expected} within ${fmt(MAX_THRESHOLD / SPREAD_FACTOR)} in logprob, got a spread of ${fmt(spread)} (top ${f.topLogprobs}; ${size})`, findings };
  }
  if (spread > TOLERANCE_FLOOR) findings.push(note('spread', `the repeats spread by ${fmt(spread)}, past the floor ${TOLERANCE_FLOOR}: a comparison's threshold is ${fmt(threshold)}`));
  return { verdict: 'pass', observed: `${expected} in their logprobs; spread ${fmt(spread)} (top ${f.topLogprobs}; ${size})`, findings };
}

/** identity.mixed_backends: one source behind the name, or two (results/identity.ts mixedBackends). */
export function judgeMixed(f: Fingerprint, xs: readonly Exchange[] = []): ProbeVerdict {
  const failed = failedWhole(f, xs);
  if (failed) return failed;
  return mixedVerdict(mixedBackends(f));
}

export function mixedVerdict(m: MixedBackends): ProbeVerdict {
  const expected = `expected one source behind the name (the anchor's ${m.repeats} repeats alike)`;
  const also = m.supporting.length > 0 ? `; ${m.supporting.join('; ')}` : '';
  switch (m.verdict) {
    case 'one':
      return { verdict: 'pass', observed: `${expected}; ${m.why}`, findings: [] };
    case 'config':
      return { verdict: 'warn', observed: `${expected}; ${m.why}`, findings: [warn('backend_config', m.why)] };
    case 'mixed': {
      const split = m.split!.map((g) => `${g.size} (${g.evidence.join(', ')})`).join(' vs ');
      return { verdict: 'fail', observed: `${expected}, got two: ${m.why}${also}`, findings: [{ severity: 'fail', code: 'mixed_backends', message: `split ${split}` }] };
    }
    case 'undecided':
      return inconclusive(`${expected}: ${m.why}${also}`);
  }
}
