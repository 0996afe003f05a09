import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, unjudgeable } from '../../src/engine/verdicts.js';

export default defineProbe({
  id: 'streaming.no_stream_field',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A request without the stream field is answered with one JSON body, not a stream.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  // Reads the smoke call, which sends no stream field.
  cost: { requests: 0, maxTokens: 0 },
  async run(ctx) {
    const x = ctx.control();
    const unusable = unjudgeable(x, 'a 2xx answer');
    if (unusable) return unusable;
    if (x.contentType.includes('text/event-stream') || /^data:/m.test(x.text)) {
      return conformance([fail('streamed', `expected one JSON body without "stream", got an event stream (${x.contentType || 'no content type'})`)], '');
    }
    if (x.json === undefined) return conformance([fail('not_json', `expected one JSON body, got ${x.contentType || 'no content type'}`)], '');
    return conformance([], 'one JSON body');
  },
});
