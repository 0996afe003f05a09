import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { arrivalWindow } from '../../src/engine/lag.js';
import { conformance, fail, inconclusive, note } from '../../src/engine/verdicts.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

// Chunks arriving within BURST_MS of the last one count as the final burst. A real stream spreads its
// content over the generation; a buffering gateway delivers (nearly) all of it in that burst.
const BURST_MS = 10;
const BURST_SHARE = 0.9;
// Below this total time a real stream can arrive in one burst too (a fast local model): too fast to tell.
const MIN_JUDGED_MS = 100;
const MIN_CHUNKS = 5;
// What the rule above takes for granted: an honest stream does not deliver MIN_CHUNKS content chunks
// within BURST_MS, i.e. it spends at least this long per chunk. A hold-up of our own event loop explains a
// burst of n chunks only when it was long enough to have gathered n chunks sent at that pace.
const MIN_CHUNK_GAP_MS = BURST_MS / MIN_CHUNKS;

export default defineProbe({
  id: 'streaming.buffered',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A stream delivers content as it is generated, not all in one burst at the end (fake streaming).',
  verdicts: ['pass', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const unusable = unusableStream(x, 'incremental delivery');
    if (unusable) return unusable;
    if (x.encoding) return inconclusive(`the stream came ${x.encoding}-encoded: chatprobe decoded it whole once it ended, so when each chunk arrived is not known`);
    const times = x.assembled!.contentTimes;
    const window = arrivalWindow(x.startedAt, times);
    return judgeBuffered(times, window ? ctx.loopLagMs(...window) : 0);
  },
});

/**
 * Content chunk arrival times (ms since the request) against fake streaming. Controls: too few chunks or
 * too short an answer say nothing; and a burst read while chatprobe's own event loop was held up
 * (`loopLagMs`: our work, a GC pause, a loaded machine) long enough to have gathered that many chunks of an
 * honest stream may be ours, not the server's. A shorter hold-up cannot explain it: the chunks sent before
 * it began would have been read before it.
 */
export function judgeBuffered(times: readonly number[], loopLagMs: number): ProbeVerdict {
  if (times.length < MIN_CHUNKS) return inconclusive(`only ${times.length} content chunk(s): too few to judge the timing`);
  const last = times.at(-1)!;
  const inBurst = times.filter((t) => last - t <= BURST_MS).length;
  const share = inBurst / times.length;
  const seen = `${inBurst} of ${times.length} content chunks in the last ${BURST_MS} ms; first content at ${Math.round(times[0]!)} ms, last at ${Math.round(last)} ms`;
  if (share < BURST_SHARE) return conformance([note('timing', seen)], seen);
  if (last < MIN_JUDGED_MS) return inconclusive(`${seen}: the whole answer took under ${MIN_JUDGED_MS} ms, too fast to tell streaming from buffering`);
  const gathered = (inBurst - 1) * MIN_CHUNK_GAP_MS;
  if (loopLagMs > BURST_MS && loopLagMs >= gathered) {
    return inconclusive(`${seen}, but chatprobe's own event loop was held up ${Math.round(loopLagMs)} ms while it arrived, long enough to gather ${inBurst} chunks sent ${MIN_CHUNK_GAP_MS} ms apart: the burst may be ours, not the server's`);
  }
  return conformance([fail('buffered', `expected content spread over the generation, got ${seen}: the stream is buffered`)], '');
}
