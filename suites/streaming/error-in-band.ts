import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, inconclusive } from '../../src/engine/verdicts.js';
import type { StreamExchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import { quotedMessage } from '../../src/wire/error.js';
import { MAX_JSON_DEPTH } from '../../src/wire/json-depth.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.error_in_band',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A stream that began with 200 finishes properly: no `data: {"error": …}` event, no close without a finish_reason.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    return judgeErrorInBand(await plainStream(ctx));
  },
});

/** The judgement, a pure function of the plain stream. */
export function judgeErrorInBand(x: StreamExchange): ProbeVerdict {
  const unusable = unusableStream(x, 'a stream that finishes');
  if (unusable) return unusable;
  const s = x.assembled!;
  if (s.errors.length > 0) {
    const e = s.errors[0]!;
    const said = quotedMessage(e, 200) || `an "error" member with no message (${e.shape})`;
    const stated = e.status !== undefined ? ` (status ${e.status} in the event)` : '';
    return conformance([fail('error_event', `an error inside the stream after 200: ${said}${stated}`)], '');
  }
  // An event too deep to parse may have been an error: nothing tells either way.
  if (s.tooDeep > 0) return inconclusive(`${s.tooDeep} event(s) of JSON nested deeper than ${MAX_JSON_DEPTH} levels were not parsed: whether one was an error cannot be told`);
  const finished = (s.choices.get(0)?.finishReasons.length ?? 0) > 0;
  if (!finished && !s.done) {
    return conformance([fail('silent_close', `the stream closed after ${s.chunkCount} chunk(s) with no finish_reason and no [DONE]`)], '');
  }
  return conformance([], 'the stream finished without an error event');
}
