import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/exchange.js';
import { seededRandom } from '../../src/reference/pseudo-model.js';
import { ALPHA, chanceOfAgreement, judgeCollapse, judgeTemperature, limitsAt, type Decision } from '../../suites/support/sampling.js';
import { errorIn200, refused, reply, samples } from '../helpers/exchanges.js';

const ok = reply('OK');
const LIMIT = limitsAt(3);
const FLAT = samples('482913', '190274', '733051', '508826', '615390');

const collapse = (baseline: Exchange[], set: Exchange[], greedy?: Exchange[] | 'never') => judgeCollapse('seed: 42', baseline, set, LIMIT, ok, greedy, 'seed');
const verdictOf = (d: Decision) => ('verdict' in d ? d.verdict.verdict : `more:${d.more}`);

describe('chanceOfAgreement (rule 6)', () => {
  it('is the chance that m answers taken at random from the pool all agree (exact under exchangeability)', () => {
    // Four distinct baseline answers beside four agreeing ones: one way in C(8, 4) = 70.
    expect(chanceOfAgreement(['a', 'b', 'c', 'd'], ['x', 'x', 'x', 'x'])).toBeCloseTo(1 / 70);
    // A baseline answer equal to the agreed one counts against it: C(5, 4) ways of 70.
    expect(chanceOfAgreement(['x', 'b', 'c', 'd'], ['x', 'x', 'x', 'x'])).toBeCloseTo(5 / 70);
    // A repeat among the baseline's other answers cannot make four agree: still one way.
    expect(chanceOfAgreement(['a', 'a', 'c', 'd'], ['x', 'x', 'x', 'x'])).toBeCloseTo(1 / 70);
    // Four copies of another answer in the baseline could: two ways of 70.
    expect(chanceOfAgreement(['a', 'a', 'a', 'a'], ['x', 'x', 'x', 'x'])).toBeCloseTo(2 / 70);
    expect(chanceOfAgreement(['x', 'x', 'x', 'x'], ['x', 'x', 'x', 'x', 'x', 'x'])).toBe(1);
  });

  it('checked by counting every way of choosing the set from the pool', () => {
    const pool = ['a', 'x', 'b', 'x', 'x', 'x', 'x', 'c', 'd'];
    let agree = 0;
    let all = 0;
    const pick = (from: number, chosen: string[]): void => {
      if (chosen.length === 4) {
        all++;
        if (new Set(chosen).size === 1) agree++;
        return;
      }
      for (let i = from; i < pool.length; i++) pick(i + 1, [...chosen, pool[i]!]);
    };
    pick(0, []);
    expect(chanceOfAgreement(pool.slice(0, 5), pool.slice(5))).toBeCloseTo(agree / all);
  });
});

describe('judgeCollapse (rules 3 and 6)', () => {
  it('honours agreement that varied baselines make improbable, saying the estimate', () => {
    const d = collapse(FLAT, samples('111111', '111111', '111111', '111111'));
    expect(verdictOf(d)).toBe('honoured');
    expect('verdict' in d && d.verdict.observed).toMatch(/at most \d/);
  });

  it('asks for more baseline samples while the chance is not under ALPHA, then gives up', () => {
    expect(LIMIT).toEqual({ baseline: 5, set: 3 });
    // Three distinct beside three agreeing: 1/20, not under ALPHA; a fourth distinct one decides (1/35).
    expect(chanceOfAgreement(['1', '2', '3'], ['9', '9', '9'])).toBeCloseTo(1 / 20);
    expect(verdictOf(collapse(samples('1', '2', '3'), samples('9', '9', '9')))).toBe('more:baseline');
    expect(verdictOf(collapse(samples('1', '2', '3', '4'), samples('9', '9', '9')))).toBe('honoured');
    // A baseline answer equal to the agreed one: 4/35, then 4/56 with a fifth; the baseline stops at five.
    expect(verdictOf(collapse(samples('9', '2', '3', '4'), samples('9', '9', '9')))).toBe('more:baseline');
    expect(verdictOf(collapse(samples('9', '2', '3', '4', '5'), samples('9', '9', '9')))).toBe('inconclusive');
  });

  it('trap: a peaked sampler that ignores the parameter (its favourite four times) is not honoured', () => {
    // 80% of the mass on one answer: four agreeing samples happen often by chance.
    const baseline = samples('424242', '424242', '424242', '424242', '190274');
    const set = samples('424242', '424242', '424242');
    expect(verdictOf(collapse(baseline, set))).toBe('inconclusive');
  });

  it('takes an empty answer that ended on its own as a sample, not one cut by the limit', () => {
    const ended = () => reply('', { finish: 'stop' });
    expect(verdictOf(collapse(FLAT, [ended(), ended(), ended(), ended()]))).toBe('honoured');
    expect(verdictOf(collapse(FLAT, [reply('', { finish: 'length' }), ...samples('1', '1', '1')]))).toBe('inconclusive');
  });

  it('trap: identical error bodies in 200s are no agreement', () => {
    const set = [errorIn200('seed unsupported'), errorIn200('seed unsupported'), errorIn200('seed unsupported'), errorIn200('seed unsupported')];
    const d = collapse(FLAT, set);
    expect(verdictOf(d)).toBe('inconclusive');
    expect('verdict' in d && d.verdict.findings?.[0]?.code).toBe('error_in_2xx');
  });

  it('calls variety under the parameter ignored only when greedy decoding repeats (the positive control)', () => {
    const varied = samples('1', '2', '3', '4');
    expect(verdictOf(collapse(FLAT, varied))).toBe('more:greedy');
    expect(verdictOf(collapse(FLAT, varied, samples('5', '5', '5', '5')))).toBe('ignored');
    expect(verdictOf(collapse(FLAT, varied, samples('5', '6', '5', '5')))).toBe('inconclusive');
    expect(verdictOf(collapse(FLAT, varied, [errorIn200(), ...samples('5', '5', '5')]))).toBe('inconclusive');
  });

  it('trap: a seed that narrows the answers without fixing them (batched inference) is not ignored', () => {
    expect(verdictOf(collapse(FLAT, samples('7', '7', '8', '7'), samples('5', '5', '5', '5')))).toBe('inconclusive');
  });

  it('rejects on a refused sample; a refused baseline says nothing', () => {
    expect(verdictOf(collapse(FLAT, [refused(400, "Unsupported parameter: 'seed'", { param: 'seed' })]))).toBe('rejected');
    expect(verdictOf(collapse([refused(400, 'temperature')], samples('1', '1', '1', '1')))).toBe('inconclusive');
  });

  it('is inconclusive when the baseline never varies', () => {
    const same = samples('5', '5', '5', '5', '5', '5');
    expect(verdictOf(collapse(same, samples('5', '5', '5', '5', '5')))).toBe('inconclusive');
  });
});

