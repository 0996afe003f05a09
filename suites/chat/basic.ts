import { defineProbe } from '../../src/engine/probe.js';
import { conformance, conformanceFailure, fail, warn } from '../../src/engine/verdicts.js';
import { errorIn2xx, readChoices } from '../../src/spec/completion.js';
import { STANDARD_FINISH_REASONS, usageProblems } from '../../src/spec/usage.js';
import { formatDeviation, validateShape } from '../../src/spec/validate.js';
import type { Finding } from '../../src/report/model.js';

export default defineProbe({
  id: 'chat.basic',
  area: 'chat',
  kind: 'conformance',
  requirement:
    'A non-stream chat completion is one JSON body of the chat.completion shape, with a standard finish_reason and consistent usage.',
  // Reads the model's smoke call (a plain non-stream request), so it costs nothing more.
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    if (!x.ok) return conformanceFailure(x, 'a 2xx chat completion');
    const findings: Finding[] = [];
    if (x.truncated) findings.push(fail('body_too_large', `the body passed the ${x.bytes}-byte cap`));
    if (x.parseError !== undefined || x.json === undefined) {
      const hint = x.contentType.includes('html') ? ' (an HTML page: the base URL may be wrong)' : '';
      findings.push(fail('not_json', `expected a JSON body, got ${x.contentType || 'no content type'}${hint}`));
      return conformance(findings, '');
    }
    if (!x.contentType.includes('application/json')) {
      findings.push(warn('content_type', `expected content-type application/json, got "${x.contentType || 'none'}"`));
    }
    const inBand = errorIn2xx(x.json);
    if (inBand) findings.push(fail('error_in_2xx', inBand));
    for (const d of validateShape('completion', x.json).slice(0, 6)) {
      findings.push(d.tier === 'lenient' ? fail('schema', formatDeviation(d)) : warn('schema_strict', formatDeviation(d)));
    }
    for (const c of readChoices(x.json)) {
      if (c.finishReason === null || c.finishReason === undefined || c.finishReason === '') {
        findings.push(fail('finish_reason', `choice ${c.index}: expected a finish_reason, got ${JSON.stringify(c.finishReason ?? null)}`));
      } else if (!(STANDARD_FINISH_REASONS as readonly unknown[]).includes(c.finishReason)) {
        findings.push(warn('finish_reason', `choice ${c.index}: expected one of stop/length/tool_calls/content_filter, got ${JSON.stringify(c.finishReason)}`));
      }
      if (!c.content && c.toolCalls.length === 0) findings.push(warn('empty_content', `choice ${c.index}: empty answer to a plain prompt`));
    }
    if (!x.usage) {
      findings.push(warn('usage_missing', 'expected usage with prompt, completion and total tokens, got none'));
    } else {
      for (const p of usageProblems(x.usage)) findings.push(p.startsWith('total_tokens') ? fail('usage', p) : warn('usage', p));
    }
    return conformance(findings, 'chat.completion shape, standard finish_reason, consistent usage');
  },
});
