import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { conformance, fail, note, unjudgeable, warn } from '../../src/engine/verdicts.js';
import { usageProblems } from '../../src/wire/usage.js';
import type { Finding } from '../../src/results/model.js';
import { UNIT_THRICE } from '../support/usage.js';
import { UNIT_A } from '../support/usage-texts.js';

// The smoke prompt with three copies of the usage probes' unit before it (digits and maths symbols, 36
// bytes a copy): the prompt count must grow by roughly that much. The bounds are loose on purpose: the check
// is tokenizer-free and only catches usage that does not follow the prompt at all. At most a token a byte
// (no tokenizer makes more, a BOS or a cut aside); at least a third of the fewest any known family makes of
// it (17), since no tokenizer packs fifteen digits and six maths symbols into a handful of tokens.
const COPIES = 3;
const MIN_GROWTH = COPIES * 5;
const MAX_GROWTH = COPIES * (Buffer.byteLength(UNIT_A, 'utf8') + 1);

/** The plain answer's usage invariants, and whether its prompt count follows the prompt (the usage series' three copies). */
export function judgeChatUsage(x: Exchange, longer: Exchange): ProbeVerdict {
  const unusable = unjudgeable(x, 'a 2xx chat completion');
  if (unusable) return unusable;
  if (!x.usage) return conformance([warn('missing', 'expected usage with prompt, completion and total tokens, got none')], '');
  const findings: Finding[] = usageProblems(x.usage).map((p) => (p.includes('prompt_tokens is 0') ? warn('usage', p) : fail('usage', p)));
  if (!longer.ok || !longer.usage) {
    findings.push(note('growth_unchecked', `the longer prompt got ${longer.ok ? 'no usage' : `HTTP ${longer.status ?? longer.transport?.code}`}`));
  } else {
    const growth = longer.usage.promptTokens - x.usage.promptTokens;
    const seen = `prompt_tokens ${x.usage.promptTokens} → ${longer.usage.promptTokens} for ${COPIES} copies of a ${UNIT_A.trim().length}-character line before the prompt`;
    if (growth < MIN_GROWTH || growth > MAX_GROWTH) {
      findings.push(warn('growth', `expected prompt_tokens to grow by ${MIN_GROWTH}–${MAX_GROWTH}, got ${seen}: usage may not be counted from the prompt`));
    } else {
      findings.push(note('growth', seen));
    }
  }
  const u = x.usage;
  return conformance(findings, `usage ${u.promptTokens} + ${u.completionTokens} = ${u.totalTokens}; prompt count follows the prompt`);
}

export default defineProbe({
  id: 'chat.usage',
  area: 'chat',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'A non-stream answer reports usage: non-negative integer prompt, completion and total tokens, total = prompt + completion, and prompt tokens that follow the prompt.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  // The longer prompt is the usage series' point with three copies of its unit: one request for both.
  cost: { requests: 0, maxTokens: 0, shared: [UNIT_THRICE] },
  run: async (ctx) => judgeChatUsage(ctx.control(), await ctx.shared(UNIT_THRICE)),
});
