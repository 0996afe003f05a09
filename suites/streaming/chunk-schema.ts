import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, warn } from '../../src/engine/verdicts.js';
import { errorMember } from '../../src/wire/error.js';
import { formatDeviation, validateShape } from '../../src/wire/validate.js';
import type { Finding } from '../../src/results/model.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

const SHOWN = 5;

export default defineProbe({
  id: 'streaming.chunk_schema',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'Every chunk has the chat.completion.chunk shape: id, object, created, model, choices[{index, delta, finish_reason}], with one id throughout.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const unusable = unusableStream(x, 'the chunk schema');
    if (unusable) return unusable;
    const s = x.assembled!;
    const findings: Finding[] = [];
    let bad = 0;
    s.chunks.forEach((chunk, i) => {
      // An in-band error event is not a chunk; streaming.error_in_band judges it ("error": null is none).
      if (errorMember(chunk)) return;
      const deviations = validateShape('chunk', chunk);
      if (deviations.length > 0) bad++;
      for (const d of deviations) {
        if (findings.length >= SHOWN) return;
        const msg = `chunk ${i} ${formatDeviation(d)}`;
        findings.push(d.tier === 'lenient' ? fail('schema', msg) : (ctx.options.strict ? fail : warn)('schema_strict', msg));
      }
    });
    if (s.idCount > 1) findings.push(warn('id_changes', `expected one id across chunks, got ${s.idCount >= 10_000 ? 'at least 10,000' : s.idCount}`));
    if (bad > 0 && findings.length >= SHOWN) findings.push(warn('more', `${bad} of ${s.chunks.length} chunks read deviate`));
    return conformance(findings, `all ${s.chunks.length} chunks read match the chunk shape${s.chunkCount > s.chunks.length ? ` (${s.chunkCount} arrived; chatprobe reads the first ${s.chunks.length})` : ''}`);
  },
});
