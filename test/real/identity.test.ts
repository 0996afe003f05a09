/**
 * Issue 34's truth on real llama.cpp servers: the identity probes (the built CLI, `--probes identity.*`)
 * against the same tiny weights served as F16, Q8_0 and Q4_0, against other weights, and against two
 * servers behind Portkey's load balancer as one model name. Every set of weights is served under one
 * name (IDENTITY_MODEL): only the fingerprint can tell them apart. Two runs are weighed by chatprobe's own
 * compareFingerprints on the fingerprints the reports carry. The figures behind the thresholds (false
 * alarms, power, over hundreds of runs) are the calibration's (npm run calibrate:identity, docs/identity.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareFingerprints, type Fingerprint } from '../../src/results/identity.js';
import { loadBalanceHeaders, startPortkey, type Gateway } from '../helpers/portkey.js';
import { busy, IDENTITY_MODEL, runIdentity, type IdentityRun } from './identity-runs.js';
import { realPaths, startLlama, stopAll, type Llama, type Weights } from './llama.js';

const ROUTE_HEADER = 'x-portkey-last-used-option-index';

/**
 * One run on a server of its own, stopped after it; `load`: three other requests in flight meanwhile;
 * `probes`: another selection (with the usage series the fingerprint reads its tokenizer from).
 */
