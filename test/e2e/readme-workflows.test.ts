import { existsSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { ROOT, runCli, runCommand, type CliRun } from '../helpers/cli.js';
import { loadAction, runsIf, substitute, type Contexts } from './support/github-runner.js';
import { workspaceDir } from './support/workspace.js';

/**
 * The CI workflows the README shows, taken from it: each is checked (action-validator, pinned actions,
 * flags and action inputs that exist), and the sharded GitHub workflow is run as written against the
 * reference server standing in for staging, so that its merged exit code is the one a single run gives.
 */
const KEY = 'sk-readme-Qm4Tz8Wp2Lx6';
type Yaml = Record<string, unknown>;
type Step = Record<string, unknown> & { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown>; if?: unknown };
type Job = { 'runs-on'?: string; needs?: string | string[]; if?: unknown; strategy?: { 'fail-fast'?: boolean; matrix?: Record<string, unknown> }; steps?: Step[]; script?: string[] };

async function readmeYaml(): Promise<{ text: string; yaml: Yaml }[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].map((m) => ({ text: m[1]!, yaml: parse(m[1]!) as Yaml }));
}
const isGitHubWorkflow = (y: Yaml) => typeof y.jobs === 'object';
const jobsOf = (y: Yaml) => Object.entries(y.jobs as Record<string, Job>);

/** The arguments of a command line as bash splits it, with `env` for its variables; globs expand in `cwd`. */
async function shellWords(line: string, env: Record<string, string> = {}, cwd = ROOT): Promise<string[]> {
  const run = await runCommand('bash', ['-c', 'eval "set -- $LINE"; printf "%s\\0" "$@"'], { ...env, LINE: line }, cwd);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.split('\0').slice(0, -1);
}

/** The chatprobe arguments of a `npx chatprobe@VERSION …` line, or undefined for another command. */
async function chatprobeArgs(line: string, env?: Record<string, string>, cwd?: string): Promise<string[] | undefined> {
  const words = await shellWords(line, env, cwd);
  return /^chatprobe@\d+\.\d+\.\d+$/.test(words[1] ?? '') && words[0] === 'npx' ? words.slice(2) : undefined;
}

/** The flags `--help` lists for a command. */
async function flagsOf(command: string[]): Promise<Set<string>> {
  const help = await runCli([...command, '--help']);
  expect(help.code, help.stderr).toBe(0);
  return new Set([...help.stdout.matchAll(/^\s+(?:-\w, )?(--[a-z][\w-]*)/gm)].map((m) => m[1]!));
}

let server: ReferenceServer;
beforeAll(async () => {
  // A gateway of three models with MUST failures of its own: what a baseline records as expected.
  server = await startReferenceServer({ profile: loadProfile('new-api'), apiKey: KEY });
});
afterAll(() => server.close());

describe("the README's CI workflows", () => {
  it('are there: the sharded workflow, the Action, GitLab', async () => {
    const blocks = await readmeYaml();
    const github = blocks.filter((b) => isGitHubWorkflow(b.yaml));
    expect(github.some((b) => b.text.includes('npx chatprobe@') && b.text.includes('matrix'))).toBe(true);
    expect(github.some((b) => /uses: \S+\/chatprobe@/.test(b.text))).toBe(true);
    expect(blocks.some((b) => !isGitHubWorkflow(b.yaml) && b.text.includes('script:'))).toBe(true);
  });

  it('are valid workflows to action-validator', async () => {
    const bin = join(ROOT, 'node_modules', '.bin', 'action-validator');
    // A devDependency (@action-validator/cli with its wasm in @action-validator/core): absent only where
    // the install was not `npm ci`, and then the test says so rather than pass.
    expect(existsSync(bin), 'node_modules/.bin/action-validator: run npm ci').toBe(true);
    const dir = await workspaceDir('validate');
    for (const [i, block] of (await readmeYaml()).filter((b) => isGitHubWorkflow(b.yaml)).entries()) {
      const file = join(dir, `workflow-${i + 1}.yml`);
      await writeFile(file, block.text);
      const run = await runCommand(bin, [file]);
      expect(run.code, `${block.text}\n${run.stdout}${run.stderr}`).toBe(0);
    }
  });

  it('pin every action to a version, give the chatprobe action only inputs it declares, and use only flags chatprobe has', async () => {
    const flags = { audit: await flagsOf([]), merge: await flagsOf(['merge']) };
    const inputs = (await loadAction()).inputs;
    const lines: string[] = [];
    for (const { yaml } of await readmeYaml()) {
      for (const [name, job] of isGitHubWorkflow(yaml) ? jobsOf(yaml) : Object.entries(yaml as Record<string, Job>)) {
        for (const step of job.steps ?? []) {
          if (step.uses !== undefined) expect(step.uses, `${name}: ${step.uses}`).toMatch(/^[^@\s]+@v\d+(\.\d+){0,2}$/);
          if (step.uses?.includes('/chatprobe@')) {
            for (const key of Object.keys(step.with ?? {})) expect(Object.keys(inputs), `${name}: with ${key}`).toContain(key);
            for (const [key, input] of Object.entries(inputs)) if (input.required) expect(Object.keys(step.with ?? {}), `${name}: required ${key}`).toContain(key);
          }
          if (step.run !== undefined) lines.push(step.run);
        }
        lines.push(...(job.script ?? []));
      }
    }
    const used = (await Promise.all(lines.map((l) => chatprobeArgs(l.replace(/\$\{\{.*?\}\}/g, '1'))))).filter((a) => a !== undefined);
    expect(used.length).toBeGreaterThanOrEqual(3);
    for (const args of used) {
      const known = args[0] === 'merge' ? flags.merge : flags.audit;
      for (const arg of args.filter((a) => a.startsWith('--'))) {
        const flag = arg.split('=')[0]!;
        expect(known.has(flag) || known.has(flag.replace(/^--no-/, '--')), `${args.join(' ')}: ${flag}`).toBe(true);
      }
    }
  });

  it('GitLab: the junit report is the file the audit writes', async () => {
    const gitlab = (await readmeYaml()).find((b) => !isGitHubWorkflow(b.yaml) && b.text.includes('script:'))!.yaml as Record<string, Job & { artifacts?: { reports?: { junit?: string }; paths?: string[] } }>;
    for (const job of Object.values(gitlab)) {
      const args = (await chatprobeArgs(job.script!.find((l) => l.includes('chatprobe'))!))!;
      const out = args.includes('--out') ? args[args.indexOf('--out') + 1]! : 'reports';
      expect(job.artifacts?.reports?.junit).toBe(`${out}/junit.xml`);
      expect(job.artifacts?.paths).toContain(`${out}/`);
    }
  });
});

