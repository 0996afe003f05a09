import { describe, expect, it } from 'vitest';
import { PROBES } from '../../suites/index.js';
import { costOfInterface, costOfTiers } from '../../src/engine/cost.js';
import { DEFAULT_REQUESTS, INTERFACE_REQUESTS, NOT_INTERFACE, QUICK_REQUESTS } from '../../src/engine/probe.js';
import { AuditFlags } from '../../src/config/options.js';

/**
 * The tier goals (issue 35), checked on the planner: what a model costs at most at the default --samples,
 * its smoke call, the shared exchanges its probes read and the billing calls included. The bench's cost
 * group checks the same against the requests a server received.
 */
const SAMPLES = AuditFlags.parse({}).samples;
const tiers = costOfTiers(PROBES, SAMPLES, true);
const tier = (name: string) => tiers.find((t) => t.tier === name)!;
const iface = costOfInterface(PROBES, SAMPLES);

describe('tier goals, by the plan', () => {
  it(`prices --tier quick within ${QUICK_REQUESTS} requests a model`, () => {
    expect(tier('quick').requests).toBeLessThanOrEqual(QUICK_REQUESTS);
  });

  it(`prices the default tier, billing included, within ${DEFAULT_REQUESTS} requests a model`, () => {
    expect(tier('default').requests).toBeLessThanOrEqual(DEFAULT_REQUESTS);
  });

  it('prices the interface audit as the default tier less the usage, billing and identity areas', () => {
    const probes = PROBES.filter((p) => (p.tier ?? 'default') !== 'extended' && p.scope !== 'target');
    expect(iface.probes).toBe(probes.filter((p) => !NOT_INTERFACE.includes(p.area)).length);
    expect(iface.requests).toBeLessThanOrEqual(tier('default').requests);
    // Where it stands: the lean default's shared answers, sets of three samples and skips brought it from
    // 76 to this; docs/verdicts.md ("What each probe costs") says what is left and why.
    expect(iface.requests).toBeLessThanOrEqual(62);
  });

  // The goal is not met: this turns red the day it is, to be made a plain `it`.
  it.fails(`prices the interface audit within ${INTERFACE_REQUESTS} requests a model (issue 35's goal, not met yet)`, () => {
    expect(iface.requests).toBeLessThanOrEqual(INTERFACE_REQUESTS);
  });
});
