import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, warn } from '../../src/engine/verdicts.js';
import { isObject } from '../../src/wire/json.js';
import { STANDARD_FINISH_REASONS } from '../../src/wire/usage.js';
import type { Finding } from '../../src/results/model.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.finish_once',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'Each choice gets exactly one non-null finish_reason, in its last chunk; every earlier chunk has finish_reason null.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const unusable = unusableStream(x, 'the finish_reason sequence');
    if (unusable) return unusable;
    const s = x.assembled!;
    const findings: Finding[] = [];
    let empty = 0;
    let omitted = 0;
    for (const chunk of s.chunks) {
      if (!isObject(chunk) || !Array.isArray(chunk.choices)) continue;
      for (const c of chunk.choices) {
        if (!isObject(c)) continue;
        if (!('finish_reason' in c)) omitted++;
        else if (c.finish_reason === '') empty++;
      }
    }
    const reasons = s.choices.get(0)?.finishReasons.filter((r) => r !== '') ?? [];
    if (reasons.length === 0) findings.push(fail('never', 'expected one finish_reason, got none in the whole stream'));
    else if (reasons.length > 1) findings.push(fail('repeated', `expected one finish_reason, got ${reasons.length}: ${JSON.stringify(reasons)}`));
    else if (!(STANDARD_FINISH_REASONS as readonly unknown[]).includes(reasons[0])) {
      findings.push(warn('non_standard', `finish_reason ${JSON.stringify(reasons[0])} is not in the standard set`));
    }
    // "" reads as "no reason yet" to `if (finish_reason)`, but as a reason to `!== null`.
    if (empty > 0) findings.push(warn('empty_string', `${empty} chunk(s) with finish_reason "" instead of null`));
    if (omitted > 0) findings.push(warn('omitted', `${omitted} chunk(s) without the finish_reason key`));
    return conformance(findings, `one finish_reason ${JSON.stringify(reasons[0])}, null before it`);
  },
});
