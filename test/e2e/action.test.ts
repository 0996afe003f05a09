import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { ROOT, runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The GitHub Action's script part (action/run.sh), run here as the composite action runs it: inputs in
 * INPUT_* variables, outputs appended to $GITHUB_OUTPUT, the exit code the audit's.
 */
const KEY = 'sk-action-Zt8qWm2Vx5Lp';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
});
afterAll(() => server.close());

function runAction(inputs: Record<string, string>, cwd: string) {
  return runCommand(
    'bash',
    [join(ROOT, 'action', 'run.sh')],
    {
      OPENAI_API_KEY: KEY,
      // From source, as the action's own build would run it.
      CHATPROBE_CMD: `${process.execPath} --import ${join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')} ${join(ROOT, 'src', 'cli', 'main.ts')}`,
      ...inputs,
    },
    cwd,
  );
}

const outputsOf = async (file: string) => Object.fromEntries((await readFile(file, 'utf8')).trim().split('\n').map((l) => l.split('=', 2) as [string, string]));

describe('the GitHub Action (action.yml, action/run.sh)', () => {
  it('runs the audit from its inputs, exposes the counts as outputs, uploads a reports folder, and leaks no key', async () => {
    const dir = await tempDir();
    const output = join(dir, 'github_output');
    await writeFile(output, '');
    const run = await runAction(
      { INPUT_BASE_URL: server.url, INPUT_MODELS: 'ref-standard', INPUT_PROBES: 'chat.*,parameters.max_tokens', INPUT_OUT: 'reports', GITHUB_OUTPUT: output },
      dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const outputs = await outputsOf(output);
    expect(outputs).toMatchObject({ 'exit-code': '0', reports: 'reports', failed: '0', errored: '0', regressions: '0' });
    expect(Number(outputs.passed)).toBeGreaterThan(0);
    const report = JSON.parse(await readFile(join(dir, 'reports', 'report.json'), 'utf8'));
    expect(report.models.map((m: { id: string }) => m.id)).toEqual(['ref-standard']);
    for (const text of [run.stdout, run.stderr, await readFile(output, 'utf8')]) expect(text).not.toContain(KEY.slice(3, 15));
  });

  it('exits as the audit does when it cannot test, and says why', async () => {
    const dir = await tempDir();
    const output = join(dir, 'github_output');
    await writeFile(output, '');
    const run = await runAction({ INPUT_BASE_URL: 'http://127.0.0.1:1/v1', GITHUB_OUTPUT: output }, dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/could not reach the server/);
    expect(await outputsOf(output)).toMatchObject({ 'exit-code': '2' });
    const missing = await runAction({ GITHUB_OUTPUT: output }, dir);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/base-url input is required/);
  });

  it('declares every input the script reads, and the outputs it writes', async () => {
    const yml = await readFile(join(ROOT, 'action.yml'), 'utf8');
    const script = await readFile(join(ROOT, 'action', 'run.sh'), 'utf8');
    for (const [, name] of script.matchAll(/INPUT_([A-Z_]+)/g)) {
      const input = name!.toLowerCase().replace(/_/g, '-');
      expect(yml, input).toMatch(new RegExp(`^  ${input}:`, 'm'));
      expect(yml, input).toContain(`INPUT_${name}: \${{ inputs.${input} }}`);
    }
    for (const out of ['exit-code', 'passed', 'failed', 'skipped', 'errored', 'regressions']) expect(yml).toContain(`steps.audit.outputs.${out} }}`);
    expect(yml).toContain('OPENAI_API_KEY: ${{ inputs.api-key }}');
  });
});
