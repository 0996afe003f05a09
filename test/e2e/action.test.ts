import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { cliCommand, ROOT, runCommand } from '../helpers/cli.js';
import { freePort } from '../helpers/server-process.js';
import { loadAction, readOutputs, runBashStep, runsIf, substitute, type Contexts } from './support/github-runner.js';
import { workspaceDir } from './support/workspace.js';

/**
 * The GitHub Action (action.yml and its script action/run.sh), run here as the runner runs a composite
 * action: the `with:` values and defaults become the inputs context, each step's `if:` and `env:` are
 * evaluated, the bash steps run in the job's workspace with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and
 * RUNNER_TEMP files, and the uses steps are stood in for (setup-node does nothing, upload-artifact
 * records the upload and answers 409 Conflict to a name already uploaded in the workflow run, as v4 does).
 */
const KEY = 'sk-action-Zt8qWm2Vx5Lp';
// chatprobe from source, through the tests' runCli.
const CHATPROBE_CMD = cliCommand([]).flat().join(' ');
// Characters actions/upload-artifact@v4 refuses in an artifact name.
const BAD_ARTIFACT_NAME = /[":<>|*?\\/\r\n]/;

let server: ReferenceServer;
/** A loopback port nothing listens on (not port 1: tests of other files may hold it). */
let closed: string;
beforeAll(async () => {
  server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  closed = `http://127.0.0.1:${await freePort()}/v1`;
});
afterAll(() => server.close());

/** One workflow run: the artifact names uploaded so far. */
type WorkflowRun = Set<string>;

interface Job {
  workspace: string;
  /** RUNNER_TEMP: one per job, shared by the job's steps. */
  temp: string;
  id: string;
  strategy: { 'job-index': number; 'job-total': number };
  env: Record<string, string>;
}

async function newJob(id = 'audit', strategy = { 'job-index': 0, 'job-total': 1 }, env: Record<string, string> = {}): Promise<Job> {
  const workspace = await workspaceDir('job');
  const temp = join(workspace, '.runner-temp');
  await mkdir(temp);
  return { workspace, temp, id, strategy, env };
}

interface ActionRun {
  /** 0 when every step that ran succeeded, else the failing step's exit code. */
  code: number;
  outputs: Record<string, string>;
  ran: string[];
  uploads: { name: string; path: string }[];
  stdout: string;
  stderr: string;
  summary: string;
}

let useCount = 0;
async function useAction(job: Job, inputs: Record<string, string>, run: WorkflowRun = new Set()): Promise<ActionRun> {
  const action = await loadAction();
  for (const name of Object.keys(inputs)) expect(Object.keys(action.inputs), `input ${name}`).toContain(name);
  const n = ++useCount;
  const summaryFile = join(job.temp, `step-summary-${n}`);
  await writeFile(summaryFile, '');
  const contexts: Contexts = {
    inputs: Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, inputs[k] ?? v.default ?? ''])),
    github: { action_path: ROOT, job: job.id, workspace: job.workspace },
    strategy: job.strategy,
    steps: {} as Record<string, { outputs: Record<string, string> }>,
  };
  const result: ActionRun = { code: 0, outputs: {}, ran: [], uploads: [], stdout: '', stderr: '', summary: '' };
  let failed = false;
  for (const [i, step] of action.runs.steps.entries()) {
    if (!runsIf(step.if, contexts, failed)) continue;
    const uses = step.uses as string | undefined;
    const label = uses ?? (step.id as string | undefined) ?? `run ${i}`;
    result.ran.push(label);
    const with_ = Object.fromEntries(Object.entries((step.with ?? {}) as Record<string, unknown>).map(([k, v]) => [k, substitute(v, contexts)]));
    if (uses?.startsWith('actions/setup-node@')) continue;
    if (uses?.startsWith('actions/upload-artifact@')) {
      const name = with_.name!;
      if (run.has(name) || name === '' || BAD_ARTIFACT_NAME.test(name)) {
        failed = true;
        result.code = 1;
        result.stderr += `upload-artifact: ${run.has(name) ? '(409) Conflict: an artifact with this name already exists on the workflow run' : 'invalid artifact name'}: ${name}\n`;
        continue;
      }
      run.add(name);
      result.uploads.push({ name, path: with_.path! });
      continue;
    }
    expect(step.shell, label).toBe('bash');
    const outputFile = join(job.temp, `output-${n}-${i}`);
    await writeFile(outputFile, '');
    const env = {
      ...job.env,
      ...Object.fromEntries(Object.entries((step.env ?? {}) as Record<string, unknown>).map(([k, v]) => [k, substitute(v, contexts)])),
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: job.workspace,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: job.temp,
      CHATPROBE_CMD,
    };
    const ran = await runBashStep(substitute(step.run, contexts), env, job.workspace, job.temp, n * 100 + i);
    result.stdout += ran.stdout;
    result.stderr += ran.stderr;
    if (step.id) (contexts.steps as Record<string, unknown>)[step.id as string] = { outputs: await readOutputs(outputFile) };
    if (ran.code !== 0) {
      failed = true;
      result.code = ran.code ?? 1;
    }
  }
  result.outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, substitute(v.value, contexts)]));
  result.summary = await readFile(summaryFile, 'utf8');
  return result;
}

