import type { Fingerprint } from '../../src/results/identity.js';
import { FINGERPRINT_PLAN } from '../../suites/support/identity.js';

/**
 * A fingerprint as a deterministic server of some weights answers it: each prompt's five alternatives
 * with logprobs that follow from `weights`, moved by `shift` (a quantized twin); `mix` answers every other
 * request from those weights instead (a round robin).
 */
export function fingerprintOf(weights: string, o: { shift?: number; mix?: string; logprobs?: boolean } = {}): Fingerprint {
  const code = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 9973, 7);
  const samples = FINGERPRINT_PLAN.map((p, i) => {
    const w = o.mix && i % 2 === 1 ? o.mix : weights;
    const top = ['apple', 'river', 'stone', 'cloud', 'lamp'].map((t, k): [string, number] => [t, -(0.2 + k + (code(`${w}${p.key}${t}`) % 100) / 250) + (o.shift ?? 0) * (k % 2 ? -1 : 1)]);
    top.sort((a, b) => b[1] - a[1]);
    return { prompt: p.key, evidence: `c${i + 1}`, answer: top[0]![0], ...(o.logprobs === false ? {} : { top }), durationMs: 20 };
  });
  return o.logprobs === false ? { version: 1, signal: 'answers', why: 'ignored', topLogprobs: 5, samples } : { version: 1, signal: 'logprobs', topLogprobs: 5, samples };
}
