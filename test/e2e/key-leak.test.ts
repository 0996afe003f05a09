import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { junitProblems } from '../helpers/junit.js';
import { PAGE_JS } from '../../src/report/writers/html-page.js';

// A key with characters that JSON and URLs escape, so every encoding of it is checked.
const KEY = 'sk-LEAKCHECK-9f8e7d6c5b4a/+="quoted"';

/** Every file of a folder as text (the run's record decompressed). */
async function scan(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = await readFile(join(dir, entry.name));
    files[entry.name] = (entry.name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  }
  return files;
}

describe('the API key never leaves the Authorization header', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    // This profile echoes the caller's token in answers, error messages and headers.
    server = await startReferenceServer({ profile: loadProfile('echo-key'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it.each([[[]], [['--json']]])('is in no output file, nor stdout or stderr (flags %j)', async (flags) => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, ...flags], { OPENAI_API_KEY: KEY });
    expect(run.code, run.stderr).toBe(0);
    const files = await scan(out);
    expect(Object.keys(files).sort()).toEqual(['exchanges.har', 'junit.xml', 'matrix.md', 'record.jsonl.gz', 'report.html', 'report.json', 'trace.jsonl']);
    const everything = { ...files, stdout: run.stdout, stderr: run.stderr };
    for (const [name, text] of Object.entries(everything)) {
      expect(text.includes(KEY), name).toBe(false);
      expect(text.includes(JSON.stringify(KEY).slice(1, -1)), name).toBe(false);
      expect(text.includes('LEAKCHECK'), name).toBe(false);
    }
    // The server did echo the key, so redaction had something to remove.
    expect(files['report.json']).toContain('[REDACTED]');
  });

  it('is in no baseline, step summary or annotation either', async () => {
    const out = await tempDir();
    const baseline = `${out}/baseline.json`;
    const summary = `${out}/summary.md`;
    const run = await runCli(['--base-url', server.url, '--out', `${out}/r`, '--baseline', baseline, '--update-baseline'], {
      OPENAI_API_KEY: KEY,
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(run.code, run.stderr).toBe(0);
    const texts = { ...(await scan(out)), ...(await scan(`${out}/r`)), stdout: run.stdout, stderr: run.stderr };
    expect(Object.keys(texts)).toEqual(expect.arrayContaining(['baseline.json', 'summary.md']));
    for (const [name, text] of Object.entries(texts)) expect(text.includes('LEAKCHECK'), name).toBe(false);
  });

  it('is not printed when the key is wrong', async () => {
    const out = await tempDir();
    const wrong = 'sk-WRONGKEY-abcdef0123456789';
    const run = await runCli(['--base-url', server.url, '--out', out], { OPENAI_API_KEY: wrong });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('401');
    expect(run.stdout + run.stderr).not.toContain('WRONGKEY');
  });
});

describe('a key that is short or a word of the reports', () => {
  it.each(['function', 'testcase', 'script', 'x', 'new'])('%j: said up front, every file still whole, the key not where it stands as a credential', async (key) => {
    const server = await startReferenceServer({ profile: loadProfile('echo-key'), apiKey: key });
    try {
      const out = await tempDir();
      const run = await runCli(['--base-url', server.url, '--out', out, '--probes', 'chat.*,auth.*'], { OPENAI_API_KEY: key });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^warning: \$OPENAI_API_KEY (has fewer than 8 characters|is made of words chatprobe's own reports use).*removed only where it stands whole as a credential/m);
      const files = await scan(out);
      // Every file parses as what it is: no element, field or line of script was cut for the key.
      expect(await junitProblems(files['junit.xml']!)).toEqual([]);
      expect(JSON.parse(files['report.json']!).results.length).toBeGreaterThan(0);
      for (const line of files['exchanges.har']!.split('\n')) if (line.startsWith('{"startedDateTime"')) JSON.parse(line.replace(/,$/, ''));
      expect(files['report.html']).toContain(PAGE_JS);
      for (const [name, text] of Object.entries({ ...files, stdout: run.stdout, stderr: run.stderr })) {
        expect(new RegExp(`Bearer ${key}\\b`, 'i').test(text), name).toBe(false);
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});