const reportIn = async (job: Job, out: string) => JSON.parse(await readFile(join(job.workspace, out, 'report.json'), 'utf8'));

describe('the GitHub Action (action.yml, action/run.sh)', () => {
  it('runs the audit from its inputs, exposes the counts as outputs, writes the step summary, uploads the reports, and leaks no key', async () => {
    const job = await newJob();
    const run = await useAction(job, { 'base-url': server.url, 'api-key': KEY, models: 'ref-standard', probes: 'chat.*,parameters.max_tokens', out: 'reports' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs).toMatchObject({ 'exit-code': '0', reports: 'reports', failed: '0', errored: '0', regressions: '0', 'artifact-name': 'chatprobe-audit' });
    expect(Number(run.outputs.passed)).toBeGreaterThan(0);
    expect(run.uploads).toEqual([{ name: 'chatprobe-audit', path: 'reports' }]);
    expect((await reportIn(job, 'reports')).models.map((m: { id: string }) => m.id)).toEqual(['ref-standard']);
    expect(run.summary).toContain('ref-standard');
    for (const text of [run.stdout, run.stderr, run.summary, JSON.stringify(run.outputs)]) expect(text).not.toContain(KEY.slice(3, 15));
  });

  it('gives every upload a name of its own in a matrix of shards, beside a second use in the same job and another job, and names upload-artifact accepts', async () => {
    const workflowRun: WorkflowRun = new Set();
    const common = { 'base-url': server.url, 'api-key': KEY, probes: 'chat.basic' };
    const legs = await Promise.all(
      [1, 2, 3].map(async (shard) => {
        const job = await newJob('audit', { 'job-index': shard - 1, 'job-total': 3 });
        return useAction(job, { ...common, shard: `${shard}/3` }, workflowRun);
      }),
    );
    // Two endpoints audited in one job, then another job of the same workflow.
    const twice = await newJob('nightly');
    const first = await useAction(twice, { ...common, out: 'reports-a' }, workflowRun);
    const second = await useAction(twice, { ...common, out: 'reports-b' }, workflowRun);
    const other = await useAction(await newJob('smoke'), common, workflowRun);
    const runs = [...legs, first, second, other];
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const names = runs.map((r) => r.outputs['artifact-name']!);
    expect(names).toEqual(['chatprobe-audit-m1-shard-1-of-3', 'chatprobe-audit-m2-shard-2-of-3', 'chatprobe-audit-m3-shard-3-of-3', 'chatprobe-nightly', 'chatprobe-nightly-2', 'chatprobe-smoke']);
    expect(runs.map((r) => r.uploads[0]?.name)).toEqual(names);
    expect(first.uploads[0]!.path).toBe('reports-a');
    expect(second.uploads[0]!.path).toBe('reports-b');
    for (const name of names) expect(name).not.toMatch(BAD_ARTIFACT_NAME);
    // Six audits, three at once: 14 s alone on 2 cores.
  }, 60_000);

  it('passes every pipeline flag from its own input, each value one argument whatever it holds', async () => {
    const job = await newJob();
    await mkdir(join(job.workspace, 'ci'));
    await writeFile(join(job.workspace, 'audit.config.json'), JSON.stringify({ models: ['ref-lenient', 'ref-standard'], samples: 2 }));
    const run = await useAction(job, {
      'base-url': server.url,
      'api-key': KEY,
      config: 'audit.config.json',
      // Shell syntax in a value is data: nothing is run, no file appears.
      header: 'X-Route: blue $(touch pwned) `touch pwned2`\n\n  X-Tenant: "a b"; touch pwned3\n',
      timeout: '7',
      rpm: '6000',
      'max-duration': '120',
      concurrency: '2',
      shard: '2/2',
      'update-baseline': 'true',
      baseline: 'ci/chatprobe.baseline.json',
      // One argument a line: a flag and its value on two lines.
      args: '--probes\nchat.basic\n',
      out: 'out dir',
    });
    expect(run.code, run.stderr).toBe(0);
    const report = await reportIn(job, 'out dir');
    expect(report.target.headerNames).toEqual(['x-route', 'x-tenant']);
    expect(report.options).toMatchObject({ timeoutMs: 7000, concurrency: 2, samples: 2 });
    // The config's models, in the server's listing order.
    expect(report.shard).toMatchObject({ index: 2, count: 2, allModels: ['ref-standard', 'ref-lenient'] });
    expect(new Set(report.results.map((r: { probe: string }) => r.probe))).toContain('chat.basic');
    expect(report.results.every((r: { probe: string; model: string }) => r.probe === 'chat.basic' || r.model === '(endpoint)')).toBe(true);
    expect(existsSync(join(job.workspace, 'ci', 'chatprobe.baseline.json'))).toBe(true);
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(job.workspace, f))).toBe(false);
    // rpm and max-duration leave no trace in a report that ran well: a value chatprobe refuses shows they reach it.
    for (const [input, flag] of [['rpm', '--rpm'], ['max-duration', '--max-duration'], ['timeout', '--timeout']] as const) {
      const bad = await useAction(await newJob(), { 'base-url': server.url, 'api-key': KEY, [input]: 'soon' });
      expect(bad.code, input).toBe(2);
      expect(bad.stderr).toContain(`invalid ${flag}`);
    }
    // Four audits: 5 s alone on 2 cores, 13 s beside other suites.
  }, 60_000);

  it("runs the workspace's own probe files, one path a line, each one argument whatever it holds", async () => {
    const job = await newJob();
    await mkdir(join(job.workspace, 'my probes'));
    const ask = { messages: [{ role: 'user', content: 'Reply with the single word OK.' }], max_tokens: 16 };
    await writeFile(
      join(job.workspace, 'my probes', 'logprobs.probe.json'),
      JSON.stringify({ id: 'acme.logprobs', requirement: 'logprobs: true adds choices[0].logprobs.content.', request: { ...ask, logprobs: true }, control: ask, writtenBy: 'server', effect: [{ path: 'choices[0].logprobs.content', exists: true }] }),
    );
    await writeFile(
      join(job.workspace, 'acme.mjs'),
      "import { defineProbe, conformance } from 'chatprobe';\nexport default defineProbe({ id: 'acme.listed', area: 'acme', kind: 'conformance', scope: 'target', requirement: 'GET /models answered 200.', verdicts: ['pass', 'fail'], cost: { requests: 0, maxTokens: 0 }, run: async (ctx) => conformance([], 'HTTP ' + ctx.listing().status) });\n",
    );
    const run = await useAction(job, { 'base-url': server.url, 'api-key': KEY, models: 'ref-standard,ref-lenient', probes: 'acme.*', 'probe-file': '  my probes/logprobs.probe.json\n\nacme.mjs\n', out: 'reports' });
    expect(run.code, run.stderr).toBe(0);
    const report = await reportIn(job, 'reports');
    const cells = report.results.map((r: { model: string; probe: string; verdict: string }) => `${r.model} ${r.probe} ${r.verdict}`).sort();
    expect(cells).toEqual(['(endpoint) acme.listed pass', 'ref-lenient acme.logprobs ignored', 'ref-standard acme.logprobs honoured']);
    expect(run.summary).toContain('acme.logprobs');
    // A path is data: a line holding shell syntax names a file that is not there, and nothing runs.
    const oddJob = await newJob();
    const odd = await useAction(oddJob, { 'base-url': server.url, 'api-key': KEY, 'probe-file': 'acme.mjs; touch pwned\n' });
    expect(odd.code).toBe(2);
    expect(odd.stderr).toContain('cannot read probe file acme.mjs; touch pwned: no such file');
    expect(existsSync(join(oddJob.workspace, 'pwned'))).toBe(false);
  });

  it('takes the key from the job environment when the api-key input is empty, under OPENAI_API_KEY or the name api-key-env gives', async () => {
    const fromJob = await useAction(await newJob('audit', undefined, { OPENAI_API_KEY: KEY }), { 'base-url': server.url, probes: 'chat.basic' });
    expect(fromJob.code, fromJob.stderr).toBe(0);
    const named = await useAction(await newJob('audit', undefined, { STAGING_KEY: KEY }), { 'base-url': server.url, 'api-key-env': 'STAGING_KEY', probes: 'chat.basic' });
    expect(named.code, named.stderr).toBe(0);
    // The input goes into the named variable; the default one is left alone (a wrong key there is not read).
    const input = await useAction(await newJob('audit', undefined, { OPENAI_API_KEY: 'sk-wrong-wrong-wrong' }), { 'base-url': server.url, 'api-key': KEY, 'api-key-env': 'GATEWAY_KEY', probes: 'chat.basic' });
    expect(input.code, input.stderr).toBe(0);
    const none = await useAction(await newJob(), { 'base-url': server.url, probes: 'chat.basic' });
    expect(none.code).toBe(2);
    // Four audits: 8 s alone on 2 cores, 13 s beside other suites.
  }, 60_000);

  it('refuses inputs it cannot use before sending anything, and still fails the step', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'artifact-name': 'reports/audit' }, /artifact-name input may not hold/],
      [{ 'update-baseline': 'yes' }, /update-baseline input must be 'true' or 'false'/],
      [{ upload: 'no' }, /upload input must be 'true' or 'false'/],
      [{ 'api-key-env': 'MY KEY' }, /api-key-env input must be the name of an environment variable/],
    ];
    for (const [inputs, message] of cases) {
      const job = await newJob();
      const run = await useAction(job, { 'base-url': server.url, 'api-key': KEY, ...inputs });
      expect(run.code, JSON.stringify(inputs)).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.outputs['exit-code']).toBe('2');
      expect(existsSync(join(job.workspace, 'chatprobe-reports', 'report.json'))).toBe(false);
    }
    // One explicit name twice in a job: the second use is refused, not uploaded over the first.
    const job = await newJob();
    const named = { 'base-url': closed, 'api-key': KEY, 'artifact-name': 'staging' };
    const workflowRun: WorkflowRun = new Set();
    expect((await useAction(job, named, workflowRun)).uploads).toEqual([{ name: 'staging', path: 'chatprobe-reports' }]);
    const again = await useAction(job, named, workflowRun);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/artifact-name input is the name an earlier chatprobe step of this job uploaded under/);
    expect(again.uploads).toEqual([]);
    // Six runs of the action: 2.5 s alone on 2 cores, 4 s beside other suites.
  }, 45_000);

  it('exits as the audit does when it cannot test, and says why, with the reports still uploaded', async () => {
    const run = await useAction(await newJob(), { 'base-url': closed, 'api-key': KEY });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/could not reach the server/);
    expect(run.outputs['exit-code']).toBe('2');
    expect(run.uploads.map((u) => u.name)).toEqual(['chatprobe-audit']);
    const missing = await useAction(await newJob(), {});
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/base-url input is required/);
  });

  it('sets up Node only when asked to (setup-node: false leaves the job its own), and uploads only when asked to', async () => {
    const calls = { 'base-url': closed, 'api-key': KEY };
    expect((await useAction(await newJob(), calls)).ran).toEqual(['actions/setup-node@v4', 'audit', 'actions/upload-artifact@v4', 'run 3']);
    const own = await useAction(await newJob(), { ...calls, 'setup-node': 'false', upload: 'false' });
    expect(own.ran).toEqual(['audit', 'run 3']);
    expect(own.code).toBe(2);
  });

  it('keeps inputs out of its scripts, declares every input the script reads, and the outputs it writes', async () => {
    const action = await loadAction();
    const yml = await readFile(join(ROOT, 'action.yml'), 'utf8');
    const script = await readFile(join(ROOT, 'action', 'run.sh'), 'utf8');
    // An input expanded inside `run:` is pasted into the script before bash reads it: shell injection.
    for (const step of action.runs.steps) if (step.run !== undefined) expect(String(step.run)).not.toMatch(/\$\{\{/);
    for (const [, name] of script.matchAll(/INPUT_([A-Z_]+)/g)) {
      const input = name!.toLowerCase().replace(/_/g, '-');
      expect(Object.keys(action.inputs), input).toContain(input);
      expect(yml, input).toContain(`INPUT_${name}: \${{ inputs.${input} }}`);
    }
    for (const input of Object.keys(action.inputs)) expect(yml, `input ${input} is used`).toMatch(new RegExp(`inputs\\.${input}\\b`));
    for (const out of ['exit-code', 'passed', 'failed', 'skipped', 'errored', 'regressions', 'reports', 'artifact-name']) expect(action.outputs[out]?.value).toBe(`\${{ steps.audit.outputs.${out} }}`);
  });

  it('is a valid action to action-validator', async () => {
    const bin = join(ROOT, 'node_modules', '.bin', 'action-validator');
    // A devDependency (@action-validator/cli with its wasm in @action-validator/core): absent only where
    // the install was not `npm ci`, and then the test says so rather than pass.
    expect(existsSync(bin), 'node_modules/.bin/action-validator: run npm ci').toBe(true);
    const run = await runCommand(bin, [join(ROOT, 'action.yml')]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });
});
