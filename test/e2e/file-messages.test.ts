import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Files chatprobe reads that are missing, not JSON, or not what it expects: every command says so in its
 * own words (exit 2), never with Node's, V8's or zod's ("ENOENT: no such file or directory, open …",
 * "Unexpected token", "Invalid input: expected string, received number").
 */
const RAW = /ENOENT|EISDIR|EACCES|Unexpected token|Unexpected end|in JSON at position|Invalid input|received (number|string|undefined|object)|expected (string|number|object), received/;

describe('files that are not what chatprobe reads', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
    await mkdir(join(dir, 'broken'));
    await writeFile(join(dir, 'broken', 'report.json'), '{"schemaVersion": 1,');
    await mkdir(join(dir, 'alien'));
    await writeFile(join(dir, 'alien', 'report.json'), JSON.stringify({ schemaVersion: 1, tool: { name: 7 } }));
    await mkdir(join(dir, 'alien-cells'));
    await writeFile(join(dir, 'alien-cells', 'report.json'), JSON.stringify({ schemaVersion: 1, probes: [], models: [{ id: 'm', listed: true }], results: [{ model: 'm', probe: 7 }] }));
    await mkdir(join(dir, 'empty'));
    await writeFile(join(dir, 'bad-baseline.json'), '{ cells: }');
    await writeFile(join(dir, 'typed-baseline.json'), JSON.stringify({ schemaVersion: 1, cells: { m: { 'chat.basic': 5 } } }));
    await writeFile(join(dir, 'bad-profile.json'), '');
    await writeFile(join(dir, 'alien-profile.json'), JSON.stringify({ name: 3 }));
  });

  const cases: [string, (d: string) => string[], RegExp][] = [
    ['compare, a folder without a report', (d) => ['compare', join(d, 'empty'), join(d, 'empty')], /cannot read .*report\.json: no such file/],
    ['compare, a report that is not JSON', (d) => ['compare', join(d, 'broken'), join(d, 'broken')], /is not a chatprobe report: not JSON \(check it with a JSON linter/],
    ['compare, JSON that is no report', (d) => ['compare', join(d, 'alien'), join(d, 'alien')], /is not a chatprobe report \(schemaVersion 1\): .*expected/],
    ['repro, a report that is not JSON', (d) => ['repro', join(d, 'broken'), 'm', 'chat.basic'], /is not a chatprobe report: not JSON/],
    ['repro, JSON that is no report', (d) => ['repro', join(d, 'alien'), 'm', 'chat.basic'], /is not a chatprobe report \(schemaVersion 1\): no probes/],
    ['repro, a cell that is no cell', (d) => ['repro', join(d, 'alien-cells'), 'm', 'chat.basic'], /is not a chatprobe report \(schemaVersion 1\): results\[0\]: probe: expected a string, got 7/],
    ['merge, a shard that is not JSON', (d) => ['merge', join(d, 'broken'), join(d, 'alien'), '--out', join(d, 'out')], /is not a chatprobe report: not JSON/],
    ['merge, a missing shard', (d) => ['merge', join(d, 'nothing-here'), '--out', join(d, 'out')], /cannot read .*: no such file/],
    ['a baseline that is not JSON', (d) => ['--base-url', 'http://127.0.0.1:9/v1', '--baseline', join(d, 'bad-baseline.json')], /invalid baseline .*: not JSON \(check it with a JSON linter/],
    ['a baseline with a number for a verdict', (d) => ['--base-url', 'http://127.0.0.1:9/v1', '--baseline', join(d, 'typed-baseline.json')], /invalid baseline .* at cells\.m\.chat\.basic: 5 is none of the forms it may take \(valid verdicts: honoured/],
    ['serve, an empty profile file', (d) => ['serve', '--profile', join(d, 'bad-profile.json'), '--port', '0'], /cannot read profile .*: not JSON \(the file is empty\)/],
    ['serve, a profile of the wrong shape', (d) => ['serve', '--profile', join(d, 'alien-profile.json'), '--port', '0'], /profile ".*" is invalid at name: expected a string, got 3/],
  ];

  it.each(cases)('%s: exit 2, said in our words', async (_name, args, said) => {
    const run = await runCli(args(dir), { OPENAI_API_KEY: 'sk-test-messages-0123456789' });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(said);
    expect(run.stderr).not.toMatch(RAW);
  });
});
