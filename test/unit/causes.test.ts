import { describe, expect, it } from 'vitest';
import { doctorChecks } from '../../src/pipeline/doctor.js';
import { CAUSES, DOCTOR_CHECKS, outsideTheRequest, type CauseInfo } from '../../src/results/causes.js';
import { Cause, type ModelEntry } from '../../src/results/model.js';
import { outcomeOf } from '../../src/results/outcome.js';
import { summarise } from '../../src/report/summary.js';
import { sampleReport } from '../helpers/report.js';

const ALL = Cause.options;
const where = (property: (c: CauseInfo) => boolean) => ALL.filter((c) => property(CAUSES[c]));

describe('the cause table', () => {
  it('holds every cause, each with its own advice', () => {
    expect(Object.keys(CAUSES).sort()).toEqual([...ALL].sort());
    const advice = ALL.map((c) => CAUSES[c].advice);
    expect(advice.every((a) => a.length > 20)).toBe(true);
    expect(new Set(advice).size).toBe(ALL.length);
  });

  it("stops a model's row for the causes of its account, its route or its server, never for our bug or the run's stop", () => {
    expect(where((c) => c.stopsRow)).toEqual(['auth', 'model_not_listed', 'model_not_in_group', 'quota', 'rate_limited', 'upstream', 'timeout', 'network']);
  });

  it('takes every cause but a 5xx as saying nothing of how the endpoint treats a request', () => {
    expect(where((c) => !c.outside)).toEqual(['upstream']);
    // A rate limit, the token, its group, no answer, the run's stop: a probe expecting a refusal errors.
    for (const c of ALL.filter((x) => x !== 'upstream')) expect(outsideTheRequest(c), c).toBe(true);
    expect(outsideTheRequest(undefined)).toBe(false);
    expect(outsideTheRequest('upstream')).toBe(false);
  });

  it('judges a refusal of the model only for a request that names no model the endpoint can serve', () => {
    expect(where((c) => c.refusesModel)).toEqual(['model_not_listed', 'model_not_in_group']);
    expect(outsideTheRequest('model_not_in_group', { noServableModel: true })).toBe(false);
    expect(outsideTheRequest('model_not_in_group')).toBe(true);
    // The token is the token's fault whatever model the request names.
    expect(outsideTheRequest('auth', { noServableModel: true })).toBe(true);
    expect(outsideTheRequest('rate_limited', { noServableModel: true })).toBe(true);
  });

  it("says which causes came with an HTTP answer, and gives each answered one a doctor check; the run's stop and our bug have none", () => {
    expect(where((c) => c.answered)).toEqual(['auth', 'model_not_in_group', 'quota', 'rate_limited', 'upstream']);
    for (const c of where((x) => x.answered)) expect(CAUSES[c].check, c).toBeDefined();
    expect(where((c) => c.check === undefined)).toEqual(['harness', 'interrupted', 'deadline', 'budget']);
    // Every check is failed by some cause, in the order an operator checks them.
    expect(DOCTOR_CHECKS.map((check) => where((c) => c.check === check))).toEqual([
      ['model_not_listed'],
      ['auth'],
      ['model_not_in_group'],
      ['quota'],
      ['rate_limited', 'upstream', 'timeout', 'network'],
    ]);
  });

  it("counts only the run's stop as not run, and gates our bug and Ctrl-C apart from the verdict", () => {
    // A spending cap reached is a stop as --max-duration is: judged, so a CI gate fails on what it left.
    expect(where((c) => c.notRun)).toEqual(['interrupted', 'deadline', 'budget']);
    for (const c of where((x) => x.notRun)) expect(CAUSES[c].stopsRow || CAUSES[c].answered, c).toBe(false);
    expect(Object.fromEntries(ALL.filter((c) => CAUSES[c].gate !== 'judged').map((c) => [c, CAUSES[c].gate]))).toEqual({ harness: 'errored', interrupted: 'skipped' });
  });
});

describe('every place reads the table', () => {
  it('doctor: the check each cause fails, its advice, and unknown checks where no HTTP answer came', () => {
    for (const cause of ALL) {
      const checks = doctorChecks({ id: 'm', listed: true, cause, smoke: { durationMs: 1, evidence: 'c1', message: 'seen' } } satisfies ModelEntry);
      const failed = checks.at(-1)!;
      expect(failed.state, cause).toBe('fail');
      expect(failed.advice, cause).toBe(CAUSES[cause].advice);
      const unknown = checks.filter((c) => c.state === 'unknown').length;
      if (CAUSES[cause].answered) expect(unknown, cause).toBe(0);
      else if (cause !== 'model_not_listed') expect(unknown, cause).toBeGreaterThan(0);
    }
  });

  it('the outcome of an error cell follows its gate; the summary counts not run from the table', () => {
    for (const cause of ALL) {
      const { outcome } = outcomeOf('error', cause);
      expect(outcome, cause).toBe(CAUSES[cause].gate === 'judged' ? 'failed' : CAUSES[cause].gate);
    }
    const report = sampleReport();
    const stopped = report.results.map((r, i) => (i < 2 ? { ...r, verdict: 'error' as const, cause: i === 0 ? ('interrupted' as const) : ('deadline' as const) } : r));
    expect(summarise({ ...report, results: stopped }).notRun).toBe(2);
  });
});
