import type { Cause, Comparison, Outcome, Verdict } from './model.js';

/** How good a verdict is, to tell an improvement from a regression. Inconclusive is not ranked. */
export const RANK: Record<Verdict, number> = {
  honoured: 3,
  accepted: 3,
  pass: 3,
  warn: 2,
  ignored: 1,
  rejected: 1,
  fail: 1,
  error: 0,
  inconclusive: -1,
};

/**
 * The outcome of a result for a CI gate, decided here and nowhere else (reporters never recompute it), as
 * a pure function of the verdict and the expectation.
 * - Without a baseline entry, capability verdicts are facts, not failures; a broken MUST, or a cell that
 *   could not be tested for a reason outside chatprobe, fails.
 * - With one, a verdict in the expected set passes, a better one passes as an improvement, and anything
 *   else is a regression.
 * - Without a baseline, inconclusive is skipped; with one, it passes only where the expected set holds it.
 *   Our own bugs are errors.
 */
export function outcomeOf(verdict: Verdict, cause: Cause | undefined, expected?: readonly Verdict[]): { outcome: Outcome; comparison?: Comparison } {
  if (verdict === 'error' && cause === 'harness') return { outcome: 'errored' };
  // Ctrl-C ends the run with its own exit code: what it left unrun is neither a pass nor a regression.
  if (verdict === 'error' && cause === 'interrupted') return { outcome: 'skipped' };
  if (expected) {
    if (expected.includes(verdict)) return { outcome: 'passed', comparison: 'expected' };
    // A decisive cell that can no longer be decided is a regression (a gateway that starts dropping
    // temperature makes it inconclusive, not ignored); a flaky cell says so with a set holding inconclusive.
    if (verdict === 'inconclusive') return { outcome: 'failed', comparison: 'regression' };
    if (RANK[verdict] > Math.max(...expected.map((v) => RANK[v]))) return { outcome: 'passed', comparison: 'improvement' };
    return { outcome: 'failed', comparison: 'regression' };
  }
  if (verdict === 'inconclusive') return { outcome: 'skipped' };
  if (verdict === 'fail' || verdict === 'error') return { outcome: 'failed' };
  return { outcome: 'passed' };
}
