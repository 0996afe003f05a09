import type { ProbeResult, Report } from '../../src/report/model.js';
import { outcomeOf } from '../../src/report/outcome.js';

/** A small hand-made report with the awkward values real servers produce (pipes, markup, CDATA ends). */
export function sampleReport(): Report {
  const r = (model: string, probe: string, verdict: ProbeResult['verdict'], observed: string, extra: Partial<ProbeResult> = {}): ProbeResult => ({
    model,
    probe,
    kind: probe.startsWith('parameters') ? 'capability' : 'conformance',
    verdict,
    outcome: outcomeOf(verdict, extra.cause).outcome,
    observed,
    evidence: ['c2'],
    findings: [],
    durationMs: 12,
    ...extra,
  });
  return {
    schemaVersion: 1,
    tool: { name: 'chatprobe', version: '0.0.0-test' },
    target: { baseUrl: 'http://127.0.0.1:1/v1', headerNames: [] },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    durationMs: 1000,
    interrupted: false,
    options: { concurrency: 1, timeoutMs: 1000, modelFilter: [], probeFilter: [], strict: false, requireAuth: false, samples: 4 },
    models: [
      { id: 'gpt-4.1|mini', listed: true },
      { id: 'org/llama-3.1', listed: true, cause: 'upstream', advice: 'channel down' },
    ],
    probes: [
      { id: 'chat.basic', area: 'chat', kind: 'conformance', scope: 'model', requirement: 'A | B <b>', cost: { requests: 0, maxTokens: 0 } },
      { id: 'parameters.max_tokens', area: 'parameters', kind: 'capability', scope: 'model', requirement: 'limits', cost: { requests: 1, maxTokens: 5 } },
    ],
    results: [
      r('gpt-4.1|mini', 'chat.basic', 'fail', 'expected "stop", got "eos" | <html> ]]> & done\nsecond line'),
      r('gpt-4.1|mini', 'parameters.max_tokens', 'inconclusive', 'ended early'),
      r('org/llama-3.1', 'chat.basic', 'error', 'not run', { cause: 'upstream', status: 503 }),
      r('org/llama-3.1', 'parameters.max_tokens', 'error', 'the probe threw', { cause: 'harness' }),
    ],
    calls: 3,
  };
}
