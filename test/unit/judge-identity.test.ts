import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/exchange.js';
import { seededRandom } from '../../src/reference/pseudo-model.js';
import {
  ANCHOR_REPEATS,
  compareFingerprints,
  exactFamily,
  idForm,
  MAX_THRESHOLD,
  mixedBackends,
  TOLERANCE_FLOOR,
  topDistance,
  type Fingerprint,
  type FingerprintSample,
  type FingerprintTokenizer,
} from '../../src/results/identity.js';
import { ANCHOR, FINGERPRINT_PLAN, fingerprintOf, judgeFingerprint, judgeMixed, readSample, tokenizerOf, WIDENING } from '../../suites/support/identity.js';
import { TOKENIZER_TABLE } from '../../suites/support/tokenizer-table.js';
import type { Series } from '../../suites/support/usage.js';
import { errorIn200, refused, reply } from '../helpers/exchanges.js';

/**
 * Synthetic fingerprints: a model is a base logprob vector per prompt; a run adds its own noise (a seeded
 * sequence, no luck), a shift (a quantized twin), or picks one of two models per request (a mix).
 */
type Model = { seed: number; shift?: number };

/** Seeded, so a "noisy" run is the same noise every time. */
const rng = seededRandom;

const WORDS = ['apple', 'river', 'stone', 'cloud', 'lamp', 'tree', 'bird'];

/** A model's alternatives for a prompt: five tokens with logprobs from its seed, plus its shift. */
function topOf(m: Model, prompt: string, noise = 0, r: () => number = () => 0.5): [string, number][] {
  const g = rng(m.seed * 977 + [...prompt].reduce((h, c) => h * 31 + c.charCodeAt(0), 7));
  return WORDS.slice(0, 5)
    .map((w, i): [string, number] => [w, -(0.3 + i * 0.9 + g() * 0.4) + (m.shift ?? 0) * (i % 2 === 0 ? 1 : -1) + (r() - 0.5) * 2 * noise])
    .sort((a, b) => b[1] - a[1]);
}

let call = 0;
function sample(prompt: string, m: Model, o: { noise?: number; r?: () => number; logprobs?: boolean; system?: string; answer?: string } = {}): FingerprintSample {
  const top = topOf(m, prompt, o.noise, o.r);
  const s: FingerprintSample = { prompt, evidence: `c${++call}`, answer: o.answer ?? top[0]![0], durationMs: 100 + m.seed };
  if (o.logprobs !== false) s.top = top;
  if (o.system) s.systemFingerprint = o.system;
  return s;
}

const PROMPTS = FINGERPRINT_PLAN.map((p) => p.key);

/** A run: each request answered by `pick(i)`'s model. */
function run(pick: (i: number) => Model, o: { noise?: number; seed?: number; logprobs?: boolean; system?: (i: number) => string | undefined; answer?: (i: number) => string | undefined } = {}): Fingerprint {
  const r = rng(o.seed ?? 1);
  const samples = PROMPTS.map((p, i) => sample(p, pick(i), { noise: o.noise ?? 0, r, logprobs: o.logprobs ?? true, system: o.system?.(i), answer: o.answer?.(i) }));
  return o.logprobs === false ? { version: 1, signal: 'answers', why: 'the server answered without logprobs (ignored)', topLogprobs: 5, samples } : { version: 1, signal: 'logprobs', topLogprobs: 5, samples };
}

const A: Model = { seed: 1 };
const B: Model = { seed: 2 };
const A_Q4: Model = { seed: 1, shift: 0.2 };
const A_FLOAT: Model = { seed: 1, shift: 1e-5 };

