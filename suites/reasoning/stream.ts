import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { conformance, inconclusive, note, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { describePlace, notReasoning, reasoningOf, streamReasoningOf } from '../support/reasoning.js';
import { PLAIN_STREAM } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

/**
 * The reasoning of a stream comes where the same server puts it without streaming: `delta.reasoning_content`
 * for `message.reasoning_content`, `delta.reasoning` for `message.reasoning`. Another field, `<think>` tags
 * in the streamed content, or no reasoning in a stream whose content came (a gateway that forwards only
 * `delta.content`) warn. The plain stream (counting to twelve) is read; a model the plain request shows
 * no reasoning for is skipped.
 */
export function judgeReasoningStream(x: StreamExchange, smoke: Exchange): ProbeVerdict {
  const skip = notReasoning(smoke);
  if (skip) return inconclusive(`skipped: ${skip}`);
  const unusable = unusableStream(x, 'the reasoning of a stream');
  if (unusable) return unusable;
  const plain = reasoningOf(smoke).place!;
  const s = streamReasoningOf(x);
  const where = s.fields.length > 0 ? s.fields.map((f) => `delta.${f}`).join(' and ') : s.think ? '<think> tags in delta.content' : 'nowhere';
  const seen = `without streaming: ${describePlace(plain)}; streamed: ${where}`;
  const findings: Finding[] = [note('places', seen)];
  if (plain === 'hidden') {
    if (s.fields.length > 0 || s.think) findings.push(note('shown', 'the stream shows reasoning text the non-stream answer hides'));
    return conformance(findings, seen);
  }
  if (s.fields.length === 0 && !s.think) {
    if (s.content.trim() === '') return inconclusive(`no reasoning and no content in the stream (${seen}): nothing to compare`);
    findings.push(warn('no_reasoning_in_stream', `the stream carries content but no reasoning, though the same server returns reasoning without streaming (${seen}): dropped on the way, or not streamed`));
  } else if (s.think) {
    if (plain !== 'think') findings.push(warn('think_inline', `the streamed reasoning comes as <think> tags in delta.content (${seen})`));
  } else {
    const field = plain === 'think' ? undefined : plain;
    if (!field || !s.fields.includes(field)) findings.push(warn('field_differs', `the stream puts its reasoning in another field than the non-stream answer (${seen}): clients read one of them`));
  }
  return conformance(findings, seen);
}

export default defineProbe({
  id: 'reasoning.stream',
  area: 'reasoning',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A streamed answer carries its reasoning in the delta field matching the non-stream message field (reasoning_content or reasoning).',
  verdicts: ['pass', 'warn', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const skip = notReasoning(ctx.control());
    if (skip) return inconclusive(`skipped: ${skip}`);
    return judgeReasoningStream(await ctx.shared(PLAIN_STREAM), ctx.control());
  },
});
