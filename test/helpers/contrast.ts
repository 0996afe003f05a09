import type { Exchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import type { Contrast } from '../../suites/support/contrast.js';

/**
 * decideContrast without a server: the judgement fed the answers in hand, one more each time it asks for
 * one, as the probe sends them. Says how many of each side it read; asking past them fails the test.
 */
export function runContrast(judge: (w: readonly Exchange[], wo: readonly Exchange[]) => Contrast, withAnswers: readonly Exchange[], withoutAnswers: readonly Exchange[]): ProbeVerdict & { used: [number, number] } {
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
