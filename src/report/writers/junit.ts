import { viewFingerprint, type Fingerprint, type IdentityCheck } from '../../results/identity.js';
import { ENDPOINT, type ModelEntry, type ProbeResult, type Report } from '../../results/model.js';
import { oneLine, showControls } from '../../text.js';
import { describeChange } from '../summary.js';
import { EVERY_PROBE, rowAsResult } from '../../results/view.js';

/**
 * junit.xml, written by hand to the Jenkins JUnit schema (xUnit's junit-10 rules, which Ant's files meet
 * too; test/fixtures/junit-jenkins.xsd is the oracle):
 * - one <testsuite> per model (plus `endpoint`), classname = model id with dots replaced, name = probe id,
 *   so CI history keys stay stable; the verdict is in system-out and in the failure, never in the name;
 * - properties only where the schema allows them: on the suite (the model's facts and the run's);
 * - a failure's type says what failed: `regression` or `model_missing` against a baseline, otherwise
 *   `conformance` (a verdict) or `untestable` (the endpoint did not let the cell be tested);
 * - cells that were not run because their row stalled or the run stopped fail once per suite and cause;
 *   the others of that cause are skipped and point at it, so one unreachable model is one failure, not fifty.
 */

export type FailureType = 'regression' | 'model_missing' | 'conformance' | 'untestable';

/** What a failed cell's <failure type> says: against a baseline its comparison, otherwise what the verdict is. */
export function failureType(r: ProbeResult): FailureType {
  if (r.comparison === 'missing') return 'model_missing';
  if (r.comparison === 'regression') return 'regression';
  return r.verdict === 'error' ? 'untestable' : 'conformance';
}

/** JUnit classnames are dotted package paths: a model id's dots would split it into packages. */
export function junitClassName(model: string): string {
  if (model === ENDPOINT) return 'endpoint';
  return oneLine(model).replace(/\./g, '_');
}

/**
 * Characters XML forbids (C0 controls, U+FFFE, lone surrogates) are shown as escapes first, so any text is
 * well-formed; then markup is escaped. Text keeps its line breaks; attributes keep them as references.
 */
export function xmlText(text: string): string {
  return escapeMarkup(showControls(text), false);
}

export function xmlAttr(text: string): string {
  return escapeMarkup(showControls(text), true);
}

/**
 * &, <, > (and in attributes ", line feed and tab) as references, in one pass and with no regex replace
 * calling back per match: a 200-model file escapes over 40,000 strings (the bench's goal: ≤ 3× JSON.stringify of
 * the report). CR would be a reference too, but showControls has already shown it as \x0d.
 */
