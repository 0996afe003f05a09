import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../src/report/outcome.js';

describe('outcomeOf', () => {
  it('without a baseline: capability facts pass, broken MUSTs and untestable cells fail, our bugs error', () => {
    expect(outcomeOf('ignored', undefined)).toEqual({ outcome: 'passed' });
    expect(outcomeOf('rejected', undefined)).toEqual({ outcome: 'passed' });
    expect(outcomeOf('warn', undefined)).toEqual({ outcome: 'passed' });
    expect(outcomeOf('fail', undefined)).toEqual({ outcome: 'failed' });
    expect(outcomeOf('error', 'upstream')).toEqual({ outcome: 'failed' });
    expect(outcomeOf('error', 'harness')).toEqual({ outcome: 'errored' });
    expect(outcomeOf('inconclusive', undefined)).toEqual({ outcome: 'skipped' });
  });

  it('with a baseline: expected passes, better is an improvement, anything else a regression', () => {
    expect(outcomeOf('fail', undefined, ['fail'])).toEqual({ outcome: 'passed', comparison: 'expected' });
    expect(outcomeOf('honoured', undefined, ['ignored'])).toEqual({ outcome: 'passed', comparison: 'improvement' });
    expect(outcomeOf('ignored', undefined, ['honoured'])).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('rejected', undefined, ['ignored'])).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('warn', undefined, ['pass'])).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('error', 'upstream', ['honoured'])).toEqual({ outcome: 'failed', comparison: 'regression' });
  });

  it('accepts any verdict of a flaky set, and fails a decisive cell that fell to inconclusive', () => {
    expect(outcomeOf('inconclusive', undefined, ['honoured', 'inconclusive'])).toEqual({ outcome: 'passed', comparison: 'expected' });
    expect(outcomeOf('honoured', undefined, ['honoured', 'inconclusive'])).toEqual({ outcome: 'passed', comparison: 'expected' });
    expect(outcomeOf('inconclusive', undefined, ['honoured'])).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('error', 'harness', ['honoured'])).toEqual({ outcome: 'errored' });
  });
});
