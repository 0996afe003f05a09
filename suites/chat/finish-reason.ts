import { defineProbe } from '../../src/engine/probe.js';
import { conformance, conformanceFailure, fail, warn } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import { STANDARD_FINISH_REASONS } from '../../src/spec/usage.js';
import type { Finding } from '../../src/report/model.js';

export default defineProbe({
  id: 'chat.finish_reason',
  area: 'chat',
  kind: 'conformance',
  requirement: 'Every choice of a finished answer has a finish_reason from the standard set: stop, length, tool_calls, content_filter.',
  verdicts: ['pass', 'warn', 'fail'],
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    if (!x.ok) return conformanceFailure(x, 'a 2xx chat completion');
    const choices = readChoices(x.json);
    if (choices.length === 0) return conformance([fail('no_choice', 'expected a choice with a finish_reason, got no choice')], '');
    const findings: Finding[] = [];
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
