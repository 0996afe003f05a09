import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, SMOKE_PROMPT, type ProbeVerdict } from '../../src/engine/probe.js';
import { conformance, fail, note, unjudgeable, warn } from '../../src/engine/verdicts.js';
import { usageProblems } from '../../src/wire/usage.js';
import type { Finding } from '../../src/results/model.js';
import { GREEDY_COUNT } from '../support/length.js';
import { COUNT_TO, countingPrompt } from '../support/prompts.js';
import { TOKENIZER_TABLE } from '../support/tokenizer-table.js';

// The longer prompt is the counting request's (sent anyway: the length and stop probes' uncapped answer),
// one user message like the smoke call's: its prompt count must exceed the smoke call's by roughly what
// the longer text holds more. The bounds are loose on purpose: the check is tokenizer-free and only
// catches usage that does not follow the prompt at all. At most a token a byte of the longer text (no
// tokenizer makes more, a BOS or a cut aside); at least a third of the fewest more any known family counts
// (suites/support/tokenizer-table.ts: 9), since no tokenizer packs a sentence of ten words into a token or two.
const LONGER = countingPrompt(COUNT_TO);
const FEWEST_MORE = Math.min(...Object.values(TOKENIZER_TABLE).map((f) => f.counts.countPrompt - f.counts.smoke));
const MIN_GROWTH = Math.max(1, Math.floor(FEWEST_MORE / 3));
const MAX_GROWTH = Buffer.byteLength(LONGER, 'utf8') + 1;

/** The plain answer's usage invariants, and whether its prompt count follows the prompt (the counting request's longer one). */
export function judgeChatUsage(x: Exchange, longer: Exchange): ProbeVerdict {
  const unusable = unjudgeable(x, 'a 2xx chat completion');
  if (unusable) return unusable;
  if (!x.usage) return conformance([warn('missing', 'expected usage with prompt, completion and total tokens, got none')], '');
  const findings: Finding[] = usageProblems(x.usage).map((p) => (p.includes('prompt_tokens is 0') ? warn('usage', p) : fail('usage', p)));
  if (!longer.ok || !longer.usage) {
    findings.push(note('growth_unchecked', `the longer prompt got ${longer.ok ? 'no usage' : `HTTP ${longer.status ?? longer.transport?.code}`}`));
  } else {
    const growth = longer.usage.promptTokens - x.usage.promptTokens;
    const seen = `prompt_tokens ${x.usage.promptTokens} → ${longer.usage.promptTokens} for a prompt of ${LONGER.length} characters in place of ${SMOKE_PROMPT.length}`;
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
  // The longer prompt is the counting request the length and stop probes send: nothing of its own.
  cost: { requests: 0, maxTokens: 0, shared: [GREEDY_COUNT] },
  run: async (ctx) => judgeChatUsage(ctx.control(), (await ctx.shared(GREEDY_COUNT)).x),
});
