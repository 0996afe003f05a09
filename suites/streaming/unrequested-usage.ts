import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, warn } from '../../src/engine/verdicts.js';
import { isObject } from '../../src/wire/json.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.unrequested_usage',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'Without stream_options.include_usage, no chunk carries usage, and none has empty choices.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const unusable = unusableStream(x, 'usage sent unasked');
    if (unusable) return unusable;
    // What follows [DONE] is not read by clients (streaming.done judges it).
    const chunks = x.assembled!.chunks.slice(0, x.assembled!.chunksBeforeDone).filter(isObject);
    // A chunk with "choices": [] breaks every client that reads choices[0] of each chunk.
    const empty = chunks.filter((c) => Array.isArray(c.choices) && c.choices.length === 0);
    if (empty.length > 0) return conformance([fail('empty_choices', `${empty.length} chunk(s) with "choices": [] although usage was not asked for`)], '');
    const carrying = chunks.filter((c) => isObject(c.usage));
    if (carrying.length > 0) return conformance([warn('usage_unasked', `${carrying.length} chunk(s) carry usage although it was not asked for`)], '');
    return conformance([], 'no usage and no empty-choices chunk unasked');
  },
});
