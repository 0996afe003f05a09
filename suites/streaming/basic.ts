import type { StreamExchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { conformance, fail, inconclusive } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

/**
 * The plain stream as a client assembles it: JSON chunks, content, an end. A stream cut by the output
 * limit chatprobe sends before any content came (a reasoning model whose reasoning took the limit) shows no
 * missing content: the content would have come after the cut (verdict contract, rule 3); nor does one that
 * ended with "stop" before any (a model that answered nothing).
 */
export function judgeBasicStream(x: StreamExchange): ProbeVerdict {
  if (x.ok && !x.assembled) {
    const what = x.json !== undefined ? 'one JSON body (the stream flag was ignored)' : `content-type "${x.contentType || 'none'}"`;
    return conformance([fail('not_event_stream', `expected an event stream, got ${what}`)], '');
  }
  const unusable = unusableStream(x, 'a complete event stream', false);
  if (unusable) return unusable;
  const s = x.assembled!;
  const findings: Finding[] = [];
  if (s.chunks.length === 0) findings.push(fail('no_chunks', 'expected JSON chunks, got none'));
  const choice = s.choices.get(0);
  const content = choice?.content ?? '';
  if (content.length === 0 && s.chunks.length > 0 && choice?.finishReasons.includes('length')) {
    const reasoning = choice.reasoning ? ` (${choice.reasoning.length} characters of reasoning in ${choice.reasoningFields.map((f) => `delta.${f}`).join(', ')} before it)` : '';
    return inconclusive(`expected content in the deltas; the stream (${s.chunkCount} chunks) was cut by the output limit chatprobe sends before any content came${reasoning}: the content may have come after it`);
  }
  if (content.length === 0 && s.chunks.length > 0 && choice?.finishReasons.includes('stop') && !choice.reasoning) {
    // A model may end its turn at once (a sampled end-of-turn token first): the stream then carries no
    // content, as the same answer unstreamed would; streaming.integrity compares the two at temperature 0.
    return inconclusive(`expected content in the deltas; the stream (${s.chunkCount} chunks) ended with finish_reason "stop" before any content: the model may have answered nothing, so nothing shows whether content reaches the client`);
  }
  if (content.length === 0) findings.push(fail('no_content', 'expected content in the deltas, got none'));
  const ended = s.done || (choice?.finishReasons.length ?? 0) > 0;
  if (!ended) findings.push(fail('no_end', 'the stream closed with neither a finish_reason nor [DONE]'));
  return conformance(findings, `${s.chunkCount} chunks assembled into ${JSON.stringify(content.slice(0, 40))}`);
}

export default defineProbe({
  id: 'streaming.basic',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'stream: true gets an event stream whose JSON chunks a client assembles into the answer, and which ends.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  run: async (ctx) => judgeBasicStream(await plainStream(ctx)),
});
