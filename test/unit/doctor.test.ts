import { describe, expect, it } from 'vitest';
import { doctorLines } from '../../src/cli/doctor.js';
import type { ModelEntry } from '../../src/results/model.js';

const model = (m: Partial<ModelEntry>): ModelEntry => ({ id: 'm1', listed: true, ...m });

describe('doctor lines', () => {
  it('passes every check a 200 shows', () => {
    const lines = doctorLines(model({ smoke: { status: 200, durationMs: 12, evidence: 'c2' } }));
    expect(lines.filter((l) => l.startsWith('  ✓'))).toHaveLength(5);
    expect(lines.at(-1)).toBe('  ✓ no rate limit, upstream answers: HTTP 200 in 12 ms');
  });

  it('stops at the check the cause belongs to, with its advice', () => {
    const lines = doctorLines(model({ cause: 'quota', smoke: { status: 403, durationMs: 5, evidence: 'c2', message: 'HTTP 403: 用户额度不足' } }));
    expect(lines.slice(1, 4).every((l) => l.startsWith('  ✓'))).toBe(true);
    expect(lines[4]).toBe('  ✗ quota left: HTTP 403: 用户额度不足');
  });

  it('leaves token, group and quota unknown when the smoke call got no HTTP answer', () => {
    const lines = doctorLines(model({ cause: 'timeout', smoke: { durationMs: 2000, evidence: 'c2', message: 'timeout: no complete answer within --timeout' } }));
    expect(lines.slice(2, 5)).toEqual(["  ? token accepted: not known (no HTTP answer to tell)", "  ? token's group can reach it: not known (no HTTP answer to tell)", '  ? quota left: not known (no HTTP answer to tell)']);
    expect(lines[5]).toBe('  ✗ no rate limit, upstream answers: timeout: no complete answer within --timeout');
    expect(lines.join('\n')).not.toContain('✓ token');
  });

  it('never puts a ✓ on a line that failed: a run stopped by --max-duration is said last, as the failure it is', () => {
    const lines = doctorLines(model({ cause: 'deadline', smoke: { durationMs: 973, evidence: 'c2', message: 'deadline: cut short: --max-duration ran out' } }));
    expect(lines.filter((l) => l.includes('✓')).map((l) => l.trim())).toEqual(['✓ listed by GET /models']);
    expect(lines.at(-2)).toBe('  ✗ smoke call: deadline: cut short: --max-duration ran out');
  });

  it('says an error inside the smoke call\'s 2xx, read from any shape, as a note after the passing checks', () => {
    const message = 'HTTP 200 with an error body: "upstream timed out" (the 2xx body carries an "error" member, status 504 in the body)';
    const lines = doctorLines(model({ smoke: { status: 200, durationMs: 12, evidence: 'c2', message } }));
    expect(lines[5]).toBe('  ✓ no rate limit, upstream answers: HTTP 200 in 12 ms');
    expect(lines[6]).toBe(`  ! answers in its 2xx: ${message}: clients read an error inside a success as an answer: check the upstream channel serving this model`);
  });

  it('does not call a model listed that GET /models did not list (--allow-unlisted)', () => {
    const lines = doctorLines(model({ listed: false, smoke: { status: 200, durationMs: 12, evidence: 'c2' } }));
    expect(lines[1]).toBe('  ! not listed by GET /models: called anyway (--allow-unlisted)');
    expect(lines.join('\n')).not.toContain('✓ listed');
  });
});
