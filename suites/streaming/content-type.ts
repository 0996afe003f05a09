import { defineProbe } from '../../src/engine/probe.js';
import { conformance, conformanceFailure, fail, warn } from '../../src/engine/verdicts.js';
import { errorIn2xx } from '../../src/wire/completion.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';

export default defineProbe({
  id: 'streaming.content_type',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'stream: true is answered with Content-Type: text/event-stream.',
  verdicts: ['pass', 'warn', 'fail'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const streamed = x.status !== undefined && x.status >= 200 && x.status < 300;
    if (!streamed) return conformanceFailure(x, 'a 2xx event stream');
    const got = `content-type "${x.contentType || 'none'}"`;
    if (x.isEventStream) return conformance([], got);
    const error = errorIn2xx(x.json);
    if (error) return conformance([fail('error_in_2xx', `expected text/event-stream, got an error inside an HTTP ${x.status} (${got}): ${error}`)], '');
    if (x.json !== undefined) return conformance([fail('json_body', `expected text/event-stream, got one JSON body (${got}): the stream flag was ignored`)], '');
    if (x.assembled) {
      // The body is SSE under another type: the OpenAI SDK reads it, stricter SSE clients refuse it.
      return conformance([warn('wrong_type', `expected text/event-stream, got ${got} over an SSE body`)], '');
    }
    return conformance([fail('not_sse', `expected text/event-stream, got ${got}`)], '');
  },
});
