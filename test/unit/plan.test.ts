import { describe, expect, it } from 'vitest';
import { closestIds, makePlan, selectModels, selectProbes } from '../../src/engine/plan.js';
import { CannotTestError } from '../../src/errors.js';
import { PROBES } from '../../suites/index.js';
import type { ListedModel } from '../../src/engine/discover.js';
import { costOfProbes, QUICK_REQUESTS, type Tier } from '../../src/engine/probe.js';
import { costOfTiers } from '../../src/engine/cost.js';

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

  it('selects a tier: each holds the smaller ones; --probes with --tier keeps only the named probes of that tier', () => {
    const ids = (tier: Tier) => selectProbes(PROBES, [], tier).map((p) => p.id);
    const quick = ids('quick');
    // Tiers nest: quick within default within extended, which is every probe.
    expect(ids('default')).toEqual(selectProbes(PROBES, []).map((p) => p.id));
    for (const id of quick) expect(ids('default')).toContain(id);
    expect(ids('extended')).toHaveLength(PROBES.length);
    // Reachability, the wire and the parameters most clients send; no sampling, roles or refusal probes.
    for (const id of ['models.list', 'chat.basic', 'streaming.basic', 'streaming.usage', 'parameters.max_tokens', 'parameters.stop', 'parameters.tools', 'parameters.response_format.json_schema']) expect(quick).toContain(id);
    for (const id of ['parameters.temperature', 'parameters.seed', 'roles.system', 'errors.wrong_type', 'auth.missing_key', 'billing.usage']) expect(quick).not.toContain(id);
    expect(selectProbes(PROBES, ['parameters.*'], 'quick').map((p) => p.id)).toEqual(quick.filter((id) => id.startsWith('parameters.')));
    // Without --tier, --probes names any tier's probes, as before.
    expect(selectProbes(PROBES, ['parameters.user']).map((p) => p.id)).toEqual(['parameters.user']);
    expect(() => selectProbes(PROBES, ['parameters.user'], 'default')).toThrow('no probe of --tier default matches --probes parameters.user');
  });

  it('prices the quick tier within its goal, each of its probes with the shared exchanges it reads', () => {
    const quick = selectProbes(PROBES, [], 'quick').filter((p) => p.scope !== 'target');
    // Every shared exchange a quick probe reads is paid for in the tier's cost (costOfProbes counts each once).
    const tiers = costOfTiers(PROBES, 4, true);
    const q = tiers.find((t) => t.tier === 'quick')!;
    expect(q.requests).toBe(costOfProbes(quick, 4).requests + 1);
    // A model that refuses max_tokens gets some of its limits sent again (up to one a request in flight at
    // --concurrency 4): the plan leaves that much room under the goal.
    expect(q.requests + 4).toBeLessThanOrEqual(QUICK_REQUESTS);
    expect(tiers.map((t) => t.tier)).toEqual(['quick', 'default', 'extended']);
    expect(tiers[0]!.requests).toBeLessThan(tiers[1]!.requests);
    expect(tiers[1]!.requests).toBeLessThan(tiers[2]!.requests);
  });

  it('refuses named models none of which is listed (exit 2), naming the closest listed ids of each', () => {
    const refused = (() => {
      try {
        makePlan(listed, [...PROBES], { models: ['gpt-4-o', 'lama-3'], allowUnlisted: false });
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(CannotTestError);
    expect((refused as CannotTestError).message).toBe('--models names gpt-4-o, lama-3, which GET /models does not list: no model to test');
    expect((refused as CannotTestError).advice).toBe(
      'closest listed to gpt-4-o: gpt-4o, gpt-4o-mini, llama-3; closest listed to lama-3: llama-3, gpt-4o, gpt-4o-mini (of 3 listed); --allow-unlisted calls a name the list lacks',
    );
    // Some named models exist: the run goes on, the typo a row that could not be tested, its closest ids with it.
    expect(makePlan(listed, [...PROBES], { models: ['gpt-4o', 'gpt-4o-mnii'], allowUnlisted: false }).models).toMatchObject([
      { id: 'gpt-4o', call: true },
      { id: 'gpt-4o-mnii', listed: false, call: false, closest: ['gpt-4o-mini', 'gpt-4o', 'llama-3'] },
    ]);
    // --allow-unlisted calls it on purpose.
    expect(makePlan(listed, [...PROBES], { models: ['ghost'], allowUnlisted: true }).models).toMatchObject([{ id: 'ghost', call: true }]);
  });

  it('never refuses a name the baseline expects: the list lost it, a regression the judgement reports as missing', () => {
    const plan = makePlan(listed, [...PROBES], { models: ['gone-model'], allowUnlisted: false, expected: new Set(['gone-model']) });
    expect(plan.models).toEqual([]);
    expect(makePlan(listed, [...PROBES], { models: ['gpt-4o', 'gone-model'], allowUnlisted: false, expected: new Set(['gone-model']) }).models.map((m) => m.id)).toEqual(['gpt-4o']);
  });

  it('finds the closest ids by edit distance, nearest first, among any number listed', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({ id: `vendor/model-${i}`, ownedBy: undefined, declared: undefined }));
    expect(closestIds('vendor/model-1234x', many, 2)).toEqual(['vendor/model-1234', 'vendor/model-12340']);
  });

  it('says when there is nothing to test', () => {
    expect(() => makePlan([], [...PROBES], { models: [], allowUnlisted: false })).toThrow(/listed no model/);
    expect(() => makePlan(listed, [...PROBES], { models: ['claude-*'], allowUnlisted: false })).toThrow(/no listed model matches/);
  });
});
