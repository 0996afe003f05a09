/**
 * The identity calibration's figures from its runs (calibrate.ts --runs): false alarms of `different` on
 * same-model pairs, power against each other set of weights, and the mixed test on load-balanced pairs and
 * single servers, each with its sample size and an exact 95% bound. The verdicts are chatprobe's own pure
 * functions (compareFingerprints, mixedBackends) applied to the fingerprints the runs wrote.
 */
import { compareFingerprints, mixedBackends, ownSpread, SPREAD_FACTOR, TOLERANCE_FLOOR, type Fingerprint } from '../../src/results/identity.js';

export type Kind = 'quiet' | 'busy' | 'full' | 'q8_0' | 'q4_0' | 'other' | 'lb_q4_0' | 'lb_other';

export interface RunLine {
  round: number;
  kind: Kind;
  threads?: number;
  cells: Record<string, { verdict: string; observed: string }>;
  fingerprint: Fingerprint;
}

/** P(X ≤ k) for X ~ Binomial(n, p). */
function binomCdf(k: number, n: number, p: number): number {
  let term = Math.pow(1 - p, n);
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term *= ((n - i + 1) / i) * (p / (1 - p));
    sum += term;
  }
  return sum;
}

/** The exact (Clopper–Pearson) one-sided 95% upper bound of a rate seen k times in n. */
export function upper95(k: number, n: number): number {
  if (n === 0) return 1;
  if (k >= n) return 1;
  let lo = k / n;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (binomCdf(k, n, mid) > 0.05) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The exact one-sided 95% lower bound of a rate seen k times in n. */
export function lower95(k: number, n: number): number {
  return k === 0 ? 0 : 1 - upper95(n - k, n);
}

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toFixed(1)}%`;
const num = (x: number) => (x === 0 ? '0' : x < 0.001 ? x.toExponential(1) : String(Math.round(x * 10000) / 10000));

interface Tally {
  n: number;
  counts: Record<string, number>;
  stats: number[];
  /** Each pair's statistic over its threshold: past 1 is `different`. */
  ratios: number[];
}

function tally(pairs: [Fingerprint, Fingerprint][]): Tally {
  const t: Tally = { n: pairs.length, counts: {}, stats: [], ratios: [] };
  for (const [a, b] of pairs) {
    const c = compareFingerprints(a, b);
    t.counts[c.verdict] = (t.counts[c.verdict] ?? 0) + 1;
    t.stats.push(c.statistic);
    if (c.threshold > 0) t.ratios.push(c.statistic / c.threshold);
  }
  t.stats.sort((x, y) => x - y);
  t.ratios.sort((x, y) => x - y);
  return t;
}

const count = (t: Tally, v: string) => t.counts[v] ?? 0;

export function analyse(lines: RunLine[]): string[] {
  const out: string[] = [];
  const byRound = new Map<number, RunLine[]>();
  for (const l of lines) byRound.set(l.round, [...(byRound.get(l.round) ?? []), l]);
  const rounds = [...byRound.values()];
  const of = (r: RunLine[], kind: Kind) => r.filter((l) => l.kind === kind);

  // Same-model pairs: the round's two quiet runs (-t 2 and -t 1, separate processes), and its two busy runs.
  const quietPairs: [Fingerprint, Fingerprint][] = [];
  const busyPairs: [Fingerprint, Fingerprint][] = [];
  const crossPairs: [Fingerprint, Fingerprint][] = [];
  for (const r of rounds) {
    const q = of(r, 'quiet');
    const b = of(r, 'busy');
    if (q.length === 2) quietPairs.push([q[0]!.fingerprint, q[1]!.fingerprint]);
    if (b.length === 2) busyPairs.push([b[0]!.fingerprint, b[1]!.fingerprint]);
    if (q.length === 2 && b.length === 2) crossPairs.push([q[0]!.fingerprint, b[1]!.fingerprint]);
  }
  const quiet = tally(quietPairs);
  const busyT = tally(busyPairs);
  const cross = tally(crossPairs);
  const fullPairs: [Fingerprint, Fingerprint][] = [];
  for (const r of rounds) {
    const f = of(r, 'full');
    if (f.length === 2) fullPairs.push([f[0]!.fingerprint, f[1]!.fingerprint]);
  }
  const full = tally(fullPairs);
  const sameN = quiet.n + busyT.n + full.n;
  const sameDifferent = count(quiet, 'different') + count(busyT, 'different') + count(full, 'different');
  out.push(`Runs: ${lines.length} identity runs in ${rounds.length} rounds (the built CLI, --probes identity.*, 12 requests each).`);
  out.push('');
  out.push('**Same model** (compareFingerprints on two runs of the F16 weights from separate server processes, one with -t 2 and one with -t 1; restarted every 8 rounds):');
  out.push('');
  out.push('| pairs | n | same | different | unverifiable | largest statistic | largest statistic / threshold |');
  out.push('|---|---|---|---|---|---|---|');
  const sameRow = (name: string, t: Tally) => `| ${name} | ${t.n} | ${count(t, 'same')} | ${count(t, 'different')} | ${count(t, 'unverifiable')} | ${num(t.stats.at(-1) ?? 0)} | ${num(t.ratios.at(-1) ?? 0)} |`;
  out.push(sameRow('quiet vs quiet', quiet));
  out.push(sameRow('busy vs busy (3 other requests in flight)', busyT));
  out.push(sameRow('quiet vs busy (not independent of the rows above)', cross));
  if (full.n > 0) out.push(sameRow('whole default audits (--concurrency 4), side by side', full));
  // Every F16 run against every other (not independent: each run is in many pairs): no bound, but the
  // largest ratio over thousands of comparisons shows the margin the independent pairs cannot.
  const f16 = lines.filter((l) => l.kind === 'quiet' || l.kind === 'busy' || l.kind === 'full');
  const allPairs: [Fingerprint, Fingerprint][] = [];
  for (let i = 0; i < f16.length; i++) for (let j = i + 1; j < f16.length; j++) allPairs.push([f16[i]!.fingerprint, f16[j]!.fingerprint]);
  out.push(sameRow('every F16 run against every other (not independent)', tally(allPairs)));
  out.push('');
  out.push(`False alarms (\`different\`): ${sameDifferent} of ${sameN} independent same-model pairs = ${pct(sameN ? sameDifferent / sameN : 0)}, exact one-sided 95% upper bound ${pct(upper95(sameDifferent, sameN))}.`);
  out.push('');

  // Power: each variant's run against the round's quiet -t 2 run, and against its busy -t 2 run.
  out.push('**Other weights under the same name** (the variant run against the same round\'s F16 run; F16 quiet and busy):');
  out.push('');
  out.push('| variant | against | n | different | same | unverifiable | power (95% lower bound) | smallest statistic | smallest statistic / threshold |');
  out.push('|---|---|---|---|---|---|---|---|---|');
  const power: Record<string, { k: number; n: number }> = {};
  for (const v of ['q8_0', 'q4_0', 'other'] as const) {
    for (const against of ['quiet', 'busy'] as const) {
      const pairs: [Fingerprint, Fingerprint][] = [];
      for (const r of rounds) {
        const ref = of(r, against).find((l) => l.threads === 2) ?? of(r, against)[0];
        const x = of(r, v)[0];
        if (ref && x) pairs.push([ref.fingerprint, x.fingerprint]);
      }
      const t = tally(pairs);
      const k = count(t, 'different');
      if (against === 'quiet') power[v] = { k, n: t.n };
      out.push(`| ${v === 'other' ? 'other weights' : v.toUpperCase()} | F16 ${against} | ${t.n} | ${k} | ${count(t, 'same')} | ${count(t, 'unverifiable')} | ${t.n ? `${pct(k / t.n)} (${pct(lower95(k, t.n))})` : '–'} | ${num(t.stats[0] ?? 0)} | ${num(t.ratios[0] ?? 0)} |`);
    }
  }
  out.push('');

  // The floor's window: the same statistic against the threshold another floor would give (the rule of
  // compareFingerprints: the floor, or SPREAD_FACTOR times the larger own spread).
  out.push(`**The floor's window** (each statistic against max(floor, ${SPREAD_FACTOR} × the larger own spread); the verdicts above are at the floor in the code, ${TOLERANCE_FLOOR}):`);
  out.push('');
  out.push('| floor | same-model pairs past it (independent) | largest ratio, every F16 pair | Q8_0 past it | Q4_0 past it | other weights past it | smallest ratio, any variant |');
  out.push('|---|---|---|---|---|---|---|');
  const ratioAt = (floor: number, a: Fingerprint, b: Fingerprint) => compareFingerprints(a, b).statistic / Math.max(floor, SPREAD_FACTOR * Math.max(ownSpread(a) ?? 0, ownSpread(b) ?? 0));
  const variantPairs = (v: Kind) =>
    rounds.flatMap((r): [Fingerprint, Fingerprint][] => {
      const x = of(r, v)[0];
      return x ? (['quiet', 'busy'] as const).flatMap((k) => of(r, k).slice(0, 1).map((ref): [Fingerprint, Fingerprint] => [ref.fingerprint, x.fingerprint])) : [];
    });
  for (const floor of [0.01, 0.02, 0.03, 0.05]) {
    const indep = [...quietPairs, ...busyPairs, ...fullPairs];
    const past = (ps: [Fingerprint, Fingerprint][]) => ps.filter(([a, b]) => ratioAt(floor, a, b) > 1).length;
    const maxAll = allPairs.reduce((m, [a, b]) => Math.max(m, ratioAt(floor, a, b)), 0);
    const vs = (['q8_0', 'q4_0', 'other'] as const).map((v) => variantPairs(v));
    const minVariant = vs.flat().reduce((m, [a, b]) => Math.min(m, ratioAt(floor, a, b)), Infinity);
    out.push(`| ${floor} | ${past(indep)} of ${indep.length} | ${num(maxAll)} | ${vs.map((p) => `${past(p)} of ${p.length}`).join(' | ')} | ${num(minVariant)} |`);
  }
  out.push('');

  // Answers only: the same runs with their alternatives taken away, as from a server that gives no
  // logprobs (llama-server's greedy answer is the same whether logprobs are asked or not).
  const answersOnly = (f: Fingerprint): Fingerprint => ({ ...f, signal: 'answers', why: 'logprobs taken away by the calibration', samples: f.samples.map(({ top: _top, ...rest }) => rest) });
  const aPairs = (ps: [Fingerprint, Fingerprint][]) => tally(ps.map(([a, b]) => [answersOnly(a), answersOnly(b)]));
  out.push('**Answers only** (the same runs without their alternatives, as from a server that gives no logprobs):');
  out.push('');
  out.push('| pairs | n | same | different | unverifiable |');
  out.push('|---|---|---|---|---|');
  const answersRow = (name: string, t: Tally) => out.push(`| ${name} | ${t.n} | ${count(t, 'same')} | ${count(t, 'different')} | ${count(t, 'unverifiable')} |`);
  const aSame = aPairs([...quietPairs, ...busyPairs, ...fullPairs]);
  answersRow('same model (independent pairs)', aSame);
  for (const v of ['q8_0', 'q4_0', 'other'] as const) {
    const ps = rounds.flatMap((r): [Fingerprint, Fingerprint][] => {
      const ref = of(r, 'quiet').find((l) => l.threads === 2) ?? of(r, 'quiet')[0];
      const x = of(r, v)[0];
      return ref && x ? [[ref.fingerprint, x.fingerprint]] : [];
    });
    answersRow(`${v === 'other' ? 'other weights' : v.toUpperCase()} against F16 quiet`, aPairs(ps));
  }
  out.push('');
  out.push(`Answers-only false alarms: ${count(aSame, 'different')} of ${aSame.n}, exact one-sided 95% upper bound ${pct(upper95(count(aSame, 'different'), aSame.n))}.`);
  out.push('');

  // Mixed: the load-balanced pairs, and every single-server run as its control.
  out.push('**One source or two** (mixedBackends on each run\'s 8 anchor repeats):');
  out.push('');
  out.push('| runs | n | mixed | one | config | undecided | both targets drawn |');
  out.push('|---|---|---|---|---|---|---|');
  const mixedRow = (name: string, ls: RunLine[]) => {
    const c: Record<string, number> = {};
    let both = 0;
    for (const l of ls) {
      const m = mixedBackends(l.fingerprint);
      c[m.verdict] = (c[m.verdict] ?? 0) + 1;
      const targets = new Set(l.fingerprint.samples.filter((s) => s.prompt === 'anchor').map((s) => s.headers?.['x-portkey-last-used-option-index']));
      if (targets.size > 1) both++;
    }
    const isLb = ls.some((l) => l.kind.startsWith('lb_'));
    out.push(`| ${name} | ${ls.length} | ${c.mixed ?? 0} | ${c.one ?? 0} | ${c.config ?? 0} | ${c.undecided ?? 0} | ${isLb ? both : '–'} |`);
    return c;
  };
  const lbQ4 = lines.filter((l) => l.kind === 'lb_q4_0');
  const lbOther = lines.filter((l) => l.kind === 'lb_other');
  const single = lines.filter((l) => !l.kind.startsWith('lb_'));
  mixedRow('Portkey loadbalance: F16 + Q4_0', lbQ4);
  mixedRow('Portkey loadbalance: F16 + other weights', lbOther);
  const sc = mixedRow('one llama-server (every other run)', single);
  out.push('');
  const lbs = [...lbQ4, ...lbOther].map((l) => mixedBackends(l.fingerprint)).filter((m) => m.verdict === 'mixed');
  const gaps = lbs.map((m) => m.gap ?? 0);
  const withins = lbs.map((m) => m.spread ?? 0);
  const singleSpreads = single.map((l) => ownSpread(l.fingerprint) ?? 0);
  out.push(`The mixed pairs' groups: closest pair across them ${num(Math.min(...gaps))} at the least, widest within ${num(Math.max(0, ...withins))} at the most; a single server's repeats spread ${num(Math.max(0, ...singleSpreads))} at the most.`);
  out.push('');
  out.push(`Mixed false alarms: ${sc.mixed ?? 0} of ${single.length} single-server runs, exact one-sided 95% upper bound ${pct(upper95(sc.mixed ?? 0, single.length))}.`);
  out.push('');

  // The model's own spread, which sets each comparison's threshold.
  const spreads = (kind: Kind) => lines.filter((l) => l.kind === kind).map((l) => ownSpread(l.fingerprint) ?? NaN).sort((a, b) => a - b);
  out.push('**Own spread** (the widest distance among the anchor\'s repeats in one run):');
  out.push('');
  out.push('| runs | n | zero | median | largest |');
  out.push('|---|---|---|---|---|');
  for (const kind of ['quiet', 'busy', 'full', 'q8_0', 'q4_0', 'other'] as const) {
    const s = spreads(kind);
    out.push(`| ${kind} | ${s.length} | ${s.filter((x) => x === 0).length} | ${num(s[Math.floor((s.length - 1) / 2)] ?? 0)} | ${num(s.at(-1) ?? 0)} |`);
  }
  out.push('');
  out.push('For src/results/identity.ts CALIBRATION.logprobs:');
  out.push('```');
  out.push(JSON.stringify({
    falseAlarm: { rate: sameN ? sameDifferent / sameN : 0, runs: sameN, upper95: Number(upper95(sameDifferent, sameN).toFixed(4)) },
    power: Object.fromEntries(Object.entries(power).map(([v, { k, n }]) => [v === 'other' ? 'otherWeights' : v, { rate: n ? k / n : 0, runs: n }])),
    mixed: {
      power: { rate: (lbQ4.concat(lbOther).filter((l) => mixedBackends(l.fingerprint).verdict === 'mixed').length) / Math.max(1, lbQ4.length + lbOther.length), runs: lbQ4.length + lbOther.length },
      falseAlarm: { rate: (sc.mixed ?? 0) / Math.max(1, single.length), runs: single.length, upper95: Number(upper95(sc.mixed ?? 0, single.length).toFixed(4)) },
    },
  }));
  out.push('```');
  return out;
}
