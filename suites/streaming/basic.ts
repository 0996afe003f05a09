import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/report/model.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.basic',
  area: 'streaming',
  kind: 'conformance',
  requirement: 'stream: true gets an event stream whose JSON chunks a client assembles into the answer, and which ends.',
  verdicts: ['pass', 'fail'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    if (x.ok && !x.assembled) {
      const what = x.json !== undefined ? 'one JSON body (the stream flag was ignored)' : `content-type "${x.contentType || 'none'}"`;
      return conformance([fail('not_event_stream', `expected an event stream, got ${what}`)], '');
    }
    const unusable = unusableStream(x, 'a complete event stream', false);
    if (unusable) return unusable;
    const s = x.assembled!;
    const findings: Finding[] = [];
    if (s.chunks.length === 0) findings.push(fail('no_chunks', 'expected JSON chunks, got none'));
    const content = s.choices.get(0)?.content ?? '';
    if (content.length === 0) findings.push(fail('no_content', 'expected content in the deltas, got none'));
    const ended = s.done || (s.choices.get(0)?.finishReasons.length ?? 0) > 0;
    if (!ended) findings.push(fail('no_end', 'the stream closed with neither a finish_reason nor [DONE]'));
    return conformance(findings, `${s.chunkCount} chunks assembled into ${JSON.stringify(content.slice(0, 40))}`);
  },
});
