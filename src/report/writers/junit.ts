import junit from 'junit-report-builder';
import type { Builder } from 'junit-report-builder';
import { ENDPOINT, type ProbeResult, type Report } from '../model.js';
import { oneLine } from '../../boundary/text.js';
import { describeChange } from '../summary.js';
import { EVERY_PROBE, rowAsResult } from '../view.js';

// Under nodenext the default import is the module namespace in some loaders and the builder in others.
const root = ((junit as unknown as { default?: Builder }).default ?? junit) as Builder;

/** JUnit classnames are dotted package paths: a model id's dots would split it into packages. */
export function junitClassName(model: string): string {
  if (model === ENDPOINT) return 'endpoint';
  return oneLine(model).replace(/\./g, '_');
}

/**
 * Text for a CDATA section. The builder splits only the first "]]>" it finds, so a model id carrying two
 * could close the section and forge a test case: every one is broken here. Controls are already visible
 * (the report crossed the output boundary), so nothing XML forbids is left.
 */
export function cdata(text: string): string {
  return text.replace(/]]>/g, ']] >');
}

/**
 * One <testsuite> per model; classname = model id with dots replaced; name = probe id. The verdict goes in
 * properties and system-out, never in the name, so CI history keys stay stable.
 */
export function renderJunit(report: Report): string {
  const builder = root.newBuilder().name('chatprobe');
  const suites: { id: string; props: [string, string][]; row?: ProbeResult }[] = [];
  if (report.results.some((r) => r.model === ENDPOINT)) suites.push({ id: ENDPOINT, props: [['scope', 'endpoint']] });
  for (const m of report.models) {
    // A row that was not probed is one test case, not one per probe.
    const row = rowAsResult(m, EVERY_PROBE);
    suites.push({ id: m.id, props: [['listed', String(m.listed)], ...(m.cause ? [['cause', m.cause] as [string, string]] : [])], ...(row ? { row } : {}) });
  }
  const byModel = new Map<string, ProbeResult[]>();
  for (const r of report.results) {
    const list = byModel.get(r.model);
    if (list) list.push(r);
    else byModel.set(r.model, [r]);
  }
  for (const model of suites) {
    const suite = builder.testSuite().name(model.id === ENDPOINT ? 'endpoint' : oneLine(model.id));
    for (const [k, v] of model.props) suite.property(k, v);
    for (const r of model.row ? [model.row] : (byModel.get(model.id) ?? [])) {
      const tc = suite
        .testCase()
        .className(junitClassName(model.id))
        .name(r.probe)
        .time(r.durationMs / 1000)
        .property('verdict', r.verdict)
        .property('kind', r.kind)
        .property('outcome', r.outcome)
        .standardOutput(cdata(systemOut(r)));
      if (r.cause) tc.property('cause', r.cause);
      if (r.evidence.length > 0) tc.property('evidence', r.evidence.join(' '));
      if (r.comparison) tc.property('baseline', r.comparison);
      if (r.expected) tc.property('expected', r.expected.join(' '));
      switch (r.outcome) {
        case 'failed':
          tc.failure(oneLine(`${model.id === ENDPOINT ? 'endpoint' : model.id} · ${r.probe}: ${describeChange(r)}${r.cause ? ` (${r.cause})` : ''}: ${r.observed}`), r.comparison === 'missing' ? 'model_missing' : 'regression');
          break;
        case 'errored':
          tc.error(oneLine(r.observed), r.cause ?? 'harness');
          break;
        case 'skipped':
          tc.skipped();
          break;
        case 'passed':
          break;
      }
    }
  }
  return builder.build();
}

function systemOut(r: ProbeResult): string {
  const lines = [`verdict: ${r.verdict}`, `observed: ${r.observed}`];
  if (r.comparison) lines.push(`baseline: ${describeChange(r)}`);
  if (r.cause) lines.push(`cause: ${r.cause}`);
  if (r.status !== undefined) lines.push(`status: ${r.status}`);
  if (r.message) lines.push(`message: ${r.message}`);
  for (const f of r.findings) lines.push(`${f.severity}: ${f.code}: ${f.message}`);
  if (r.evidence.length > 0) lines.push(`evidence: ${r.evidence.join(' ')} (trace.jsonl)`);
  return lines.join('\n');
}