async function runOn(weights: Weights, threads: number, o: { load?: boolean; probes?: string } = {}): Promise<IdentityRun> {
  const server = await startLlama(realPaths(), weights, IDENTITY_MODEL, { threads });
  const load = o.load ? busy(server.url) : undefined;
  try {
    return await runIdentity(server.url, [], o.probes);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- llama-server log ---\n${server.log().slice(-2000)}`);
  } finally {
    await load?.stop();
    await server.stop();
  }
}

const show = (a: Fingerprint, b: Fingerprint) => JSON.stringify(compareFingerprints(a, b));
/** Which of the load balancer's targets answered each of the anchor's repeats (Portkey's own header). */
const routes = (f: Fingerprint) => f.samples.filter((s) => s.prompt === 'anchor').map((s) => s.headers?.[ROUTE_HEADER]);

describe('the identity probes on real llama.cpp servers', () => {
  const runs: Partial<Record<'f16' | 'restartedOneThread' | 'restartedBusy' | 'q8_0' | 'q4_0' | 'other', IdentityRun>> = {};
  /** The F16 weights and their Q4_0 twin with the usage series too: the fingerprint's tokenizer. */
  const counted: Partial<Record<'f16' | 'q4_0', IdentityRun>> = {};

  beforeAll(async () => {
    // One server at a time: nothing of one run is batched with another's (the busy run's load is its own).
    runs.f16 = await runOn('stops', 2);
    runs.restartedOneThread = await runOn('stops', 1);
    runs.restartedBusy = await runOn('stops', 2, { load: true });
    runs.q8_0 = await runOn('stopsQ8', 2);
    runs.q4_0 = await runOn('stopsQ4', 2);
    runs.other = await runOn('other', 2);
    counted.f16 = await runOn('stops', 2, { probes: 'identity.*,usage.tokenizer' });
    counted.q4_0 = await runOn('stopsQ4', 2, { probes: 'identity.*,usage.tokenizer' });
  });
  afterAll(stopAll);

  it('reads a fingerprint with logprobs from every set of weights, one source each', () => {
    for (const [name, run] of Object.entries(runs)) {
      expect(run!.fingerprint.signal, name).toBe('logprobs');
      expect(run!.cells['identity.fingerprint']?.verdict, `${name}: ${JSON.stringify(run!.cells)}`).toBe('pass');
      expect(run!.cells['identity.mixed_backends']?.verdict, `${name}: ${JSON.stringify(run!.cells)}`).toBe('pass');
    }
  });

  it('finds the same weights the same after a restart with another thread count, and while the server is busy', () => {
    const { f16, restartedOneThread, restartedBusy } = runs;
    expect(compareFingerprints(f16!.fingerprint, restartedOneThread!.fingerprint).verdict, show(f16!.fingerprint, restartedOneThread!.fingerprint)).toBe('same');
    expect(compareFingerprints(f16!.fingerprint, restartedBusy!.fingerprint).verdict, show(f16!.fingerprint, restartedBusy!.fingerprint)).toBe('same');
    expect(compareFingerprints(restartedOneThread!.fingerprint, restartedBusy!.fingerprint).verdict).toBe('same');
  });

  it('finds Q4_0 and other weights under the same name different, both ways round', () => {
    for (const v of ['q4_0', 'other'] as const) {
      for (const ref of [runs.f16!, runs.restartedBusy!]) {
        expect(compareFingerprints(ref.fingerprint, runs[v]!.fingerprint).verdict, `${v}: ${show(ref.fingerprint, runs[v]!.fingerprint)}`).toBe('different');
        expect(compareFingerprints(runs[v]!.fingerprint, ref.fingerprint).verdict).toBe('different');
      }
    }
  });

  it('keeps the tokenizer where the usage probes ran: Qwen 2 from the same exact counts on the F16 weights and their Q4_0 twin, so the content decides', () => {
    const [f16, q4] = [counted.f16!.fingerprint, counted.q4_0!.fingerprint];
    for (const f of [f16, q4]) expect(f.tokenizer, JSON.stringify(f.tokenizer)).toMatchObject({ family: 'qwen2', points: [{ k: 0, prompt: 36 }, { k: 3, prompt: 108 }] });
    expect(q4.tokenizer!.points).toEqual(f16.tokenizer!.points);
    expect(q4.tokenizer!.checks).toEqual(f16.tokenizer!.checks);
    const c = compareFingerprints(f16, q4);
    expect(c.tokenizer, JSON.stringify(c)).toMatchObject({ a: { family: 'qwen2' }, b: { family: 'qwen2' } });
    // Not the tokenizer's verdict: the content's, as without it. Batched with the usage probes' requests, a
    // run's own spread was seen at 0.047 (past the floor: unverifiable), so either honest content verdict.
    expect(c.signal, JSON.stringify(c)).toBe('logprobs');
    expect(c).toEqual({ ...compareFingerprints({ ...f16, tokenizer: undefined }, { ...q4, tokenizer: undefined }), tokenizer: c.tokenizer });
    expect(['different', 'unverifiable'], JSON.stringify(c)).toContain(c.verdict);
    // The runs of the identity probes alone read no tokenizer, and say so.
    expect(runs.f16!.fingerprint.tokenizer?.why).toMatch(/^not read: no usage series in this run/);
  });

  it('finds Q8_0 different, or says honestly that it cannot tell', () => {
    const c = compareFingerprints(runs.f16!.fingerprint, runs.q8_0!.fingerprint);
    expect(['different', 'unverifiable'], JSON.stringify(c)).toContain(c.verdict);
  });
});

describe('two llama-servers behind Portkey load-balancing one model name', () => {
  let gateway: Gateway;
  const servers: Llama[] = [];

  beforeAll(async () => {
    const paths = realPaths();
    servers.push(await startLlama(paths, 'stops', IDENTITY_MODEL), await startLlama(paths, 'stopsQ4', IDENTITY_MODEL));
    gateway = await startPortkey();
  });
  afterAll(async () => {
    await gateway?.close();
    await stopAll();
  });

  it('routes requests to both (the control: a mix to find)', async () => {
    const seen = new Set<string>();
    const [name, value] = loadBalanceHeaders(servers.map((s) => s.url))[1]!.split(/: (.*)/s);
    // Until both have answered: 40 draws all on one target is 1 in 2^39.
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const res = await fetch(`${gateway.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [name!]: value! },
        body: JSON.stringify({ model: IDENTITY_MODEL, max_tokens: 1, temperature: 0, messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(res.status).toBe(200);
      seen.add(res.headers.get(ROUTE_HEADER) ?? '');
    }
    expect([...seen].sort()).toEqual(['config.targets[0]', 'config.targets[1]']);
  });

  it('finds mixed_backends, the split where the gateway says it sent the repeats', async () => {
    // The balancer draws each request's target at random: all 8 of the anchor's repeats go to one target 1
    // run in 128, and then there is no mix to find. Portkey's header says where each went: a run that drew
    // one target only is run again (three tries: all three drawing one target is 1 in 2 million).
    let run: IdentityRun | undefined;
    for (let i = 0; i < 3; i++) {
      run = await runIdentity(gateway.url, loadBalanceHeaders(servers.map((s) => s.url)));
      if (new Set(routes(run.fingerprint)).size === 2) break;
    }
    const targets = routes(run!.fingerprint);
    expect(new Set(targets).size, JSON.stringify(targets)).toBe(2);
    const mixed = run!.cells['identity.mixed_backends'];
    expect(mixed?.verdict, JSON.stringify(run!.cells)).toBe('fail');
    expect(mixed?.observed).toMatch(/two groups of \d and \d/);
    expect(mixed?.observed).toContain(`header ${ROUTE_HEADER} splits the same way`);
    // The fingerprint keeps no single spread of a mix.
    expect(run!.cells['identity.fingerprint']?.verdict).toBe('inconclusive');
  });
});
