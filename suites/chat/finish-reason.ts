import { defineProbe, SMOKE_PROMPT, SMOKE_RETRY_LIMIT } from '../../src/engine/probe.js';
import { conformance, fail, unjudgeable, warn } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { STANDARD_FINISH_REASONS } from '../../src/wire/usage.js';
import type { Finding } from '../../src/results/model.js';

export default defineProbe({
  id: 'chat.finish_reason',
  area: 'chat',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A plain request ends on its own, and every choice has a finish_reason from the standard set: stop, length, tool_calls, content_filter.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx chat completion');
    if (unusable) return unusable;
    const choices = readChoices(x.json);
    if (choices.length === 0) return conformance([fail('no_choice', 'expected a choice with a finish_reason, got no choice')], '');
    const findings: Finding[] = [];
    const runaway = ctx.runaway();
    if (runaway) {
      // Verdict contract, rule 7: the model is audited with limits, and this is where the fault shows.
      const how = choices[0]?.finishReason === 'length' ? `with max_tokens ${SMOKE_RETRY_LIMIT} it was cut at the limit` : `with max_tokens ${SMOKE_RETRY_LIMIT} it ended`;
      findings.push(fail('runaway', `"${SMOKE_PROMPT}" without a limit got no answer within --timeout; ${how}: the model does not stop on its own (chat template or EOS token misconfigured)`));
    } else if (choices[0]?.finishReason === 'length') {
      findings.push(warn('cut_without_limit', `"${SMOKE_PROMPT}" without a limit was cut with "length" after ${x.usage?.completionTokens ?? '?'} tokens: the server's own limit ended it, so the model may not stop on its own`));
    }
    for (const c of choices) {
      const got = JSON.stringify(c.finishReason ?? null);
      if (c.finishReason === null || c.finishReason === undefined || c.finishReason === '') {
        findings.push(fail('missing', `choice ${c.index}: expected a finish_reason, got ${got}`));
      } else if (!(STANDARD_FINISH_REASONS as readonly unknown[]).includes(c.finishReason)) {
        // TGI "eos", "eos_token", Anthropic-style "end_turn": clients that test for "stop" misread these.
        findings.push(warn('non_standard', `choice ${c.index}: expected one of ${STANDARD_FINISH_REASONS.slice(0, 4).join(', ')}, got ${got}`));
      }
    }
    return conformance(findings, `finish_reason ${choices.map((c) => JSON.stringify(c.finishReason)).join(', ')}`);
  },
});
