import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/report/writers/junit.js';
import { escapeText, renderMatrix } from '../../src/report/writers/markdown.js';
import { painter, renderConsole } from '../../src/report/writers/console.js';
import { summarise } from '../../src/report/summary.js';
import { sampleReport } from '../helpers/report.js';

describe('junit.xml', () => {
  const xml = renderJunit(sampleReport());
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml);

  it('is well-formed XML whatever the server wrote', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
  });

  it('has one suite per model, classname = model id with dots replaced, name = probe id', () => {
    const suites = doc.testsuites.testsuite;
    expect(suites.map((s: { name: string }) => s.name)).toEqual(['gpt-4.1|mini', 'org/llama-3.1']);
    const cases = suites[0].testcase;
    expect(cases.map((c: { classname: string; name: string }) => [c.classname, c.name])).toEqual([
      ['gpt-4_1|mini', 'chat.basic'],
      ['gpt-4_1|mini', 'parameters.max_tokens'],
    ]);
  });

  it('marks failures, skips and our own errors as DESIGN.md says, verdicts in properties', () => {
    const [first, second] = doc.testsuites.testsuite;
    const [fail, skipped] = first.testcase;
    expect(fail.failure.type).toBe('regression');
    expect(fail.failure.message).toContain('eos');
    expect(fail.properties.property).toContainEqual({ name: 'verdict', value: 'fail' });
    expect(fail['system-out']).toContain(']] >');
    expect(skipped.skipped).toBeDefined();
    const [upstream, harness] = second.testcase;
    expect(upstream.failure.type).toBe('regression');
    expect(harness.error.type).toBe('harness');
    expect(doc.testsuites).toMatchObject({ tests: '4', failures: '2', errors: '1', skipped: '1' });
  });
});

describe('matrix.md', () => {
  const md = renderMatrix(sampleReport());

  it('keeps server text inside its table cell', () => {
    expect(escapeText('a|b\nc<d')).toBe('a\\|b\\\\nc\\<d');
    const header = md.split('\n').find((l) => l.startsWith('| probe |'))!;
    // probe, kind, and one column per model: the pipe in the model id is escaped.
    expect(header.split(/(?<!\\)\|/).length - 2).toBe(4);
    const cells = (line: string) => line.split(/(?<!\\)\|/).length - 2;
    const section = (title: string) => md.split(`## ${title}`)[1]!.split('\n## ')[0]!.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| model'));
    // Matrix rows: probe, kind and two models; model-fact rows: seven columns.
    expect(section('Model facts')).toHaveLength(2);
    for (const line of section('Model facts')) expect(cells(line), line).toBe(7);
    for (const line of md.split('## Model facts')[0]!.split('\n').filter((l) => l.startsWith('| `'))) expect(cells(line), line).toBe(4);
  });

  it('shows each cell, findings with their evidence, and the summary counts', () => {
    expect(md).toContain('| `chat.basic` | conformance | ❌ fail | 💥 error: upstream |');
    expect(md).toContain('evidence: c2 in trace.jsonl');
    expect(md).toContain('Results: 0 passed, 2 failed, 1 skipped, 1 errored.');
    expect(md).not.toContain('<html>');
  });
});

describe('console', () => {
  it('prints no escape codes without a TTY, and colour with one unless NO_COLOR', () => {
    const plain = renderConsole(sampleReport(), painter(false, {}));
    expect(plain).not.toMatch(/\x1b\[/);
    expect(plain).toContain('error: upstream');
    expect(renderConsole(sampleReport(), painter(true, { NO_COLOR: '1' }))).not.toMatch(/\x1b\[/);
    expect(renderConsole(sampleReport(), painter(true, {}))).toMatch(/\x1b\[31m/);
  });

  it('summarises to exit code 1 when anything failed', () => {
    expect(summarise(sampleReport()).exitCode).toBe(1);
  });
});
