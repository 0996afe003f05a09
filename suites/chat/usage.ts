import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { conformance, fail, note, unjudgeable, warn } from '../../src/engine/verdicts.js';
import { usageProblems } from '../../src/wire/usage.js';
import type { Finding } from '../../src/results/model.js';
import { LIMITS, user } from '../support/prompts.js';

// 40 copies of a common English word: about 40 tokens in every tokenizer we know (1 to 2 each), so the
// prompt count must grow by roughly that much. The bounds are loose on purpose: the check is
// tokenizer-free and only catches usage that does not follow the prompt at all.
const FILLER_WORDS = 40;
const FILLER = `Ignore this filler: ${'apple '.repeat(FILLER_WORDS).trim()}.`;
const MIN_GROWTH = FILLER_WORDS * 0.75;
const MAX_GROWTH = FILLER_WORDS * 3;

export default defineProbe({
  id: 'chat.usage',
  area: 'chat',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'A non-stream answer reports usage: non-negative integer prompt, completion and total tokens, total = prompt + completion, and prompt tokens that follow the prompt.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx chat completion');
    if (unusable) return unusable;
    if (!x.usage) return conformance([warn('missing', 'expected usage with prompt, completion and total tokens, got none')], '');
    const findings: Finding[] = usageProblems(x.usage).map((p) => (p.includes('prompt_tokens is 0') ? warn('usage', p) : fail('usage', p)));
    const longer = await ctx.chat({ messages: [user(`${FILLER}\n${SMOKE_PROMPT}`)], max_tokens: LIMITS.word });
    if (!longer.ok || !longer.usage) {
      findings.push(note('growth_unchecked', `the longer prompt got ${longer.ok ? 'no usage' : `HTTP ${longer.status ?? longer.transport?.code}`}`));
    } else {
      const growth = longer.usage.promptTokens - x.usage.promptTokens;
      const seen = `prompt_tokens ${x.usage.promptTokens} → ${longer.usage.promptTokens} for ${FILLER_WORDS} more words`;
      if (growth < MIN_GROWTH || growth > MAX_GROWTH) {
        findings.push(warn('growth', `expected prompt_tokens to grow by ${MIN_GROWTH}–${MAX_GROWTH}, got ${seen}: usage may not be counted from the prompt`));
      } else {
        findings.push(note('growth', seen));
      }
    }
    const u = x.usage;
    return conformance(findings, `usage ${u.promptTokens} + ${u.completionTokens} = ${u.totalTokens}; prompt count follows the prompt`);
  },
});
