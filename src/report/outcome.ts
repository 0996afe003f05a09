import type { Cause, Outcome, Verdict } from './model.js';

/**
 * The outcome of a result for a CI gate, decided here and nowhere else (reporters never recompute it).
 * Without a baseline, capability verdicts are facts, not failures; a broken MUST, or a cell that could not
 * be tested for a reason outside chatprobe, fails; our own bugs are errors.
 */
export function outcomeOf(verdict: Verdict, cause?: Cause): Outcome {
  switch (verdict) {
    case 'inconclusive':
      return 'skipped';
    case 'fail':
      return 'failed';
    case 'error':
      return cause === 'harness' ? 'errored' : 'failed';
    default:
      return 'passed';
  }
}
