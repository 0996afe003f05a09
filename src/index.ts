/**
 * chatprobe as a library: what a program needs to run an audit from code (the CLI is a caller of the same
 * functions), write its own probes, judge a recorded run again, and read or render reports.
 *
 *   const options = resolveOptions({ baseUrl: 'http://127.0.0.1:8080/v1', out: 'reports' }, process.env);
 *   const { report, exitCode } = await audit(options, {}, { probes: [...PROBES, myProbe] });
 */

// The pipeline: observe → record → judge → render.
export { audit, plan, INTERRUPTED_WRITE_MS, type AuditSinks, type AuditWith, type AuditResult, type RunSource } from './pipeline/audit.js';
export { judgeRecord, readRecorded, JUDGED_FOLDER, type JudgedAgain, type Recorded } from './pipeline/judge.js';
export { merge } from './pipeline/merge.js';
export { passthrough, PASSTHROUGH_BASELINE, type PassthroughTarget } from './pipeline/passthrough.js';
export type { PlanSummary } from './engine/run.js';
export type { PlannedModel } from './engine/plan.js';

// Options, as the flags and the config file give them.
export { resolveOptions, AuditFlags, type ResolvedOptions } from './config/options.js';
export { CannotTestError } from './errors.js';

// Probes: chatprobe's own, and what writing one takes.
export { PROBES } from '../suites/index.js';
export { loadProbeFiles } from './pipeline/user-probes.js';
export { defineProbe, type ProbeDefinition, type ProbeContext, type ProbeVerdict, type ProbeCost, type ChatBody, type ChatOptions, type Area } from './engine/probe.js';
export { honoured, ignored, accepted, inconclusive, conformance, fail, warn, note, refusal, unjudgeable, unreadable } from './engine/verdicts.js';
export type { Exchange, StreamExchange } from './engine/exchange.js';
export { readChoices } from './wire/completion.js';

// What a run found, and its reports.
export { Report, ProbeResult, CallRecord, ENDPOINT, type Verdict, type Cause, type Outcome, type ModelEntry, type Finding } from './results/model.js';
export { EVERY_PROBE } from './results/view.js';
export { EXIT } from './results/exit.js';
export { gate } from './report/gate.js';
export { loadBaseline, baselineFrom, type Baseline } from './report/baseline.js';
export { compareReports, type ReportComparison } from './report/compare.js';
// Is it the same model? A fingerprint, and the two tests of it (docs/identity.md).
export { Fingerprint, compareFingerprints, mixedBackends, type FingerprintComparison, type MixedBackends } from './results/identity.js';
export { readReport } from './report/read.js';
export { renderMatrix } from './report/writers/markdown.js';
export { renderJunit } from './report/writers/junit.js';

// The reference server the demo and the tests audit.
export { startReferenceServer, type ReferenceServer } from './reference/server.js';
export { loadProfile, PROFILE_NAMES } from './reference/profiles.js';
