import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/reference/pseudo-model.js';
import type { Exchange } from '../../src/engine/exchange.js';
import { contrastChance, distinctSamples } from '../../suites/support/contrast.js';
import { judgeJsonObject } from '../../suites/support/json-answer.js';
import { runContrast } from '../helpers/contrast.js';
import { reply } from '../helpers/exchanges.js';

describe('contrasts (rules 1 and 6)', () => {
  it('bounds the chance of a contrast a parameter that does nothing shows', () => {
    expect(contrastChance(1, 1)).toBe(0.25);
    expect(contrastChance(2, 2)).toBeCloseTo(0.0625, 6);
    expect(contrastChance(2, 3)).toBeCloseTo(0.03456, 5);
    // The bound is the worst p: a grid of p never exceeds it.
    for (let p = 0.01; p < 1; p += 0.01) expect(p ** 2 * (1 - p) ** 3).toBeLessThanOrEqual(contrastChance(2, 3) + 1e-12);
  });

  it('calls a format that does nothing honoured under 5% of the time, whatever the chance the model answers JSON anyway (seeded draws)', () => {
    const random = seededRandom(20261124);
    const obj = reply('{"sky":"blue"}');
    const prose = reply('The sky is blue, and the Earth has one moon.');
    for (const p of [0.1, 0.3, 0.4, 0.5, 0.6, 0.7, 0.9]) {
      let falseHonoured = 0;
      const trials = 2000;
      for (let t = 0; t < trials; t++) {
        // Dropped response_format: both sides are the same model at random.
        const draw = () => (random() < p ? obj : prose);
        const v = runContrast((w, wo) => judgeJsonObject(w, wo, reply('OK')), [draw(), draw()], [draw(), draw(), draw()]);
        if (v.verdict === 'honoured') falseHonoured++;
      }
      expect(falseHonoured / trials, `p = ${p}`).toBeLessThan(0.05);
    }
  });

  it('counts an answer a response cache hands back again (id and all) as one sample, not two', () => {
    const judge = (w: readonly Exchange[], wo: readonly Exchange[]) => judgeJsonObject(w, wo, reply('OK'));
    // A gateway cache in front of a model that answers JSON half the time, response_format dropped: the
    // first JSON-mode answer and the first plain one came back again from the cache.
    const obj = reply('{"sky":"blue"}', { id: 'chatcmpl-cached-1' });
    const prose = reply('The sky is blue.', { id: 'chatcmpl-cached-2' });
    const v = runContrast(judge, [obj, reply('{"sky":"blue"}', { id: 'chatcmpl-cached-1' })], [prose, reply('The sky is blue.', { id: 'chatcmpl-cached-2' }), reply('The sky is blue.', { id: 'chatcmpl-cached-2' })]);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('answers came back again, id and all (a response cache?), so 5 answers are 2 samples');
    expect(distinctSamples([obj, obj, reply('x'), reply('x')])).toBe(3);
  });

  it('recognises a format that works on a model that answers this prompt in prose', () => {
    const obj = reply('{"sky":"blue"}');
    const prose = reply('The sky is blue, and the Earth has one moon.');
    expect(runContrast((w, wo) => judgeJsonObject(w, wo, reply('OK')), [obj, obj], [prose, prose, prose]).verdict).toBe('honoured');
  });
});
