import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * chatprobe used as a library, from a project of its own outside the repository: the package is linked
 * into its node_modules as npm would install it, so `import … from 'chatprobe'` goes through the
 * package's own entry (package.json "exports": the built dist/index.mjs), nothing from src/. The
 * project's probe is written with the package's defineProbe and runs beside chatprobe's own.
 */

const PROBE = `
import { defineProbe, conformance, fail, unjudgeable, readChoices } from 'chatprobe';

// A user's own check: the model answers a plain greeting with some text, within 16 tokens.
export default defineProbe({
  id: 'chat.greets_back',
  area: 'chat',
  kind: 'conformance',
  requirement: 'A greeting gets an answer with some text in choices[0].message.content.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: 16 },
  async run(ctx) {
    const x = await ctx.chat({ messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16 });
    const unusable = unjudgeable(x, 'an answer to a greeting');
    if (unusable) return unusable;
    const text = readChoices(x.json)[0]?.content ?? '';
    return conformance(text ? [] : [fail('no_greeting', 'expected some text back, got none')], 'greeted back: ' + JSON.stringify(text.slice(0, 40)));
  },
});
`;

const MAIN = `
import { audit, judgeRecord, readRecorded, resolveOptions, startReferenceServer, loadProfile, PROBES, EXIT } from 'chatprobe';
import greets from './greets-back.mjs';

const key = 'sk-library-' + 'f'.repeat(32);
const server = await startReferenceServer({ profile: loadProfile('default'), apiKey: key });
try {
  const options = resolveOptions({ baseUrl: server.url, out: process.argv[2], probes: ['chat.*'] }, { OPENAI_API_KEY: key });
  const probes = [...PROBES, greets];
  const seen = [];
  const run = await audit(options, { result: (cell) => seen.push(cell.model + ' ' + cell.probe) }, { probes });
  const again = await judgeRecord(await readRecorded(process.argv[2]), {}, {}, { probes });
  console.log(JSON.stringify({
    exitCode: run.exitCode,
    ok: run.exitCode === EXIT.ok,
    seen,
    cells: run.report.results.map((r) => ({ model: r.model, probe: r.probe, verdict: r.verdict, observed: r.observed })),
    probes: run.report.probes.map((p) => p.id),
    written: run.written.written.map((f) => f.split('/').pop()),
    diffs: again.diffs,
    againExit: again.exitCode,
  }));
} finally {
  await server.close();
}
`;

describe('the library, through the package entry', () => {
  it('runs an audit with a probe written outside the repository, writes the reports, and judges the run again from its record', async () => {
    const project = await tempDir('chatprobe-user-');
    await mkdir(join(project, 'node_modules'), { recursive: true });
    await symlink(ROOT, join(project, 'node_modules', 'chatprobe'), 'dir');
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module', private: true }));
    await writeFile(join(project, 'greets-back.mjs'), PROBE);
    await writeFile(join(project, 'main.mjs'), MAIN);
    const out = join(project, 'reports');
    const run = await runCommand(process.execPath, [join(project, 'main.mjs'), out], {}, project);
    expect(run.code, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout) as {
      exitCode: number;
      ok: boolean;
      seen: string[];
      cells: { model: string; probe: string; verdict: string; observed: string }[];
      probes: string[];
      written: string[];
      diffs: unknown[];
      againExit: number;
    };
    expect(r.exitCode).toBe(0);
    expect(r.ok).toBe(true);
    // The user's probe ran on every model, beside chatprobe's own chat probes, and no other area ran.
    expect(r.probes).toContain('chat.greets_back');
    expect(r.probes.every((id) => id.startsWith('chat.'))).toBe(true);
    const greeted = r.cells.filter((c) => c.probe === 'chat.greets_back');
    expect(greeted.length).toBeGreaterThan(0);
    for (const c of greeted) {
      expect(c.verdict, c.observed).toBe('pass');
      expect(c.observed).toMatch(/^greeted back: "/);
    }
    // Progress came through the sink, cell by cell, as the report has them.
    expect(r.seen).toEqual(expect.arrayContaining(greeted.map((c) => `${c.model} chat.greets_back`)));
    expect(r.written).toEqual(expect.arrayContaining(['report.json', 'junit.xml', 'matrix.md', 'exchanges.har', 'record.jsonl.gz']));
    // The record holds every input the user's probe read: judged again offline, every cell comes out the same.
    expect(r.diffs).toEqual([]);
    expect(r.againExit).toBe(0);
    const matrix = await readFile(join(out, 'matrix.md'), 'utf8');
    expect(matrix).toContain('chat.greets_back');
    // The key went nowhere but the Authorization header.
    for (const dir of [out, join(out, 'judged')]) {
      for (const f of await readdir(dir)) {
        if (f.endsWith('.gz') || f === 'judged') continue;
        expect(await readFile(join(dir, f), 'utf8'), f).not.toContain('f'.repeat(32));
      }
    }
  }, 120_000);
});
