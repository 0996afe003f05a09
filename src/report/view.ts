import { ENDPOINT, type ProbeInfo, type ProbeResult, type Report } from './model.js';

/** What the human-facing writers show: the endpoint checks apart, then the model × probe matrix. */
export interface ReportView {
  endpoint: { probe: ProbeInfo; result: ProbeResult | undefined }[];
  matrixProbes: ProbeInfo[];
  cell(model: string, probe: string): ProbeResult | undefined;
}

export function viewOf(report: Report): ReportView {
  const byKey = new Map(report.results.map((r) => [`${r.model}\u0000${r.probe}`, r]));
  const cell = (model: string, probe: string) => byKey.get(`${model}\u0000${probe}`);
  return {
    endpoint: report.probes.filter((p) => p.scope === 'target').map((probe) => ({ probe, result: cell(ENDPOINT, probe.id) })),
    matrixProbes: report.probes.filter((p) => p.scope !== 'target'),
    cell,
  };
}
