/** The programmatic API: run an audit from code, define probes, render reports. */
export { runAudit, type AuditHooks, type AuditRun } from './engine/run.js';
export { defineProbe, type ProbeDefinition, type ProbeContext, type ProbeVerdict, type ChatBody } from './engine/probe.js';
export type { Exchange, StreamExchange } from './engine/exchange.js';
export { resolveOptions, AuditFlags, type ResolvedOptions } from './config/options.js';
export { CannotTestError } from './errors.js';
export { Report, ProbeResult, CallRecord, type Verdict, type Cause, type Outcome } from './results/model.js';
export { writeReports } from './report/write.js';
export { renderMatrix } from './report/writers/markdown.js';
export { renderJunit } from './report/writers/junit.js';
export { startReferenceServer, type ReferenceServer } from './reference/server.js';
export { loadProfile, PROFILE_NAMES } from './reference/profiles.js';
export { PROBES } from '../suites/index.js';
