import type { Verdict } from './model.js';

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
