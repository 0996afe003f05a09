import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli } from '../helpers/cli.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Contrasts on one answer a side where decoding repeats (suites/support/repeat.ts), end to end: what the
 * reference server received says which requests carried temperature 0 or a seed, and how many each
 * contrast sent.
 */
const KEY = 'sk-repeat-test-key-0123456789';
const env = { OPENAI_API_KEY: KEY };

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY, recordBodies: true });
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

type Body = { model?: string; messages?: { content?: unknown }[]; tools?: unknown; tool_choice?: unknown; response_format?: { type?: string }; temperature?: unknown; seed?: unknown };

/** The chat bodies one model received. */
function bodiesOf(model: string): Body[] {
  const out: Body[] = [];
  for (const r of server.received) {
    if (r.path !== '/v1/chat/completions' || r.raw === undefined) continue;
    try {
      const b = JSON.parse(r.raw) as Body;
      if (b.model === model) out.push(b);
    } catch {
      // an errors.* probe's malformed body
    }
  }
  return out;
}

const toolChoiceNone = (b: Body) => b.tool_choice === 'none';
const jsonMode = (b: Body) => b.response_format?.type === 'json_object';
const sampled = (b: Body) => JSON.stringify(b.messages ?? []).includes('random six-digit');

describe('contrasts where decoding repeats', () => {
  it('sends both sides at temperature 0 to a model that repeats there, with a seed to one that refuses 0, one answer a side', async () => {
    const out = await tempDir();
    const probes = ['parameters.temperature', 'parameters.seed', 'parameters.tool_choice.none', 'parameters.response_format.json_object'];
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard', 'ref-reasoning', '--probes', ...probes], env);
    expect(run.code, run.stderr).toBe(0);
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    const cell = (model: string, probe: string) => report.results.find((r) => r.model === model && r.probe === probe)!;

    const standard = bodiesOf('ref-standard');
    expect(standard.filter(toolChoiceNone).map((b) => b.temperature)).toEqual([0]);
    expect(standard.filter(jsonMode).map((b) => b.temperature)).toEqual([0]);
    // The weather request and the prose answer, the side without the parameter: once each, at 0.
    expect(standard.filter((b) => b.tools && b.tool_choice === undefined).map((b) => b.temperature)).toEqual([0]);
    expect(cell('ref-standard', 'parameters.tool_choice.none').verdict).toBe('honoured');
    expect(cell('ref-standard', 'parameters.tool_choice.none').observed).toContain('one answer a side, both sent at temperature 0');
    expect(cell('ref-standard', 'parameters.response_format.json_object').verdict).toBe('honoured');

    // ref-reasoning takes only temperature 1, and honours seeds.
    const reasoning = bodiesOf('ref-reasoning');
    expect(reasoning.filter(toolChoiceNone).map((b) => [b.temperature, b.seed])).toEqual([[1, 42]]);
    expect(reasoning.filter(jsonMode).map((b) => [b.temperature, b.seed])).toEqual([[1, 42]]);
    expect(cell('ref-reasoning', 'parameters.tool_choice.none').observed).toContain('both sent with seed 42 at temperature 1');
  });

  it('decides alike at --concurrency 1 (the gate, the sampling cells and the contrasts share one request slot): no wait on one another, and the cells say what the gate took', async () => {
    const out = await tempDir();
    const probes = ['parameters.temperature', 'parameters.seed', 'parameters.top_p', 'parameters.tool_choice.none', 'parameters.tool_choice.required', 'parameters.response_format.json_object'];
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard', 'ref-reasoning', '--concurrency', '1', '--probes', ...probes], env);
    expect(run.code, run.stderr).toBe(0);
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    const cell = (model: string, probe: string) => report.results.find((r) => r.model === model && r.probe === probe)!;
    expect(cell('ref-standard', 'parameters.temperature').verdict).toBe('honoured');
    expect(cell('ref-standard', 'parameters.tool_choice.required').observed).toContain('both sent at temperature 0');
    expect(cell('ref-reasoning', 'parameters.seed').verdict).toBe('honoured');
    expect(cell('ref-reasoning', 'parameters.tool_choice.none').observed).toContain('both sent with seed 42 at temperature 1');
  });

  it('takes the chance bound where the sampling probes do not run: no sample is sent for the gate, and the dry run prices the further answers', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard', '--probes', 'parameters.tool_choice.none'], env);
    expect(run.code, run.stderr).toBe(0);
    const bodies = bodiesOf('ref-standard');
    expect(bodies.filter(sampled)).toEqual([]);
    expect(bodies.every((b) => b.temperature === undefined)).toBe(true);
    // Two answers with tool_choice "none", three without (the weather request and two more).
    expect(bodies.filter(toolChoiceNone)).toHaveLength(2);
    expect(bodies.filter((b) => b.tools && b.tool_choice === undefined)).toHaveLength(3);
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.results.find((r) => r.probe === 'parameters.tool_choice.none')!.observed).toContain('2 with it and 3 without');

    // Without parameters.temperature the further answers are certain: the plan counts them, and prints
    // none as "more" (a cap the plan fits, the run fits).
    server.received.length = 0;
    const plan = JSON.parse((await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'parameters.tool_choice.none'], env)).stdout);
    expect(plan.unrepeatable).toBe(0);
    // The smoke call, the three requests parameters.tools reads, tool_choice "none" twice, the weather request twice more.
    expect(plan.perModel.requests).toBe(8);
    expect(bodies.length + 1).toBeLessThanOrEqual(plan.perModel.requests);
    // With parameters.temperature, they are what a model whose decoding does not repeat may send more.
    const gated = JSON.parse((await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'parameters.tool_choice.none', 'parameters.temperature'], env)).stdout);
    expect(gated.unrepeatable).toBe(3);
  });

  it('sends the quick tier\'s tool and JSON requests as they were, with no temperature: no contrast reads them', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard', '--tier', 'quick'], env);
    expect(run.code, run.stderr).toBe(0);
    const bodies = bodiesOf('ref-standard');
    const toolsOrJson = bodies.filter((b) => b.tools !== undefined || b.response_format !== undefined);
    expect(toolsOrJson.length).toBeGreaterThan(0);
    expect(toolsOrJson.every((b) => b.temperature === undefined && b.seed === undefined)).toBe(true);
    expect(bodies.filter(sampled)).toEqual([]);
  });
});
