import { describe, expect, it } from 'vitest';
import { makePlan, selectModels, selectProbes } from '../../src/engine/plan.js';
import { PROBES } from '../../suites/index.js';
import type { ListedModel } from '../../src/engine/discover.js';

const listed: ListedModel[] = ['gpt-4o', 'gpt-4o-mini', 'llama-3'].map((id) => ({ id, ownedBy: undefined, declared: undefined }));

describe('plan', () => {
  it('takes every listed model by default and filters by id or glob', () => {
    expect(selectModels(listed, [], false).map((m) => m.id)).toEqual(['gpt-4o', 'gpt-4o-mini', 'llama-3']);
    expect(selectModels(listed, ['gpt-*'], false).map((m) => m.id)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(selectModels(listed, ['llama-?'], false).map((m) => m.id)).toEqual(['llama-3']);
  });

  it('reports a named model that is not listed, and calls it only with --allow-unlisted', () => {
    expect(selectModels(listed, ['gpt-4o', 'ghost'], false)).toMatchObject([
      { id: 'gpt-4o', listed: true, call: true },
      { id: 'ghost', listed: false, call: false },
    ]);
    expect(selectModels(listed, ['ghost'], true)).toMatchObject([{ id: 'ghost', listed: false, call: true }]);
  });

  it('never audits a model named as chatprobe names its endpoint row, listed or named (its cells would mix with that row)', () => {
    const withReserved = [...listed, { id: '(endpoint)', ownedBy: undefined, declared: undefined }];
    expect(selectModels(withReserved, [], false).map((m) => m.id)).toEqual(['gpt-4o', 'gpt-4o-mini', 'llama-3']);
    expect(selectModels(withReserved, ['*'], true).map((m) => m.id)).toEqual(['gpt-4o', 'gpt-4o-mini', 'llama-3']);
    expect(() => makePlan(withReserved, [...PROBES], { models: ['(endpoint)'], allowUnlisted: true })).toThrow(/no listed model matches/);
  });

  it('rejects an unknown probe and lists the valid ones', () => {
    expect(() => selectProbes(PROBES, ['chat.nope'])).toThrow(/unknown probe "chat.nope"/);
    try {
      selectProbes(PROBES, ['chat.nope']);
    } catch (e) {
      expect((e as { advice: string }).advice).toContain('parameters.max_tokens');
    }
    expect(selectProbes(PROBES, ['parameters.max_*']).map((p) => p.id)).toEqual(['parameters.max_tokens', 'parameters.max_completion_tokens']);
  });

  it('leaves the extended tier out of the default selection, and runs it when --probes names it', () => {
    const extended = ['parameters.user', 'parameters.metadata', 'parameters.stream_options_without_stream', 'roles.empty_content', 'parameters.top_p', 'parameters.logit_bias', 'reasoning.effort'];
    const byDefault = selectProbes(PROBES, []).map((p) => p.id);
    for (const id of extended) expect(byDefault).not.toContain(id);
    expect(byDefault).toHaveLength(PROBES.length - extended.length);
    expect(selectProbes(PROBES, ['parameters.user']).map((p) => p.id)).toEqual(['parameters.user']);
    expect(selectProbes(PROBES, ['roles.*']).map((p) => p.id)).toContain('roles.empty_content');
    expect(selectProbes(PROBES, ['*'])).toHaveLength(PROBES.length);
  });

  it('says when there is nothing to test', () => {
    expect(() => makePlan([], [...PROBES], { models: [], allowUnlisted: false })).toThrow(/listed no model/);
    expect(() => makePlan(listed, [...PROBES], { models: ['claude-*'], allowUnlisted: false })).toThrow(/no listed model matches/);
  });
});