describe('topDistance: the largest logprob move, at least', () => {
  it('is the largest difference of a token both lists name', () => {
    expect(topDistance([['a', -0.1], ['b', -2]], [['a', -0.15], ['b', -1.9]])).toBeCloseTo(0.1);
  });
  it('counts a token one list lacks only by how far it stands above the other list\'s last (noise at the edge counts nothing)', () => {
    // b and c swapped places at the edge by 1e-4: that much, no more.
    expect(topDistance([['a', -0.1], ['b', -3]], [['a', -0.1], ['c', -3.0001]])).toBeCloseTo(1e-4, 8);
    expect(topDistance([['a', -0.1], ['b', -3.0001]], [['a', -0.1], ['c', -3]])).toBeCloseTo(1e-4, 8);
    expect(topDistance([['a', -0.1], ['b', -1]], [['a', -0.1], ['c', -3]])).toBeCloseTo(2);
  });
  it('tells apart two alternatives shown alike (partial UTF-8 as "�"): the second does not overwrite the first', () => {
    expect(topDistance([['a', -0.1], ['\ufffd', -1], ['\ufffd', -2]], [['a', -0.1], ['\ufffd', -1], ['\ufffd', -2]])).toBe(0);
    expect(topDistance([['a', -0.1], ['\ufffd', -1], ['\ufffd', -2]], [['a', -0.1], ['\ufffd', -1.5], ['\ufffd', -2]])).toBeCloseTo(0.5);
  });
});

describe('compareFingerprints: two runs of one name', () => {
  it('equal: the same deterministic model twice is `same`, statistic 0, at the floor', () => {
    const c = compareFingerprints(run(() => A), run(() => A));
    expect(c).toMatchObject({ verdict: 'same', statistic: 0, threshold: TOLERANCE_FLOOR, signal: 'logprobs', sampleSize: { prompts: WIDENING.length + 1, a: PROMPTS.length, b: PROMPTS.length } });
  });

  it('a restart that moves logprobs by float noise (other thread count) stays `same`: the floor', () => {
    expect(compareFingerprints(run(() => A), run(() => A_FLOAT)).verdict).toBe('same');
  });

  it('shifted: a quantized twin (logprobs moved past the floor) is `different`, and says where', () => {
    const c = compareFingerprints(run(() => A), run(() => A_Q4));
    expect(c.verdict).toBe('different');
    expect(c.statistic).toBeGreaterThan(c.threshold);
    expect(c.where.length).toBeGreaterThan(0);
  });

  it('other weights are `different`', () => {
    expect(compareFingerprints(run(() => A), run(() => B)).verdict).toBe('different');
  });

  it('noisy: a server that ignores temperature 0 (its own spread large) is `unverifiable`, not `different`, even against other weights', () => {
    const noisy = run(() => A, { noise: 0.3 });
    const c = compareFingerprints(noisy, run(() => B));
    expect(c.verdict).toBe('unverifiable');
    expect(c.threshold).toBeGreaterThan(MAX_THRESHOLD);
    expect(c.why).toMatch(/own spread/);
    expect(compareFingerprints(noisy, run(() => A, { noise: 0.3, seed: 9 })).verdict).toBe('unverifiable');
  });

  it('a little noise raises the threshold with the spread: the same model stays `same`', () => {
    const c = compareFingerprints(run(() => A, { noise: 0.004, seed: 3 }), run(() => A, { noise: 0.004, seed: 4 }));
    expect(c.verdict).toBe('same');
    expect(c.threshold).toBeGreaterThanOrEqual(TOLERANCE_FLOOR);
  });

  it('no logprobs: answers only (B3IT), `different` when prompts answer otherwise, each run self-consistent', () => {
    const a = run(() => A, { logprobs: false, answer: (i) => `a${PROMPTS[i]}` });
    const b = run(() => B, { logprobs: false, answer: (i) => `b${PROMPTS[i]}` });
    const c = compareFingerprints(a, b);
    expect(c).toMatchObject({ verdict: 'different', signal: 'answers', statistic: WIDENING.length + 1 });
    expect(c.why).toMatch(/answers only/);
    // Both runs without logprobs for one reason: the reason said once.
    expect(c.why.split('the server answered without logprobs (ignored)')).toHaveLength(2);
  });

  it('no logprobs and alike answers: `same`, saying answers alone cannot tell a quantized twin', () => {
    const c = compareFingerprints(run(() => A, { logprobs: false }), run(() => A_Q4, { logprobs: false }));
    expect(c.verdict).toBe('same');
    expect(c.why).toMatch(/quantized twin/);
  });

  it('no logprobs and one prompt answered otherwise: `unverifiable` (a near tie flipped by noise)', () => {
    const b = run(() => A, { logprobs: false, answer: (i) => (PROMPTS[i] === 'colour' ? 'teal' : undefined) });
    expect(compareFingerprints(run(() => A, { logprobs: false }), b).verdict).toBe('unverifiable');
  });

  it('no logprobs and answers varying at temperature 0 within a run: `unverifiable`', () => {
    const noisy = run(() => A, { logprobs: false, answer: (i) => (i % 2 === 0 ? 'apple' : 'river') });
    expect(compareFingerprints(noisy, run(() => B, { logprobs: false, answer: () => 'zebra' })).verdict).toBe('unverifiable');
  });

  it('one side with logprobs and one without is weighed on answers', () => {
    expect(compareFingerprints(run(() => A), run(() => A, { logprobs: false })).signal).toBe('answers');
  });

  it('nothing answered in common: `unverifiable`', () => {
    const none: Fingerprint = { version: 1, signal: 'logprobs', topLogprobs: 5, samples: [{ prompt: 'anchor', evidence: 'c1', error: 'HTTP 500' }] };
    expect(compareFingerprints(none, run(() => A))).toMatchObject({ verdict: 'unverifiable', signal: 'none' });
  });
});

