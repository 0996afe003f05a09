import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal, unreadable } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { isObject } from '../../src/wire/json.js';
import type { Finding } from '../../src/results/model.js';
import { contentOf } from '../support/params.js';
import { carried, PARAMS_TOGETHER, withOthers } from '../support/together.js';

const TOP = 2;

/** Per-token logprobs are the server's own numbers: a mechanical effect, present or not. */
export function judgeLogprobs(x: Exchange, control: Exchange): ProbeVerdict {
  if (!x.ok) return refusal(x, control, `logprobs: true, top_logprobs: ${TOP}`, ['logprobs', 'top_logprobs']);
  const none = unreadable(x, 'choice');
  if (none) return none;
  const choice = isObject(x.json) && Array.isArray(x.json.choices) && isObject(x.json.choices[0]) ? x.json.choices[0] : {};
  const lp = choice.logprobs;
  if (!isObject(lp)) return ignored(`expected choices[0].logprobs, got ${JSON.stringify(lp ?? null)}`);
  if (!Array.isArray(lp.content)) {
    // The legacy completions shape ({tokens, token_logprobs, top_logprobs}) still shows the effect.
    if (Array.isArray(lp.tokens)) {
      return { ...honoured('logprobs returned, but in the legacy completions shape (tokens / token_logprobs)'), findings: [{ severity: 'warn', code: 'legacy_shape', message: 'logprobs in the legacy completions shape' }] };
    }
    return ignored(`expected choices[0].logprobs.content[], got keys ${JSON.stringify(Object.keys(lp))}`);
  }
  const entries = lp.content.filter(isObject);
  if (entries.length === 0) {
    // No content token, no entry: an answer whose limit the reasoning took (or that said nothing) shows nothing.
    const finish = readChoices(x.json)[0]?.finishReason;
    if (contentOf(x) === '') {
      const why = finish === 'length' ? 'cut by the output limit chatprobe sends before any content (reasoning first, or nothing)' : `finish_reason ${JSON.stringify(finish ?? null)}`;
      return inconclusive(`expected one logprobs entry per token, got an empty logprobs.content, but the answer has no content token to carry one: ${why}`);
    }
    return ignored('expected one logprobs entry per token, got an empty logprobs.content');
  }
  const findings: Finding[] = [];
  const text = entries.map((e) => (typeof e.token === 'string' ? e.token : '')).join('');
  const content = contentOf(x);
  if (text !== content) findings.push({ severity: 'warn', code: 'tokens', message: `tokens concatenate to ${JSON.stringify(text.slice(0, 40))}, content is ${JSON.stringify(content.slice(0, 40))}` });
  const positive = entries.filter((e) => typeof e.logprob !== 'number' || e.logprob > 0).length;
  if (positive > 0) findings.push({ severity: 'warn', code: 'logprob', message: `${positive} entr${positive === 1 ? 'y' : 'ies'} with a logprob that is not a number ≤ 0` });
  const short = entries.filter((e) => !Array.isArray(e.top_logprobs) || e.top_logprobs.length !== TOP).length;
  if (short > 0) findings.push({ severity: 'warn', code: 'top_logprobs', message: `${short} entr${short === 1 ? 'y' : 'ies'} without exactly ${TOP} top_logprobs` });
  const seen = `${entries.length} token entries${findings.length ? `; ${findings.map((f) => f.message).join('; ')}` : ', each with 2 alternatives, concatenating to the content'}`;
  return { ...honoured(`expected per-token logprobs; got ${seen}`), findings };
}

export default defineProbe({
  id: 'parameters.logprobs',
  area: 'parameters',
  kind: 'capability',
  requirement: `logprobs: true with top_logprobs: ${TOP} returns choices[].logprobs.content[], one entry per token with ${TOP} alternatives, logprob ≤ 0, tokens concatenating to the content.`,
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The smoke prompt with logprobs, in one request with the other parameters of PARAMS_TOGETHER (n: 2
  // among them: the judgement reads the first choice only).
  cost: { requests: 0, maxTokens: 0, shared: [PARAMS_TOGETHER] },
  async run(ctx) {
    const c = await carried(ctx, 'logprobs');
    return withOthers(judgeLogprobs(c.x, ctx.control()), c, 'logprobs');
  },
});
