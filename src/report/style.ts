import type { Verdict } from '../results/model.js';

/** How each verdict is shown, in one place for every human-facing writer. */
export const VERDICT_MARK: Record<Verdict, string> = {
  honoured: '✅',
  accepted: '☑️',
  ignored: '🟡',
  rejected: '⛔',
  pass: '✅',
  warn: '⚠️',
  fail: '❌',
  inconclusive: '❔',
  error: '💥',
};

export type Tone = 'good' | 'notice' | 'bad' | 'muted';

export const VERDICT_TONE: Record<Verdict, Tone> = {
  honoured: 'good',
  accepted: 'good',
  pass: 'good',
  ignored: 'notice',
  warn: 'notice',
  rejected: 'bad',
  fail: 'bad',
  error: 'bad',
  inconclusive: 'muted',
};

/** The matrix cell text: the verdict, plus the cause for errors. */
export function cellText(verdict: Verdict, cause?: string): string {
  return verdict === 'error' && cause ? `error: ${cause}` : verdict;
}

/**
 * A run's extent as people count it: models × the probes each model gets, and the endpoint's own probes
 * (run once, not once per model) beside them.
 */
export function extentText(models: number, probes: readonly { scope?: 'model' | 'target' }[]): string {
  const endpoint = probes.filter((p) => p.scope === 'target').length;
  const perModel = probes.length - endpoint;
  return `${models} model(s) × ${perModel} probe(s)${endpoint > 0 ? ` + ${endpoint} endpoint probe(s)` : ''}`;
}