describe('judgeTemperature', () => {
  it('never calls temperature ignored: variety at 0 may be the model\'s own randomness', () => {
    expect(verdictOf(judgeTemperature(FLAT, samples('1', '2', '1', '1'), LIMIT, ok))).toBe('inconclusive');
  });

  it('honours one answer at 0 where 1 varies, and rejects a refused temperature', () => {
    expect(verdictOf(judgeTemperature(FLAT, samples('9', '9', '9', '9'), LIMIT, ok))).toBe('honoured');
    const refusal = refused(400, "Unsupported value: 'temperature' does not support 0 with this model", { param: 'temperature' });
    expect(verdictOf(judgeTemperature(FLAT, [refusal], LIMIT, ok))).toBe('rejected');
    expect(verdictOf(judgeTemperature([refused(400, 'temperature must be 0.6', { param: 'temperature' })], samples('9'), LIMIT, ok))).toBe('rejected');
  });
});

/**
 * The decision procedure as the probes run it, over seeded draws: a parameter that does nothing (the set
 * drawn from the baseline's distribution) must rarely be called honoured, whatever the distribution; an
 * honoured parameter on a varied distribution must usually be recognised.
 */
function simulate(dist: number[], honoured: boolean, trials: number, seed: number): number {
  const random = seededRandom(seed);
  const answers = dist.map((_, i) => reply(String(100000 + i)));
  const draw = () => {
    let r = random();
    for (let i = 0; i < dist.length; i++) if ((r -= dist[i]!) < 0) return answers[i]!;
    return answers.at(-1)!;
  };
  let called = 0;
  for (let t = 0; t < trials; t++) {
    const baseline = [draw(), draw(), draw()];
    const set = honoured ? [answers[0]!, answers[0]!, answers[0]!] : [draw(), draw(), draw()];
    for (;;) {
      const d = judgeCollapse('p', baseline, set, LIMIT, ok, 'never', 'p');
      if ('verdict' in d) {
        if (d.verdict.verdict === 'honoured') called++;
        break;
      }
      if (d.more === 'baseline') baseline.push(draw());
      else set.push(honoured ? answers[0]! : draw());
    }
  }
  return called / trials;
}

const peaked = (p: number, rest = 30) => [p, ...Array.from({ length: rest }, () => (1 - p) / rest)];

describe('the sampling decision, simulated (rule 6)', () => {
  it.each([0.3, 0.5, 0.6, 0.7, 0.8, 0.9])('calls a parameter that does nothing honoured under 2%% of the time when one answer has %s of the mass', (p) => {
    expect(simulate(peaked(p), false, 1500, 7)).toBeLessThan(0.02);
  });

  it('recognises an honoured parameter on a varied distribution almost always, and is honest on a peaked one', () => {
    expect(simulate(Array.from({ length: 1000 }, () => 1 / 1000), true, 500, 11)).toBeGreaterThan(0.95);
    // With 80% on one answer, agreement means little: mostly inconclusive rather than a lucky honoured.
    expect(simulate(peaked(0.8), true, 500, 13)).toBeLessThan(0.2);
  });
});
