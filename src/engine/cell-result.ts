import { clip } from '../text.js';
import type { Finding, ProbeInfo, ProbeResult, RowResult } from '../results/model.js';
import { outcomeOf } from '../results/outcome.js';
import type { CallLog } from './calls.js';
import type { ProbeDefinition, ProbeVerdict } from './probe.js';

/**
 * What the report reads of a probe: an audit's definition, or a passthrough case (whose area is its own).
 * A cell reads its id and kind alone.
 */
export type ProbeShape = Pick<ProbeDefinition, 'id' | 'kind' | 'scope' | 'requirement' | 'cost'> & { area: string };

/**
 * A probe's verdict made into the report's cell: its texts bounded, its outcome without a baseline, the
 * error bodies its evidence met said. The audit and passthrough both shape their cells here.
 */

export function probeInfo(p: ProbeShape): ProbeInfo {
  const cost = p.cost;
  const shared = cost.shared;
  const info: ProbeInfo = { id: p.id, area: p.area, kind: p.kind, scope: p.scope ?? 'model', requirement: p.requirement, cost: { requests: cost.requests, maxTokens: cost.maxTokens } };
  if (cost.sampled) info.cost.sampled = { ...cost.sampled };
  if (shared) info.cost.shared = shared.map((x) => x.key);
  return info;
}

/**
 * An inconclusive cell whose evidence holds a 2xx carrying an error body says so, as a finding, whichever
 * judgement found the answer unreadable: the error in the success is the endpoint's fault, and the reason
 * nothing could be judged.
 */
export function withErrorBodies(v: ProbeVerdict, evidence: readonly string[], log: CallLog): ProbeVerdict {
  if (v.findings?.some((f) => f.code === 'error_in_2xx')) return v;
  const calls = evidence.filter((id) => log.errorBodyIn2xx(id));
  if (calls.length === 0) return v;
  return { ...v, findings: [...(v.findings ?? []), { severity: 'warn', code: 'error_in_2xx', message: `an error body in a 2xx answer (${distinct(calls).join(', ')}): clients read it as a success` }] };
}

/** The call ids in their first order, each once (a probe's few need no Set). */
export function distinct(ids: readonly string[]): string[] {
  if (ids.length > 32) return [...new Set(ids)];
  const out: string[] = [];
  for (const id of ids) if (!out.includes(id)) out.push(id);
  return out;
}

/** A not-probed row's one result; its outcome without a baseline (report/gate.ts gates it). */
export function rowResult(v: ProbeVerdict, evidence: string[]): RowResult {
  const row: RowResult = { verdict: v.verdict, outcome: outcomeOf(v.verdict, v.cause).outcome, observed: clip(v.observed, MAX_OBSERVED), evidence };
  if (v.cause) row.cause = v.cause;
  if (v.status !== undefined) row.status = v.status;
  return row;
}

/** A cell as observed; its outcome without a baseline (report/gate.ts gates it). */
export function result(model: string, p: Pick<ProbeShape, 'id' | 'kind'>, v: ProbeVerdict, evidence: string[], ms: number): ProbeResult {
  const { outcome } = outcomeOf(v.verdict, v.cause);
  const r: ProbeResult = {
    model,
    probe: p.id,
    kind: p.kind,
    verdict: v.verdict,
    outcome,
    observed: clip(v.observed, MAX_OBSERVED),
    evidence,
    findings: v.findings?.length ? boundFindings(v.findings) : [],
    durationMs: Math.round(ms),
  };
  if (v.cause) r.cause = v.cause;
  if (v.status !== undefined) r.status = v.status;
  if (v.message !== undefined) r.message = clip(v.message, MAX_MESSAGE);
  if (v.notRun) r.notRun = true;
  return r;
}

/**
 * A cell's texts are bounded where they are made (a million choices must not become a 50 MB `observed`):
 * the server controls what probes quote. Cuts say they are ours (clip).
 */
export const MAX_OBSERVED = 2000;
export const MAX_MESSAGE = 500;
export const MAX_FINDINGS = 20;

function boundFindings(findings: readonly Finding[]): Finding[] {
  const kept = findings.slice(0, MAX_FINDINGS).map((f) => ({ ...f, message: clip(f.message, MAX_MESSAGE) }));
  if (findings.length > MAX_FINDINGS) kept.push({ severity: 'info', code: 'findings_cut', message: `${findings.length - MAX_FINDINGS} more finding(s) cut by chatprobe` });
  return kept;
}

