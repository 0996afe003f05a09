import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { ENDPOINT, Report } from '../../src/results/model.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { parseReport } from '../helpers/report-schema.js';

async function audit(server: ReferenceServer, args: string[]): Promise<Report> {
  const out = await tempDir();
  await runCli(['--base-url', server.url, '--out', out, ...args]);
  return parseReport(await readFile(join(out, 'report.json'), 'utf8'));
}

const verdictOf = (r: Report, model: string, probe: string) => r.results.find((x) => x.model === model && x.probe === probe)?.verdict;

describe('--strict and --require-auth', () => {
  // llama.cpp-like: no auth, no refusal/logprobs fields, no `created` in /models.
  let server: ReferenceServer;
  const model = 'models/qwen2.5-0.5b-instruct-q4_k_m.gguf';
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('llama-cpp') });
  });
  afterAll(() => server.close());

  it('warn by default', async () => {
    const r = await audit(server, ['--probes', 'chat.schema', 'models.list', 'auth.missing_key']);
    expect(verdictOf(r, model, 'chat.schema')).toBe('warn');
    expect(verdictOf(r, ENDPOINT, 'models.list')).toBe('warn');
    expect(verdictOf(r, ENDPOINT, 'auth.missing_key')).toBe('warn');
  });

  it('fail strict-tier deviations with --strict, and an open endpoint with --require-auth', async () => {
    const r = await audit(server, ['--probes', 'chat.schema', 'models.list', 'auth.missing_key', '--strict', '--require-auth']);
    expect(verdictOf(r, model, 'chat.schema')).toBe('fail');
    expect(r.results.find((x) => x.probe === 'chat.schema')?.observed).toContain('refusal');
    expect(verdictOf(r, ENDPOINT, 'models.list')).toBe('fail');
    expect(verdictOf(r, ENDPOINT, 'auth.missing_key')).toBe('fail');
    expect(r.options).toMatchObject({ strict: true, requireAuth: true });
  });
});
