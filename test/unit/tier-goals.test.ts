import { describe, expect, it } from 'vitest';
import { PROBES } from '../../suites/index.js';
import { costOfInterface, costOfTiers } from '../../src/engine/cost.js';
import { costBeyondPlan, DEFAULT_REQUESTS, inTier, INTERFACE_REQUESTS, NOT_INTERFACE, QUICK_REQUESTS } from '../../src/engine/probe.js';
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
  });

  it(`prices the interface audit within ${INTERFACE_REQUESTS} requests a model where temperature 0 repeats (issue 35's goal)`, () => {
    expect(iface.requests).toBeLessThanOrEqual(INTERFACE_REQUESTS);
  });

  it('prices apart the further answers a model whose decoding does not repeat may need, no more than before one answer a side', () => {
    const probes = PROBES.filter((p) => inTier(p, 'default') && p.scope !== 'target' && !NOT_INTERFACE.includes(p.area));
    const more = costBeyondPlan(probes, 'unrepeatable');
    // The contrasts' further answers: two more a side without the parameter (three pools of two), one more with it (five contrasts).
    expect(more).toBe(3 * 2 + 5);
    // At most what the interface cost before contrasts took one answer a side (62 where it stood).
    expect(iface.requests + more).toBeLessThanOrEqual(62);
  });
});
