import type { Exchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import type { Contrast } from '../../suites/support/contrast.js';

let resampled = 0;

/**
 * The same answer object given twice stands for two samples alike in content, as a server sends them:
 * each gets an id of its own. Separate objects keep theirs (a cache's repeats are written as two objects
 * with one id).
 */
function samplesOf(xs: readonly Exchange[]): Exchange[] {
  const seen = new Set<Exchange>();
  return xs.map((x) => {
    if (!seen.has(x)) {
      seen.add(x);
      return x;
    }
    const json = x.json as Record<string, unknown> | undefined;
    if (!json || typeof json !== 'object' || typeof json.id !== 'string') return x;
    return { ...x, json: { ...json, id: `${json.id}-again${++resampled}` } };
  });
}

/**
 * decideContrast without a server: the judgement fed the answers in hand, one more each time it asks for
 * one, as the probe sends them. Says how many of each side it read; asking past them fails the test.
 */
export function runContrast(judge: (w: readonly Exchange[], wo: readonly Exchange[]) => Contrast, given: readonly Exchange[], givenWithout: readonly Exchange[]): ProbeVerdict & { used: [number, number] } {
  const withAnswers = samplesOf(given);
  const withoutAnswers = samplesOf(givenWithout);
  let w = 1;
  let wo = 1;
  for (;;) {
    const d = judge(withAnswers.slice(0, w), withoutAnswers.slice(0, wo));
    if ('verdict' in d) return { ...d.verdict, used: [w, wo] };
    if (d.more === 'with') w++;
    else wo++;
    if (w > withAnswers.length || wo > withoutAnswers.length) throw new Error(`asked for answer ${d.more === 'with' ? w : wo} ${d.more} the parameter; the test gave ${d.more === 'with' ? withAnswers.length : withoutAnswers.length}`);
  }
}
