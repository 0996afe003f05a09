import { defineProbe } from '../../src/engine/probe.js';
import { conformance, fail, note, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { MAX_JSON_DEPTH } from '../../src/wire/json-depth.js';
import { PLAIN_STREAM, plainStream } from '../support/shared.js';
import { unusableStream } from '../support/streams.js';

export default defineProbe({
  id: 'streaming.framing',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'Events are `data: <json>` lines closed by a blank line; comments, CRLF and `data:` without a space are legal; non-JSON data and events separated by a single newline are not.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [PLAIN_STREAM] },
  async run(ctx) {
    const x = await plainStream(ctx);
    const unusable = unusableStream(x, 'the event framing', false);
    if (unusable) return unusable;
    const { facts } = x.sse!;
    const s = x.assembled!;
    const findings: Finding[] = [];
    if (facts.multiLineData > 0) {
      findings.push(fail('single_newline', `${facts.multiLineData} event(s) with several data lines: events separated by a single newline, which SSE clients join into one unparseable event`));
    }
    if (s.nonJson.length > 0) findings.push(fail('non_json', `data that is neither JSON nor [DONE]: ${JSON.stringify(s.nonJson[0])}`));
    if (facts.strayLines.length > 0) findings.push(warn('stray_lines', `lines that are no SSE field: ${JSON.stringify(facts.strayLines[0])}`));
    if (facts.otherFields.length > 0) findings.push(warn('sse_fields', `SSE fields besides data (${facts.otherFields.join(', ')}): legal, but unexpected from a chat stream`));
    if (facts.unterminatedTail) findings.push(warn('unterminated', 'the last event was not closed by a blank line'));
    if (facts.bom) findings.push(warn('bom', 'the stream starts with a byte-order mark'));
    if (facts.commentCount > 0) findings.push(note('comments', `${facts.commentCount} comment line(s), e.g. ${JSON.stringify(facts.comments[0])}`));
    if (facts.crlf) findings.push(note('crlf', 'CRLF line endings'));
    if (facts.bareCr) findings.push(note('bare_cr', 'bare CR line endings'));
    if (facts.dataWithoutSpace) findings.push(note('data_no_space', '"data:" without a space'));
    const v = conformance(findings, `${x.sse!.eventCount} well-framed events`);
    // Not parsed is our limit: what such an event holds, JSON or not, cannot be told.
    if (s.tooDeep > 0 && v.verdict !== 'fail') {
      return { ...v, verdict: 'inconclusive', observed: `${s.tooDeep} event(s) nested deeper than ${MAX_JSON_DEPTH} levels were not parsed (chatprobe's own limit): whether their data is JSON cannot be told` };
    }
    return v;
  },
});
