import { defineProbe } from '../../src/engine/probe.js';
import { conformance, conformanceFailure, fail, note, warn } from '../../src/engine/verdicts.js';
import { isObject } from '../../src/wire/json.js';
import { usageProblems } from '../../src/wire/usage.js';
import type { Finding } from '../../src/results/model.js';
import { GREEDY_COUNT } from '../support/length.js';
import { USAGE_STREAM, usageStream, usageTwin } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.usage',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'With stream_options.include_usage, the stream ends with one chunk whose choices are empty and whose usage matches the same request not streamed.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [USAGE_STREAM, GREEDY_COUNT] },
  async run(ctx) {
    const x = await usageStream(ctx);
    if (x.status !== undefined && x.status >= 400 && x.status < 500 && !x.cause) {
      return conformanceFailure(x, 'stream_options.include_usage to be accepted');
    }
    const unusable = unusableStream(x, 'usage in the stream');
    if (unusable) return unusable;
    const s = x.assembled!;
    const withUsage = s.chunks.filter((c) => isObject(c) && isObject(c.usage));
    if (withUsage.length === 0) return conformance([fail('never', 'include_usage was asked for, and no chunk carried usage')], '');
    const findings: Finding[] = [];
    const last = withUsage.at(-1) as Record<string, unknown>;
    const lastChoices = Array.isArray(last.choices) ? last.choices.length : -1;
    if (lastChoices !== 0) findings.push(warn('not_separate', `expected usage in a final chunk with "choices": [], got it in a chunk with ${lastChoices} choice(s)`));
    if (withUsage.length > 1) findings.push(warn('repeated', `expected usage once, got it in ${withUsage.length} chunks (cumulative counts?)`));
    const u = s.usage.at(-1);
    if (!u) return conformance([...findings, fail('malformed', 'the usage chunk lacks numeric counts')], '');
    if (u.completionTokens === 0 && u.promptTokens === 0) findings.push(fail('zeros', 'usage reports 0 prompt and 0 completion tokens'));
    else for (const p of usageProblems(u)) findings.push(fail('invariant', p));
    const twin = await usageTwin(ctx);
    if (twin.ok && twin.usage) {
      const seen = `stream prompt_tokens ${u.promptTokens}, non-stream ${twin.usage.promptTokens}`;
      // The same prompt must cost the same prompt tokens; completions may differ in length, so only the
      // prompt count is compared.
      if (u.promptTokens !== twin.usage.promptTokens) findings.push(warn('mismatch', `expected equal prompt counts: ${seen}`));
      else findings.push(note('matches', seen));
    }
    return conformance(findings, `final usage chunk ${u.promptTokens} + ${u.completionTokens} = ${u.totalTokens}, matching the non-stream count`);
  },
});
