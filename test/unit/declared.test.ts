import { describe, expect, it } from 'vitest';
import { compareDeclared, declarationsOf, declaredFinding } from '../../src/results/declared.js';
import { renderMatrix } from '../../src/report/writers/markdown.js';
import { sampleReport } from '../helpers/report.js';

const openrouter = declarationsOf({ supported_parameters: ['max_tokens', 'temperature', 'tools', 'tool_choice', 'structured_outputs'] });

describe('declared against observed', () => {
  it('warns on a parameter declared supported and observed ignored or rejected', () => {
    expect(declaredFinding('parameters.tools', 'ignored', openrouter)).toMatchObject({ severity: 'warn', code: 'declared_not_observed', message: expect.stringContaining('declares tools (supported_parameters), and it was ignored') });
    expect(declaredFinding('parameters.temperature', 'rejected', openrouter)?.code).toBe('declared_not_observed');
    expect(declaredFinding('parameters.tool_choice.named', 'ignored', openrouter)?.code).toBe('declared_not_observed');
  });

  it('notes a feature honoured that the declaration list leaves out', () => {
    expect(declaredFinding('parameters.seed', 'honoured', openrouter)).toMatchObject({ severity: 'info', code: 'observed_not_declared' });
  });

  it('claims nothing from inconclusive or accepted cells, nor where no list speaks of the feature', () => {
    expect(declaredFinding('parameters.tools', 'inconclusive', openrouter)).toBeUndefined();
    expect(declaredFinding('parameters.seed', 'ignored', openrouter)).toBeUndefined();
    expect(declaredFinding('parameters.user', 'accepted', openrouter)).toBeUndefined();
    expect(declaredFinding('roles.image', 'ignored', openrouter)).toBeUndefined();
    expect(declaredFinding('parameters.tools', 'ignored', declarationsOf(undefined))).toBeUndefined();
  });

  it('reads capabilities as a list or as flags, and input modalities', () => {
    expect(declaredFinding('roles.image', 'ignored', declarationsOf({ capabilities: ['completion', 'vision'] }))?.code).toBe('declared_not_observed');
    expect(declaredFinding('roles.image', 'rejected', declarationsOf({ capabilities: { vision: true, tools: false } }))?.code).toBe('declared_not_observed');
    expect(declaredFinding('roles.image', 'rejected', declarationsOf({ architecture: { input_modalities: ['text', 'image'] } }))?.message).toContain('architecture.input_modalities');
    expect(declaredFinding('roles.image', 'rejected', declarationsOf({ architecture: { input_modalities: ['text'] } }))).toBeUndefined();
  });

  it('adds the findings to the cells, and the matrix lists them', () => {
    const report = sampleReport();
    report.models[0]!.declared = { supported_parameters: ['max_tokens'] };
    report.results[1] = { ...report.results[1]!, verdict: 'ignored' };
    report.results = compareDeclared(report.models, report.results);
    expect(report.results[1]!.findings.map((f) => f.code)).toEqual(['declared_not_observed']);
    expect(renderMatrix(report)).toContain('## Declared against observed');
  });
});