/**
 * A workflow run, locally: jobs in the order `needs` gives, matrix legs one after another (with
 * fail-fast, the default, a failed leg cancels the legs not yet done, as GitHub may), each leg in a fresh
 * workspace. checkout copies the repository, setup-node stands as it is (this is Node 20), upload- and
 * download-artifact@v4 keep artifacts by name (a second upload of a name fails: 409 Conflict), and a
 * `npx chatprobe@…` step runs chatprobe with the step's environment.
 */
interface LegResult {
  job: string;
  matrix: Record<string, unknown>;
  conclusion: 'success' | 'failure' | 'cancelled' | 'skipped';
  /** Each chatprobe step's run, in order. */
  chatprobe: CliRun[];
  workspace?: string;
}

async function runWorkflow(workflow: Yaml, repository: string, contexts: Contexts): Promise<LegResult[]> {
  const artifacts = new Map<string, string>();
  const store = await workspaceDir('artifacts');
  const results: LegResult[] = [];
  const jobs = jobsOf(workflow);
  const done = new Set<string>();
  while (done.size < jobs.length) {
    const ready = jobs.find(([id, job]) => !done.has(id) && [job.needs ?? []].flat().every((n) => done.has(n)));
    expect(ready, 'a job whose needs can be met').toBeDefined();
    const [id, job] = ready!;
    done.add(id);
    const needs = [job.needs ?? []].flat();
    const needsFailed = results.some((r) => needs.includes(r.job) && r.conclusion !== 'success');
    if (!runsIf(job.if, { ...contexts, github: { job: id } }, needsFailed)) {
      results.push({ job: id, matrix: {}, conclusion: 'skipped', chatprobe: [] });
      continue;
    }
    const matrix = job.strategy?.matrix ?? {};
    expect(Object.keys(matrix).filter((k) => k === 'include' || k === 'exclude'), 'matrix include/exclude is not emulated').toEqual([]);
    let legs: Record<string, unknown>[] = [{}];
    for (const [key, values] of Object.entries(matrix)) legs = legs.flatMap((leg) => (values as unknown[]).map((v) => ({ ...leg, [key]: v })));
    const failFast = job.strategy?.['fail-fast'] !== false;
    let legFailed = false;
    for (const [index, leg] of legs.entries()) {
      if (legFailed && failFast) {
        results.push({ job: id, matrix: leg, conclusion: 'cancelled', chatprobe: [] });
        continue;
      }
      const workspace = await workspaceDir('job');
      const ctx: Contexts = { ...contexts, matrix: leg, github: { job: id, workspace }, strategy: { 'job-index': index, 'job-total': legs.length } };
      const result: LegResult = { job: id, matrix: leg, conclusion: 'success', chatprobe: [], workspace };
      let failed = false;
      for (const step of job.steps ?? []) {
        if (!runsIf(step.if, ctx, failed)) continue;
        const with_ = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(v, ctx)]));
        const uses = step.uses?.replace(/@.*/, '');
        if (uses === 'actions/checkout') {
          await cp(repository, workspace, { recursive: true });
        } else if (uses === 'actions/setup-node') {
          expect(Number(with_['node-version'])).toBeGreaterThanOrEqual(20);
        } else if (uses === 'actions/upload-artifact') {
          const name = with_.name!;
          if (artifacts.has(name) || !existsSync(join(workspace, with_.path!))) {
            failed = true; // 409 Conflict, or nothing to upload where a report was expected
            continue;
          }
          const kept = join(store, name);
          await cp(join(workspace, with_.path!), kept, { recursive: true });
          artifacts.set(name, kept);
        } else if (uses === 'actions/download-artifact') {
          const pattern = new RegExp(`^${(with_.pattern ?? with_.name ?? '*').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
          const into = join(workspace, with_.path ?? '');
          for (const [name, kept] of artifacts) {
            if (!pattern.test(name)) continue;
            // v4: one artifact by name lands in `path` itself; several, each in a folder of its name.
            await cp(kept, with_.name !== undefined || with_['merge-multiple'] === 'true' ? into : join(into, name), { recursive: true });
          }
        } else if (step.run !== undefined) {
          const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(v, ctx)]));
          const args = await chatprobeArgs(substitute(step.run, ctx), env, workspace);
          expect(args, `a step this emulation runs: ${step.run}`).toBeDefined();
          const run = await runCli(args!, env, workspace);
          result.chatprobe.push(run);
          if (run.code !== 0) failed = true;
        } else {
          throw new Error(`step not emulated: ${JSON.stringify(step)}`);
        }
      }
      if (failed) {
        result.conclusion = 'failure';
        legFailed = true;
      }
      results.push(result);
    }
  }
  return results;
}

describe("the README's sharded GitHub workflow, run as written", () => {
  it('exits as a single run does: 0 with no regression, 1 when the baseline expects what the server no longer does', async () => {
    const workflow = (await readmeYaml()).find((b) => isGitHubWorkflow(b.yaml) && b.text.includes('npx chatprobe@') && b.text.includes('matrix'))!.yaml;
    // The repository the workflow checks out: the committed baseline, and a config that keeps the audit short.
    const repository = await workspaceDir('repository');
    await writeFile(join(repository, 'chatprobe.config.json'), JSON.stringify({ probes: ['errors.*', 'chat.basic', 'parameters.max_tokens'] }));
    const env = { OPENAI_API_KEY: KEY };
    const made = await runCli(['--base-url', server.url, '--update-baseline', '--baseline', 'chatprobe.baseline.json', '--quiet'], env, repository);
    expect(made.code, made.stderr).toBe(0);
    const contexts = { vars: { STAGING_URL: server.url }, secrets: { STAGING_KEY: KEY } };
    const single = () => runCli(['--base-url', server.url, '--baseline', 'chatprobe.baseline.json', '--quiet'], env, repository);
    const merged = (results: LegResult[]) => results.find((r) => r.job === 'report')!.chatprobe.map((r) => r.code);

    const alone = await single();
    expect(alone.code, alone.stderr).toBe(0);
    const green = await runWorkflow(workflow, repository, contexts);
    expect(green.filter((r) => r.job === 'audit').map((r) => [r.conclusion, r.chatprobe.map((c) => c.code)])).toEqual([
      ['success', [0]],
      ['success', [0]],
      ['success', [0]],
    ]);
    const greenReport = green.find((r) => r.job === 'report')!;
    expect(merged(green), greenReport.chatprobe.map((r) => r.stderr).join('\n')).toEqual([0]);
    expect(greenReport.conclusion).toBe('success');

    // The server fails this MUST; the baseline now says it passes: a regression in one shard.
    const file = join(repository, 'chatprobe.baseline.json');
    const baseline = JSON.parse(await readFile(file, 'utf8'));
    expect(baseline.cells['gpt-4o-mini']['errors.missing_messages']).toBe('fail');
    baseline.cells['gpt-4o-mini']['errors.missing_messages'] = 'pass';
    await writeFile(file, JSON.stringify(baseline));
    const regressed = await single();
    expect(regressed.code, regressed.stderr).toBe(1);
    const red = await runWorkflow(workflow, repository, contexts);
    expect(red.filter((r) => r.job === 'audit').map((r) => r.chatprobe[0]?.code).sort()).toEqual([0, 0, 1]);
    expect(merged(red), red.find((r) => r.job === 'report')!.chatprobe.map((r) => r.stderr).join('\n')).toEqual([1]);
    // The merged reports are the run's: every model of the plan, once.
    const report = JSON.parse(await readFile(join(red.find((r) => r.job === 'report')!.workspace!, 'reports', 'report.json'), 'utf8'));
    expect(report.models.map((m: { id: string }) => m.id).sort()).toEqual(['claude-3-5-haiku', 'gpt-4o-mini', 'qwen-max']);
    // Eleven chatprobe runs: 17 s alone on 2 cores.
  }, 120_000);
});
