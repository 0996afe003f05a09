import type { ProbeResult, Report } from '../../src/results/model.js';
import { outcomeOf } from '../../src/results/outcome.js';

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

const VERDICTS: ProbeResult['verdict'][] = ['honoured', 'ignored', 'rejected', 'accepted', 'pass', 'warn', 'fail', 'inconclusive', 'error'];

/**
 * A report of `models` × `probes` cells (probes in areas of ten), verdicts spread over all nine, each cell
 * citing its own call `c{n}`: the size a person scanning a large gateway looks at.
 */
export function wideReport(models: number, probes: number): Report {
  const base = sampleReport();
  const probeList = Array.from({ length: probes }, (_, j) => ({
    id: `area${Math.floor(j / 10)}.probe_${j}`,
    area: `area${Math.floor(j / 10)}`,
    kind: j % 2 === 0 ? ('capability' as const) : ('conformance' as const),
    scope: 'model' as const,
    requirement: `requirement of probe ${j}`,
    cost: { requests: 1, maxTokens: 8 },
  }));
  const modelIds = Array.from({ length: models }, (_, i) => `vendor-${i % 7}/model-${i}`);
  let n = 0;
  const results = modelIds.flatMap((model, i) =>
    probeList.map((p, j): ProbeResult => {
      const verdict = VERDICTS[(i + j) % VERDICTS.length]!;
      return {
        model,
        probe: p.id,
        kind: p.kind,
        verdict,
        outcome: outcomeOf(verdict, verdict === 'error' ? 'upstream' : undefined).outcome,
        observed: `cell ${i}×${j}: observed ${verdict}`,
        evidence: [`c${++n}`],
        findings: verdict === 'fail' ? [{ severity: 'fail', code: 'wide_fail', message: `model ${i} probe ${j} failed` }] : [],
        durationMs: 3,
        ...(verdict === 'error' ? { cause: 'upstream' as const, status: 503 } : {}),
      };
    }),
  );
  return { ...base, models: modelIds.map((id) => ({ id, listed: true })), probes: probeList, results, calls: n };
}

/**
 * `n` model ids as gateways list them: vendor-prefixed, up to 60 characters, many alike for their first 30
 * and more (a page or terminal that cuts them shows the same name twice), and a few short ones.
 */
export function gatewayIds(n: number): string[] {
  const stems = [
    'openai/gpt-4o-mini-2024-07-18',
    'accounts/fireworks/models/llama-v3p1-405b-instruct',
    'anthropic/claude-3-5-sonnet-20241022',
    'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    'deepseek-ai/DeepSeek-R1-Distill-Llama-70B',
    'Qwen/Qwen2.5-Coder-32B-Instruct',
    'mistralai/Mixtral-8x22B-Instruct-v0.1',
    'm',
  ];
  return Array.from({ length: n }, (_, i) => `${stems[i % stems.length]}${i < stems.length ? '' : `:ft-${i}`}`);
}

/** The report with its models renamed, in order, to `ids`. */
export function withModelIds(report: Report, ids: string[]): Report {
  const to = new Map(report.models.map((m, i) => [m.id, ids[i]!]));
  const id = (x: string) => to.get(x) ?? x;
  return { ...report, models: report.models.map((m) => ({ ...m, id: id(m.id) })), results: report.results.map((r) => ({ ...r, model: id(r.model) })) };
}
