import type { StreamExchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import { conformanceFailure, errored, inconclusive, ourCut } from '../../src/engine/verdicts.js';

/**
 * The verdict when a stream cannot be judged for `what`, else undefined: a refused request, an answer that
 * is no event stream (streaming.content_type judges that), a stream that stalled or broke after 200, or
 * (when the probe reads chunks) a stream with no JSON chunk in it (streaming.framing judges that).
 */
export function unusableStream(x: StreamExchange, what: string, needChunks = true): ProbeVerdict | undefined {
  const streamed = x.status !== undefined && x.status >= 200 && x.status < 300;
  if (!streamed) return conformanceFailure(x, what);
  if (!x.assembled) {
    return inconclusive(`cannot judge ${what}: the answer is ${x.contentType || 'untyped'}, not an event stream (see streaming.content_type)`);
  }
  if (x.truncated) return inconclusive(`cannot judge ${what}: ${ourCut(x)} (after ${x.sse?.eventCount ?? 0} event(s))`);
  if (x.transport) {
    const how = x.transport.code !== 'timeout' ? 'broke' : x.transport.kind === 'body-stall' ? 'stalled (no bytes within --timeout)' : 'ran past --timeout';
    return errored(x.transport.code, x, `expected ${what}; the stream ${how} after ${x.sse?.eventCount ?? 0} event(s)`);
  }
  if (needChunks && x.assembled.chunks.length === 0) {
    return inconclusive(`cannot judge ${what}: the stream carried no JSON chunk (see streaming.framing)`);
  }
  return undefined;
}
