import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, warn } from '../../src/engine/verdicts.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.done',
  area: 'streaming',
  kind: 'conformance',
  requirement: 'The stream is terminated by `data: [DONE]`, and nothing follows it.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const unusable = unusableStream(x, 'data: [DONE]');
    if (unusable) return unusable;
    const s = x.assembled!;
    // Clients that wait for [DONE] (rather than the close) hang on a stream that simply ends.
    if (!s.done) return conformance([fail('missing', 'expected data: [DONE] at the end, the stream simply closed')], '');
    if (s.chunkCount === 0 && s.afterDone > 0) {
      return conformance([fail('done_first', `the stream began with data: [DONE]: clients stop there and read none of the ${s.afterDone} event(s) after it`)], '');
    }
    if (s.afterDone > 0) return conformance([warn('after_done', `${s.afterDone} event(s) after [DONE]`)], '');
    return conformance([], 'data: [DONE] ends the stream');
  },
});
