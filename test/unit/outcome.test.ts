import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../src/results/outcome.js';

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
    expect(outcomeOf('fail', undefined, { cell: ['fail'] })).toEqual({ outcome: 'passed', comparison: 'expected' });
    expect(outcomeOf('honoured', undefined, { cell: ['ignored'] })).toEqual({ outcome: 'passed', comparison: 'improvement' });
    expect(outcomeOf('ignored', undefined, { cell: ['honoured'] })).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('rejected', undefined, { cell: ['ignored'] })).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('warn', undefined, { cell: ['pass'] })).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('error', 'upstream', { cell: ['honoured'] })).toEqual({ outcome: 'failed', comparison: 'regression' });
  });

  it('accepts any verdict of a flaky set, and fails a decisive cell that fell to inconclusive', () => {
    expect(outcomeOf('inconclusive', undefined, { cell: ['honoured', 'inconclusive'] })).toEqual({ outcome: 'passed', comparison: 'expected' });
    expect(outcomeOf('honoured', undefined, { cell: ['honoured', 'inconclusive'] })).toEqual({ outcome: 'passed', comparison: 'expected' });
    expect(outcomeOf('inconclusive', undefined, { cell: ['honoured'] })).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('error', 'harness', { cell: ['honoured'] })).toEqual({ outcome: 'errored' });
  });

  it('says a cell or row the baseline lacks is new, its outcome as without a baseline', () => {
    expect(outcomeOf('fail', undefined, { cell: undefined })).toEqual({ outcome: 'failed', comparison: 'new' });
    expect(outcomeOf('ignored', undefined, { cell: undefined })).toEqual({ outcome: 'passed', comparison: 'new' });
    expect(outcomeOf('error', 'upstream', { row: undefined })).toEqual({ outcome: 'failed', comparison: 'new' });
  });

  it('passes a row not probed only where every cell of the model expects its verdict, and never as an improvement', () => {
    expect(outcomeOf('error', 'upstream', { row: [['error'], ['error', 'honoured']] })).toEqual({ outcome: 'passed', comparison: 'expected' });
    expect(outcomeOf('error', 'upstream', { row: [['error'], ['honoured']] })).toEqual({ outcome: 'failed', comparison: 'regression' });
    // A cell would call error after an expected inconclusive an improvement; a row stands for cells it never ran.
    expect(outcomeOf('error', 'timeout', { row: [['inconclusive']] })).toEqual({ outcome: 'failed', comparison: 'regression' });
  });

  it("takes the gate of an error's cause from the cause table: our bug errors and Ctrl-C skips, neither compared; --max-duration is judged", () => {
    for (const against of [undefined, { cell: ['honoured' as const] }, { cell: undefined }, { row: [['error' as const]] }]) {
      expect(outcomeOf('error', 'harness', against)).toEqual({ outcome: 'errored' });
      expect(outcomeOf('error', 'interrupted', against)).toEqual({ outcome: 'skipped' });
    }
    expect(outcomeOf('error', 'deadline')).toEqual({ outcome: 'failed' });
    expect(outcomeOf('error', 'deadline', { cell: ['pass'] })).toEqual({ outcome: 'failed', comparison: 'regression' });
    expect(outcomeOf('error', 'deadline', { row: [['error']] })).toEqual({ outcome: 'passed', comparison: 'expected' });
  });
});
