import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, conformance, inconclusive, note, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { describePlace, reasoningOf } from '../support/reasoning.js';

/**
 * Where the plain request's reasoning arrives: `message.reasoning_content` (DeepSeek, Qwen, vLLM and SGLang
 * parsers) or `message.reasoning` (OpenRouter, mlx-lm) pass; `<think>` tags inline in the content warn
 * (clients show the thinking as the answer); a content left empty at "stop" with all the text in the
 * reasoning warns. Only a token count (reasoning hidden, as OpenAI's o-series) passes with a note. No
 * reasoning at all is inconclusive, said once here: the other reasoning probes skip such a model.
 */
export function judgeReasoningField(smoke: Exchange): ProbeVerdict {
  const problem = answerProblem(smoke, 'choice');
  if (problem) return inconclusive(`the plain request got no readable answer (${problem}): where reasoning arrives is unknown`);
  const r = reasoningOf(smoke);
  if (!r.place) return inconclusive('no reasoning seen in the plain request: no reasoning field, no <think> tags, no reasoning_tokens (not a reasoning model, or its reasoning is off by default); the other reasoning probes are skipped');
  const findings: Finding[] = [note('place', `reasoning in ${describePlace(r.place)}${r.text ? ` (${r.text.length} characters)` : ''}`)];
  if (r.place === 'think') findings.push(warn('think_inline', 'the reasoning comes as <think> tags inside message.content: clients show it as part of the answer (a reasoning parser on the server would move it to message.reasoning_content)'));
  if (r.content.trim() === '' && r.place !== 'hidden') {
    if (r.finishReason === 'stop') findings.push(warn('empty_content', 'the answer ended ("stop") with an empty content and all its text in the reasoning: clients that read content show nothing'));
    else findings.push(note('cut', `the content is empty and finish_reason is ${JSON.stringify(r.finishReason ?? null)}: the reasoning used the answer's room`));
  }
  return conformance(findings, `reasoning in ${describePlace(r.place)}`);
}

export default defineProbe({
  id: 'reasoning.field',
  area: 'reasoning',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'A reasoning model returns its reasoning apart from the answer (message.reasoning_content or message.reasoning), not as <think> tags in the content, and leaves the answer in content.',
  verdicts: ['pass', 'warn', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0 },
  run: async (ctx) => judgeReasoningField(ctx.control()),
});
