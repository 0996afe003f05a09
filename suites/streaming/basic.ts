import { defineProbe } from '../../src/engine/probe.js';
import { conformance, conformanceFailure, fail, note, warn } from '../../src/engine/verdicts.js';
import { formatDeviation, validateShape } from '../../src/spec/validate.js';
import type { Finding } from '../../src/report/model.js';
import { countingPrompt, user } from '../prompts.js';

export default defineProbe({
  id: 'streaming.basic',
  area: 'streaming',
  kind: 'conformance',
  requirement:
    'stream: true answers with text/event-stream: data events of chat.completion.chunk JSON separated by blank lines, one finish_reason, then data: [DONE].',
  cost: { requests: 1, maxTokens: 16 },
  async run(ctx) {
    const x = await ctx.stream({ messages: [user(countingPrompt(5))] });
    if (!x.ok) return conformanceFailure(x, 'a 2xx event stream');
    const findings: Finding[] = [];
    if (!x.isEventStream || !x.assembled || !x.sse) {
      const what = x.json !== undefined ? 'one JSON body (the stream flag was ignored)' : `content-type "${x.contentType || 'none'}"`;
      return conformance([fail('not_event_stream', `expected text/event-stream, got ${what}`)], '');
    }
    const { facts } = x.sse;
    const s = x.assembled;
    if (x.truncated) findings.push(fail('body_too_large', `the stream passed the ${x.bytes}-byte cap`));
    if (facts.multiLineData > 0) {
      findings.push(fail('framing', `${facts.multiLineData} event(s) with several data lines: events separated by a single newline cannot be parsed by SSE clients`));
    }
    if (s.nonJson.length > 0) findings.push(fail('non_json_data', `data that is neither JSON nor [DONE]: ${JSON.stringify(s.nonJson[0])}`));
    if (s.errors.length > 0) findings.push(fail('error_in_band', `an error inside the stream after 200: ${JSON.stringify(s.errors[0]).slice(0, 200)}`));
    if (s.chunks.length === 0) findings.push(fail('no_chunks', 'the stream carried no chunk'));
    let schemaFindings = 0;
    s.chunks.forEach((chunk, i) => {
      for (const d of validateShape('chunk', chunk)) {
        if (schemaFindings++ >= 4) return;
        const msg = `chunk ${i} ${formatDeviation(d)}`;
        findings.push(d.tier === 'lenient' ? fail('chunk_schema', msg) : warn('chunk_schema_strict', msg));
      }
    });
    if (s.ids.length > 1) findings.push(warn('chunk_id', `expected one id across chunks, got ${s.ids.length}`));
    const first = s.choices.get(0);
    if (!first || first.content.length === 0) findings.push(fail('no_content', 'the assembled content is empty'));
    const finishes = first?.finishReasons.length ?? 0;
    if (finishes === 0) findings.push(fail('finish_reason', 'no chunk carried a finish_reason'));
    else if (finishes > 1) findings.push(warn('finish_reason', `expected one finish_reason, got ${finishes}`));
    if (first && first.roles.length === 0) findings.push(warn('role', 'no delta carried role "assistant"'));
    if (!s.done) findings.push(warn('done', 'the stream ended without data: [DONE]'));
    if (s.afterDone > 0) findings.push(warn('after_done', `${s.afterDone} event(s) after [DONE]`));
    if (facts.strayLines.length > 0) findings.push(warn('stray_lines', `lines that are no SSE field: ${JSON.stringify(facts.strayLines[0])}`));
    if (facts.unterminatedTail) findings.push(warn('unterminated', 'the last event was not closed by a blank line'));
    if (facts.bom) findings.push(warn('bom', 'the stream starts with a byte-order mark'));
    if (facts.otherFields.length > 0) findings.push(note('sse_fields', `SSE fields besides data: ${facts.otherFields.join(', ')}`));
    if (facts.commentCount > 0) findings.push(note('comments', `${facts.commentCount} comment line(s), e.g. ${JSON.stringify(facts.comments[0])}`));
    if (facts.crlf || facts.bareCr) findings.push(note('line_endings', facts.bareCr ? 'bare CR line endings' : 'CRLF line endings'));
    if (facts.dataWithoutSpace) findings.push(note('data_no_space', '"data:" without a space'));
    return conformance(
      findings,
      `${x.sse.eventCount} events, ${s.chunks.length} chunks, content ${JSON.stringify(first?.content.slice(0, 40))}, [DONE] present`,
    );
  },
});