/**
 * The tokenizer a fingerprint carries, as suites/support/identity.ts tokenizerOf writes it from a family's
 * own counts: the smoke prompt under its first template, the unit 0 and 3 times, and the two free points.
 */
const T = TOKENIZER_TABLE;
function counted(f: keyof typeof T, o: { unit?: number; label?: string } = {}): FingerprintTokenizer {
  const c = T[f].counts;
  const smoke = c.smoke + T[f].templates[0].user;
  return {
    family: f,
    label: o.label ?? T[f].label,
    points: [0, 3].map((k) => ({ k, prompt: smoke + k * (o.unit ?? c.unitA) })),
    checks: [
      { text: 'ruleInUser', prompt: smoke + c.ruleInUser - c.smoke },
      { text: 'countPrompt', prompt: smoke + c.countPrompt - c.smoke },
    ],
    evidence: ['u1', 'u2', 'u3', 'u4'],
  };
}
const withTokenizer = (f: Fingerprint, tokenizer: FingerprintTokenizer | undefined): Fingerprint => (tokenizer ? { ...f, tokenizer } : f);

describe('compareFingerprints: the tokenizer beside the content (a non-content signal)', () => {
  const same = run(() => A);
  const twin = run(() => A_Q4);
  const notRead: FingerprintTokenizer = { why: 'not read: no usage series in this run' };

  it('different families from exact fits, with identical logprobs: `different`, the tokenizer wins, saying both families and their counts', () => {
    const c = compareFingerprints(withTokenizer(same, counted('qwen2')), withTokenizer(run(() => A), counted('llama3')));
    expect(compareFingerprints(same, run(() => A)).verdict).toBe('same');
    expect(c).toMatchObject({ verdict: 'different', signal: 'tokenizer', statistic: 5, threshold: 0, falseAlarmRate: 0, power: undefined });
    expect(c.tokenizer).toMatchObject({ a: { family: 'qwen2', unitTokens: 24 }, b: { family: 'llama3', unitTokens: 19 } });
    expect(c.why).toContain(`the first counts like ${T.qwen2.label} (prompt_tokens 15 and 87 for the unit × 0 and 3; 26 and 25 for the audit's other known texts)`);
    expect(c.why).toContain(`the second like ${T.llama3.label} (prompt_tokens 17 and 74`);
    expect(c.why).toMatch(/exact counts, which one tokenizer never gives otherwise \(no chance involved\)/);
    // The content's own verdict is still said.
    expect(c.why).toMatch(/the content alone: same \(largest logprob move 0/);
  });

  it('the same family on both sides changes nothing: a quantized twin is still told by its logprobs, a steady model still `same`', () => {
    const steady = compareFingerprints(withTokenizer(same, counted('qwen2')), withTokenizer(run(() => A), counted('qwen2')));
    expect(steady).toMatchObject({ verdict: 'same', signal: 'logprobs' });
    expect(steady.tokenizer).toMatchObject({ a: { family: 'qwen2' }, b: { family: 'qwen2' } });
    const quantized = compareFingerprints(withTokenizer(same, counted('qwen2')), withTokenizer(twin, counted('qwen2')));
    expect(quantized).toMatchObject({ verdict: 'different', signal: 'logprobs' });
    expect(quantized).toEqual({ ...compareFingerprints(same, twin), tokenizer: quantized.tokenizer });
  });

  it('one side without a family (not read, none named, or a fingerprint from before): the content decides, as without it', () => {
    const unnamed: FingerprintTokenizer = { points: [{ k: 0, prompt: 36 }, { k: 3, prompt: 108 }], checks: [], why: 'no family named: no other prompt had a count to confirm it' };
    for (const other of [undefined, notRead, unnamed]) {
      for (const [x, y] of [
        [same, run(() => A)],
        [same, twin],
        [same, run(() => B)],
      ] as const) {
        const c = compareFingerprints(withTokenizer(x, counted('qwen2')), withTokenizer(y, other));
        expect(c, JSON.stringify(other)).toEqual(compareFingerprints(x, y));
        expect(compareFingerprints(withTokenizer(y, other), withTokenizer(x, counted('llama3')))).toEqual(compareFingerprints(y, x));
      }
    }
  });

  it('both without a family: the content decides; absence never pushes toward `same`', () => {
    expect(compareFingerprints(withTokenizer(same, notRead), withTokenizer(run(() => B), notRead)).verdict).toBe('different');
    const noisy = compareFingerprints(withTokenizer(run(() => A, { noise: 0.3 }), notRead), withTokenizer(run(() => A), notRead));
    expect(noisy.verdict).toBe('unverifiable');
    expect(noisy.tokenizer).toBeUndefined();
  });

  it('a family beside a near fit, or with no free point to confirm it, does not count', () => {
    const near: FingerprintTokenizer = { ...counted('llama3'), points: [{ k: 0, prompt: 17 }, { k: 3, prompt: 75 }] };
    const bent: FingerprintTokenizer = { ...counted('llama3'), points: [{ k: 0, prompt: 17 }, { k: 1, prompt: 36 }, { k: 3, prompt: 75 }] };
    const unconfirmed: FingerprintTokenizer = { ...counted('llama3'), checks: [] };
    const flat: FingerprintTokenizer = { ...counted('llama3'), points: [{ k: 0, prompt: 17 }, { k: 3, prompt: 17 }] };
    for (const t of [near, bent, unconfirmed, flat]) {
      expect(exactFamily(t), JSON.stringify(t)).toBeUndefined();
      expect(compareFingerprints(withTokenizer(same, counted('qwen2')), withTokenizer(run(() => A), t)).verdict).toBe('same');
    }
    expect(exactFamily(counted('llama3'))).toMatchObject({ family: 'llama3', unitTokens: 19 });
  });

  it('even where the content cannot decide (noise, nothing in common), two tokenizers are `different`', () => {
    const noisy = run(() => A, { noise: 0.3 });
    expect(compareFingerprints(noisy, run(() => A)).verdict).toBe('unverifiable');
    expect(compareFingerprints(withTokenizer(noisy, counted('gemma3')), withTokenizer(run(() => A), counted('mistral_nemo'))).verdict).toBe('different');
  });
});

describe('tokenizerOf: the usage series as the fingerprint keeps it', () => {
  const usage = (prompt: number) => reply('OK', { usage: [prompt, 1], finish: 'length' });
  const qwen = (riu = 47): Series => ({
    points: [
      { k: 0, x: usage(36) },
      { k: 3, x: usage(108) },
    ],
    checks: [
      { text: 'ruleInUser', x: usage(riu) },
      { text: 'countPrompt', x: usage(46) },
    ],
  });

  it('names the family of an exact fit that the free points confirm, with the counts and their calls', () => {
    const t = tokenizerOf(qwen());
    expect(t).toMatchObject({ family: 'qwen2', label: T.qwen2.label, points: [{ k: 0, prompt: 36 }, { k: 3, prompt: 108 }], checks: [{ text: 'ruleInUser', prompt: 47 }, { text: 'countPrompt', prompt: 46 }] });
    expect(t.evidence).toHaveLength(4);
    expect(exactFamily(t)).toMatchObject({ family: 'qwen2', unitTokens: 24 });
  });

  it('names none where a free point counts otherwise, keeping the counts and why', () => {
    const t = tokenizerOf(qwen(48));
    expect(t.family).toBeUndefined();
    expect(t.why).toMatch(/^no family named: .*the counts are not that family's/);
    expect(t.points).toHaveLength(2);
  });

  it('keeps no count past the integers a report holds exactly (a hostile usage), saying why', () => {
    const huge: Series = { points: [{ k: 0, x: usage(1e20) }, { k: 3, x: usage(1e20) }], checks: [{ text: 'countPrompt', x: usage(1e20) }] };
    const t = tokenizerOf(huge);
    expect(t.points).toBeUndefined();
    expect(t.checks).toBeUndefined();
    expect(t.family).toBeUndefined();
    expect(t.why).toMatch(/^no family named/);
    expect(JSON.stringify(t)).not.toContain('100000000000000000000');
  });

  it('says so when there is no series (the usage probes did not run)', () => {
    expect(tokenizerOf(undefined)).toEqual({ why: expect.stringMatching(/^not read: no usage series in this run/) });
  });
});

describe('mixedBackends: one run, one source or two', () => {
  it('equal repeats: one source', () => {
    expect(mixedBackends(run(() => A)).verdict).toBe('one');
  });

  it('a 50/50 mix of two models: `mixed`, with the split', () => {
    const m = mixedBackends(run((i) => (i % 2 === 0 ? A : B)));
    expect(m.verdict).toBe('mixed');
    expect(m.split!.map((g) => g.size)).toEqual([4, 4]);
    expect(m.split![0]!.evidence).toHaveLength(4);
  });

  it('a mix of a model and its quantized twin shows too (logprobs apart, each group exact)', () => {
    expect(mixedBackends(run((i) => (i < 5 ? A : A_Q4))).verdict).toBe('mixed');
  });

  it('supporting evidence: a system_fingerprint that splits the same way is said, timing only beside it', () => {
    const m = mixedBackends(run((i) => (i % 2 === 0 ? A : B), { system: (i) => (i % 2 === 0 ? 'fp_a' : 'fp_b') }));
    expect(m.supporting.join('; ')).toMatch(/system_fingerprint splits the same way/);
    expect(m.supporting.join('; ')).toMatch(/supporting only/);
  });

  it('noisy: a single source that spreads without a gap is undecided, not mixed', () => {
    expect(mixedBackends(run(() => A, { noise: 0.3 })).verdict).toBe('undecided');
  });

  it('a different system_fingerprint over one content is `config`, never `mixed` on its own', () => {
    expect(mixedBackends(run(() => A, { system: (i) => (i % 3 === 0 ? 'fp_a' : 'fp_b') })).verdict).toBe('config');
  });

  it('answers only: two answers at temperature 0 are undecided alone, mixed when a side signal splits them alike', () => {
    const answer = (i: number) => (i % 2 === 0 ? 'apple' : 'river');
    expect(mixedBackends(run(() => A, { logprobs: false, answer })).verdict).toBe('undecided');
    expect(mixedBackends(run(() => A, { logprobs: false, answer, system: (i) => (i % 2 === 0 ? 'fp_a' : 'fp_b') })).verdict).toBe('mixed');
  });

  it('the same request answered some times and refused others (one backend refuses logprobs): mixed; one refusal alone is not', () => {
    const refusedAt = (at: number[]) => {
      const f = run(() => A);
      f.samples = f.samples.map((s, i) => (at.includes(i) ? { prompt: s.prompt, evidence: s.evidence, error: 'HTTP 400: logprobs is not supported', refused: true } : s));
      return mixedBackends(f);
    };
    const m = refusedAt([1, 3, 5]);
    expect(m.verdict).toBe('mixed');
    expect(m.split!.map((g) => g.size)).toEqual([5, 3]);
    expect(refusedAt([3]).verdict).toBe('one');
  });

  it('reads as a refusal only a 400 or 422 of no cause of its own: a busy backend’s 408s and 409s split nothing', () => {
    const sample = (x: Exchange) => readSample(x, 'anchor');
    expect(sample(refused(400, 'logprobs is not supported', { param: 'logprobs' })).refused).toBe(true);
    expect(sample(refused(422, 'top_logprobs: unsupported')).refused).toBe(true);
    for (const status of [408, 409, 429]) expect(sample(refused(status, 'try again')).refused, String(status)).toBeUndefined();
  });

  it('too few answered repeats: undecided', () => {
    const f = run(() => A);
    f.samples = f.samples.map((s, i) => (i < ANCHOR_REPEATS - 3 ? { prompt: s.prompt, evidence: s.evidence, error: 'HTTP 503' } : s));
    expect(mixedBackends(f).verdict).toBe('undecided');
  });
});

describe('reading the exchanges', () => {
  const lp = (top: [string, number][]) => ({ content: [{ token: top[0]![0], logprob: top[0]![1], top_logprobs: top.map(([token, logprob]) => ({ token, logprob })) }] });

  it('reads the first token\'s alternatives, most likely first, with the side signals', () => {
    const x = reply('apple', { logprobs: lp([['apple', -0.2], ['river', -1.7]]), id: 'chatcmpl-AbC123xyz' });
    (x.json as Record<string, unknown>).system_fingerprint = 'fp_1';
    expect(readSample(x, 'anchor')).toMatchObject({ prompt: 'anchor', answer: 'apple', top: [['apple', -0.2], ['river', -1.7]], systemFingerprint: 'fp_1', idForm: 'chatcmpl-*' });
  });

  it('an error body in a 200 is no answer', () => {
    const s = readSample(errorIn200(), 'anchor');
    expect(s.answer).toBeUndefined();
    expect(s.error).toMatch(/error body/);
  });

  it('id forms: a word prefix kept, runs as *', () => {
    expect(idForm('chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT')).toBe('chatcmpl-*');
    expect(idForm('3f2b8c1e-0d4a-4b7e-9c2f-1a2b3c4d5e6f')).toBe('*-*-*-*-*');
  });

  it('a server that answers without logprobs gives an answers-only fingerprint that says so', () => {
    const xs = FINGERPRINT_PLAN.map((prompt) => ({ prompt, x: reply('apple'), logprobs: true }));
    expect(fingerprintOf(xs)).toMatchObject({ signal: 'answers', why: 'the server answered without logprobs (ignored)' });
  });

  it('a refusal of logprobs is said as such', () => {
    const xs = [{ prompt: ANCHOR, x: refused(400, 'logprobs is not supported', { param: 'logprobs' }), logprobs: true }, ...FINGERPRINT_PLAN.slice(1).map((prompt) => ({ prompt, x: reply('apple'), logprobs: false }))];
    const f = fingerprintOf(xs, 'the server refused logprobs (HTTP 400)');
    expect(f.signal).toBe('answers');
    expect(judgeFingerprint(f)).toMatchObject({ verdict: 'pass' });
    expect(judgeFingerprint(f).findings!.map((x) => x.code)).toContain('answers_only');
  });
});

describe('the probes\' verdicts', () => {
  it('identity.fingerprint: pass for a deterministic model, warn for one whose spread leaves no power, inconclusive for a mix', () => {
    expect(judgeFingerprint(run(() => A)).verdict).toBe('pass');
    expect(judgeFingerprint(run(() => A, { noise: 0.3 })).verdict).toBe('warn');
    expect(judgeFingerprint(run((i) => (i % 2 === 0 ? A : B))).verdict).toBe('inconclusive');
  });

  it('identity.mixed_backends: pass, warn (config), fail (mixed), inconclusive (noisy)', () => {
    expect(judgeMixed(run(() => A)).verdict).toBe('pass');
    expect(judgeMixed(run(() => A, { system: (i) => (i % 3 === 0 ? 'fp_a' : 'fp_b') })).verdict).toBe('warn');
    const mixed = judgeMixed(run((i) => (i % 2 === 0 ? A : B)));
    expect(mixed.verdict).toBe('fail');
    expect(mixed.findings![0]!.code).toBe('mixed_backends');
    expect(judgeMixed(run(() => A, { noise: 0.3 })).verdict).toBe('inconclusive');
  });

  it('every request errored: inconclusive (or an error for a cause), never pass', () => {
    const xs = FINGERPRINT_PLAN.map((prompt) => ({ prompt, x: errorIn200(), logprobs: true }));
    const f = fingerprintOf(xs);
    expect(judgeFingerprint(f, xs.map((o) => o.x)).verdict).toBe('inconclusive');
    expect(judgeMixed(f, xs.map((o) => o.x)).verdict).toBe('inconclusive');
  });
});