function escapeMarkup(text: string, attr: boolean): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Letters, digits and most punctuation: '?' and up.
    if (c > 0x3e) continue;
    let ref: string;
    if (c === 0x26) ref = '&amp;';
    else if (c === 0x3c) ref = '&lt;';
    else if (c === 0x3e) ref = '&gt;';
    else if (c === 0x0d) ref = '&#13;';
    else if (!attr) continue;
    else if (c === 0x22) ref = '&quot;';
    else if (c === 0x0a) ref = '&#10;';
    else if (c === 0x09) ref = '&#9;';
    else continue;
    out += text.slice(from, i) + ref;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Plain decimal seconds (the schema's time pattern has no exponent). */
function seconds(ms: number): string {
  // Whole milliseconds, what the engine records, skip toFixed (about a tenth of a 200-model file's time).
  // Same digits: below 1e12, ms / 1000 is off by far less than 0.0005, so toFixed(3) rounds back to ms.
  if (Number.isInteger(ms) && ms >= 0 && ms < 1e12) {
    const frac = ms % 1000;
    return `${(ms - frac) / 1000}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
  }
  return (Math.max(0, ms) / 1000).toFixed(3);
}

interface Suite {
  /** The model id (ENDPOINT for the endpoint's checks). */
  model: string;
  name: string;
  props: [string, string][];
  cases: ProbeResult[];
}

type Counts = { failure: number; error: number; skipped: number };

export function renderJunit(report: Report): string {
  return [...junitPieces(report)].join('');
}

/**
 * junit.xml in pieces (a suite each), which joined are the file: a run of 100,000 models is 100,000 suites,
 * never one string in memory. The totals of the root element come first in the file, so the cases are
 * counted first, then the suites rendered one at a time.
 */
export function* junitPieces(report: Report): Generator<string> {
  // Ant writes its timestamp without a zone: this one is UTC, as the run_started property says.
  const timestamp = report.startedAt.slice(0, 19);
  const run = properties([
    ['chatprobe.version', report.tool.version],
    ['target', report.target.baseUrl],
    ['run_started', report.startedAt],
  ]);
  const total = { tests: 0, failures: 0, errors: 0 };
  for (const suite of suitesOf(report)) {
    const firstNotRun = new Map<string, string>();
    total.tests += suite.cases.length;
    for (const r of suite.cases) {
      const tag = caseTag(r, firstNotRun).tag;
      if (tag === 'failure') total.failures++;
      else if (tag === 'error') total.errors++;
    }
  }
  yield '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="chatprobe" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}" time="${seconds(report.durationMs)}">\n`;
  for (const suite of suitesOf(report)) yield renderSuite(suite, timestamp, run).xml;
  yield '</testsuites>\n';
}

/** One suite as one flat string (a rope of += over many cases kept every piece alive, and the young
 *  generation's GC copied them all again at each collection). */
function renderSuite(suite: Suite, timestamp: string, run: string): { xml: string; counts: Counts } {
  const counts: Counts = { failure: 0, error: 0, skipped: 0 };
  const firstNotRun = new Map<string, string>();
  const classname = xmlAttr(junitClassName(suite.model));
  let ms = 0;
  const cases: string[] = [];
  for (const r of suite.cases) {
    cases.push(testCase(suite.name, classname, r, firstNotRun, counts));
    ms += r.durationMs;
  }
  const xml = [
    `  <testsuite name="${xmlAttr(suite.name)}" tests="${suite.cases.length}" failures="${counts.failure}" errors="${counts.error}" skipped="${counts.skipped}" time="${seconds(ms)}" timestamp="${timestamp}">\n`,
    `    <properties>\n${properties(suite.props)}${run}    </properties>\n`,
    cases.join(''),
    '  </testsuite>\n',
  ].join('');
  return { xml, counts };
}

function properties(props: [string, string][]): string {
  let xml = '';
  for (const [k, v] of props) xml += `      <property name="${xmlAttr(k)}" value="${xmlAttr(v)}"/>\n`;
  return xml;
}

/** The endpoint's checks first, then one suite per model in plan order; a row not probed is one case. */
function* suitesOf(report: Report): Generator<Suite> {
  const byModel = new Map<string, ProbeResult[]>();
  for (const r of report.results) {
    const list = byModel.get(r.model);
    if (list) list.push(r);
    else byModel.set(r.model, [r]);
  }
  const endpoint = byModel.get(ENDPOINT);
  if (endpoint) yield { model: ENDPOINT, name: 'endpoint', props: [['scope', 'endpoint']], cases: endpoint };
  const checks = new Map((report.identity ?? []).map((c) => [c.model, c]));
  for (const m of report.models) {
    const row = rowAsResult(m, EVERY_PROBE);
    yield { model: m.id, name: oneLine(m.id), props: modelProps(m, checks.get(m.id)), cases: row ? [row] : (byModel.get(m.id) ?? []) };
  }
}

function modelProps(m: ModelEntry, check: IdentityCheck | undefined): [string, string][] {
  const props: [string, string][] = [
    ['model', m.id],
    ['listed', String(m.listed)],
  ];
  if (m.ownedBy) props.push(['owned_by', m.ownedBy]);
  if (m.cause) props.push(['cause', m.cause]);
  if (m.advice) props.push(['advice', m.advice]);
  if (m.stalled) props.push(['stalled_after', m.stalled.join(' ')]);
  if (m.billing) props.push(...billingProps(m.billing));
  if (m.fingerprint && !m.notRun) props.push(...identityProps(m.fingerprint, check));
  return props;
}

/** The model's fingerprint (identity.*) as suite properties, and its comparison with the baseline's. */
function identityProps(f: Fingerprint, check: IdentityCheck | undefined): [string, string][] {
  const v = viewFingerprint(f);
  const props: [string, string][] = [
    ['identity.signal', v.signal],
    ['identity.answered', `${v.answered}/${v.sent}`],
  ];
  if (v.spread !== undefined) props.push(['identity.spread', String(v.spread)]);
  if (v.anchor.length > 0) props.push(['identity.anchor', v.anchor.map((a) => `${JSON.stringify(a.answer)}x${a.count}`).join(' ')]);
  if (v.systemFingerprints.length > 0) props.push(['identity.system_fingerprint', v.systemFingerprints.join(' ')]);
  if (check) {
    props.push(['identity.baseline', check.verdict], ['identity.baseline.statistic', `${check.statistic} (threshold ${check.threshold})`], ['identity.baseline.why', check.why]);
    if (check.require) props.push(['identity.baseline.require', check.require], ['identity.baseline.outcome', check.outcome]);
  }
  return props;
}

/**
 * The model's metered calls (billing.* probes) as suite properties: each call's usage, deduction and
 * listed price, how the balance was watched, and why a deduction was given to no call.
 */
function billingProps(b: NonNullable<ModelEntry['billing']>): [string, string][] {
  const props: [string, string][] = [['billing.unit', b.unit]];
  if (b.prices !== undefined) props.push(['billing.prices', b.prices]);
  if (b.settlement) props.push(['billing.quiet_ms', String(b.settlement.quietMs)], ['billing.late_ms', String(b.settlement.lateMs)]);
  for (const c of b.calls) {
    const at = `billing.${c.call}`;
    if (c.promptTokens !== undefined && c.completionTokens !== undefined) props.push([`${at}.tokens`, `${c.promptTokens}+${c.completionTokens}`]);
    props.push([`${at}.deducted`, String(c.deducted)]);
    if (c.listed !== undefined) props.push([`${at}.listed`, String(c.listed)]);
    if (c.pricedAs) props.push([`${at}.priced_as`, c.pricedAs.join(' ')]);
    if (c.unattributed) props.push([`${at}.unattributed`, c.unattributed]);
  }
  if (b.unmeasurable) props.push(['billing.unmeasurable', b.unmeasurable]);
  if (b.unbilled) props.push(['billing.unbilled', b.unbilled]);
  return props;
}

/**
 * What a case holds: nothing (passed), or its <skipped>, <error> or <failure>; a cell not run for a cause
 * already failed in its suite is skipped and points at that failure (`first`). One function, so the
 * root's totals (counted first) and the cases (rendered after) agree.
 */
function caseTag(r: ProbeResult, firstNotRun: Map<string, string>): { tag: keyof Counts | undefined; first?: string } {
  switch (r.outcome) {
    case 'passed':
      return { tag: undefined };
    case 'skipped':
      return { tag: 'skipped' };
    case 'errored':
      return { tag: 'error' };
    case 'failed': {
      if (r.notRun && r.cause) {
        const first = firstNotRun.get(r.cause);
        if (first !== undefined) return { tag: 'skipped', first };
        firstNotRun.set(r.cause, r.probe);
      }
      return { tag: 'failure' };
    }
  }
}

function testCase(suite: string, classname: string, r: ProbeResult, firstNotRun: Map<string, string>, counts: Counts): string {
  const open = `    <testcase classname="${classname}" name="${xmlAttr(r.probe)}" time="${seconds(r.durationMs)}">\n`;
  const rest = `      <system-out>${systemOut(r)}</system-out>\n    </testcase>\n`;
  const { tag, first } = caseTag(r, firstNotRun);
  switch (tag) {
    case undefined:
      return open + rest;
    case 'skipped':
      if (first !== undefined) return open + element(counts, 'skipped', `${r.observed} (counted once, as the failure of ${first})`) + rest;
      return open + element(counts, 'skipped', r.verdict === 'inconclusive' ? `inconclusive: ${r.observed}` : r.observed) + rest;
    case 'error':
      return open + element(counts, 'error', r.observed, r.cause ?? 'harness') + rest;
    case 'failure':
      return open + element(counts, 'failure', `${suite} · ${r.probe}: ${describeChange(r)}${r.cause ? ` (${r.cause})` : ''}: ${r.observed}`, failureType(r)) + rest;
  }
}

/** A case's <failure>, <error> or <skipped>, counted for its suite. */
function element(counts: Counts, tag: keyof Counts, message: string, type?: string): string {
  counts[tag]++;
  return `      <${tag}${type ? ` type="${type}"` : ''} message="${xmlAttr(oneLine(message))}"/>\n`;
}

/** The cell in words, escaped piece by piece: verdicts, kinds, outcomes and causes are our own words. */
function systemOut(r: ProbeResult): string {
  let text = `verdict: ${r.verdict}\nkind: ${r.kind}\noutcome: ${r.outcome}\nobserved: ${xmlText(r.observed)}`;
  if (r.comparison) text += `\nbaseline: ${describeChange(r)}`;
  if (r.cause) text += `\ncause: ${r.cause}`;
  if (r.status !== undefined) text += `\nstatus: ${r.status}`;
  if (r.message) text += `\nmessage: ${xmlText(r.message)}`;
  for (const f of r.findings) text += `\n${f.severity}: ${xmlText(f.code)}: ${xmlText(f.message)}`;
  if (r.evidence.length > 0) text += `\nevidence: ${xmlText(r.evidence.join(' '))} (trace.jsonl)`;
  return text;
}
