/**
 * The oracle's expectations, counted and checked (test/oracle/expectations.ts).
 *
 *   npx tsx scripts/oracle-cells.ts                 how many verdicts the profiles keep by hand
 *   npx tsx scripts/oracle-cells.ts --against REF   every cell derived now against the verdicts the
 *                                                   profiles at git REF kept by hand (every cell, with
 *                                                   the profile-wide modelExpect REF had under each
 *                                                   model's own): exits 1 on any change
 *
 * `--against` reads REF's profiles as wholly hand-kept: point it at a commit from before the rules
 * (f0a09b0), once, to show that deriving changed no verdict.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadProfile, PROFILE_NAMES } from '../src/reference/profiles.js';
import { Profile } from '../src/reference/profile.js';
import { ENDPOINT } from '../src/results/model.js';
import { declared, endpointProbes, ENDPOINT_RULES, modelProbesOf, ruleVerdict } from '../test/oracle/expectations.js';

const DIR = 'fixtures/profiles';

/** Verdicts written in a profile file: endpoint, profile-wide and per model. */
function handKept(raw: { expect?: object; modelExpect?: object; models?: { expect?: object }[] }): number {
  return Object.keys(raw.expect ?? {}).length + Object.keys(raw.modelExpect ?? {}).length + (raw.models ?? []).reduce((n, m) => n + Object.keys(m.expect ?? {}).length, 0);
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
let total = 0;
for (const f of files) total += handKept(JSON.parse(readFileSync(`${DIR}/${f}`, 'utf8')));
console.log(`hand-kept verdicts in ${DIR}: ${total}`);

const at = process.argv.indexOf('--against');
if (at > 0) {
  const ref = process.argv[at + 1]!;
  let cells = 0;
  let refTotal = 0;
  const changed: string[] = [];
  for (const name of PROFILE_NAMES) {
    const now = loadProfile(name);
    if (now.server.mode !== 'api') continue;
    const raw = JSON.parse(execFileSync('git', ['show', `${ref}:${DIR}/${name}.json`], { encoding: 'utf8' }));
    refTotal += handKept(raw);
    const then = Profile.parse(raw);
    const want = new Map<string, string>();
    for (const [p, v] of Object.entries(then.expect)) want.set(`${ENDPOINT} ${p}`, v);
    for (const m of then.models.filter((x) => x.listed)) for (const [p, v] of Object.entries({ ...raw.modelExpect, ...m.expect })) want.set(`${m.id} ${p}`, v as string);
    const got = new Map<string, string | undefined>();
    for (const p of endpointProbes()) got.set(`${ENDPOINT} ${p}`, ENDPOINT_RULES[p]!(now.server) ?? now.expect[p]);
    for (const m of now.models.filter((x) => x.listed)) {
      const d = declared(now, m);
      for (const p of modelProbesOf(now)) got.set(`${m.id} ${p}`, ruleVerdict(d, p) ?? m.expect[p]);
    }
    for (const cell of new Set([...want.keys(), ...got.keys()])) {
      cells++;
      if (want.get(cell) !== got.get(cell)) changed.push(`${name}: ${cell}: ${want.get(cell) ?? '(none)'} at ${ref}, ${got.get(cell) ?? '(none)'} now`);
    }
  }
  console.log(`hand-kept verdicts at ${ref}: ${refTotal}`);
  console.log(`${cells} cells compared, ${changed.length} changed${changed.length ? ':' : ''}`);
  for (const c of changed) console.log(`  ${c}`);
  if (changed.length > 0) process.exitCode = 1;
}
