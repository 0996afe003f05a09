import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, warn } from '../../src/engine/verdicts.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.done',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
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
    const findings = s.afterDone > 0 ? [warn('after_done', `${s.afterDone} event(s) after [DONE]`)] : [];
    // OpenAI's SDKs stop at [DONE]; a client that reads to the end of the body waits on.
    if (x.leftOpen) findings.push(warn('left_open', 'the server kept the stream open after data: [DONE] (chatprobe stopped reading 2 s later): a client that reads to the end of the body, not to [DONE], hangs'));
    return conformance(findings, 'data: [DONE] ends the stream');
  },
});
