import { PROBES } from '../../suites/index.js';
import { out } from './output.js';

export function probesCommand(json: boolean): number {
  const rows = PROBES.map((p) => ({ id: p.id, area: p.area, kind: p.kind, requirement: p.requirement, cost: p.cost }));
  if (json) {
    out(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const idWidth = Math.max(...rows.map((r) => r.id.length));
  for (const r of rows) {
    const cost = `${r.cost.requests} req, ${r.cost.maxTokens} tok`;
    out(`${r.id.padEnd(idWidth)}  ${r.kind.padEnd(11)}  ${cost.padEnd(16)}  ${r.requirement}\n`);
  }
  const total = rows.reduce((a, r) => ({ requests: a.requests + r.cost.requests, maxTokens: a.maxTokens + r.cost.maxTokens }), { requests: 0, maxTokens: 0 });
  out(`\n${rows.length} probes; per model at most ${total.requests} requests (plus one smoke call) and ${total.maxTokens} max tokens\n`);
  return 0;
}
