import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Boundary } from '../../src/boundary/boundary.js';
import { gate } from '../../src/report/gate.js';
import { reportJsonSchema, REPORT_SCHEMA_URL } from '../../src/report/schema.js';
import { renderJson } from '../../src/report/writers/json.js';
import { ROOT } from '../helpers/cli.js';
import { auditFlagTable } from '../../src/cli/flags.js';
import { AuditFlags } from '../../src/config/options.js';
import { PROFILE_NAMES } from '../../src/reference/profile-names.js';
import { sampleReport } from '../helpers/report.js';
import { schemaProblems } from '../helpers/report-schema.js';

describe('report.json schema', () => {
  it('is shipped as generated from the zod model (run npm run schema after changing the model)', () => {
    const shipped = JSON.parse(readFileSync(`${ROOT}schema/report.schema.json`, 'utf8'));
    expect(shipped).toEqual(reportJsonSchema());
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schema');
  });

  it('validates a judged report as written, which names it and carries the summary a CI script reads', () => {
    const written = JSON.parse(renderJson(gate(new Boundary().report(sampleReport()), { schemaVersion: 1, cells: { 'gpt-4.1|mini': { 'chat.basic': 'pass' } } }, { path: 'b.json', updated: false })));
    expect(written.$schema).toBe(REPORT_SCHEMA_URL);
    expect(written.summary).toEqual({
      outcomes: { passed: 0, failed: 2, skipped: 1, errored: 1 },
      verdicts: { fail: 1, inconclusive: 1, error: 2 },
      // The harness error (our own bug) is not compared: it says nothing of the endpoint.
      comparisons: { expected: 0, regression: 1, improvement: 0, new: 2, missing: 0 },
      regressions: 1,
      notRun: 0,
      exitCode: 1,
    });
    expect(schemaProblems(written)).toEqual([]);
    expect(schemaProblems({ ...written, results: [{ ...written.results[0], verdict: 'great' }] })).not.toEqual([]);
  });
});

describe('what --help reads without loading the models', () => {
  it('the flag table is generated from the options schema (run npm run schema after changing the flags)', () => {
    const shipped = JSON.parse(readFileSync(`${ROOT}src/cli/audit-flags.json`, 'utf8'));
    expect(shipped).toEqual(auditFlagTable(AuditFlags));
    expect(shipped.map((r: { key: string }) => r.key)).toEqual(Object.keys(AuditFlags.shape));
  });

  it('the profile names are the bundled profiles', async () => {
    const { loadProfile } = await import('../../src/reference/profiles.js');
    for (const name of PROFILE_NAMES) expect(loadProfile(name).models.length, name).toBeGreaterThan(0);
    expect(() => loadProfile('constructor')).toThrow(/unknown profile "constructor"/);
  });
});
