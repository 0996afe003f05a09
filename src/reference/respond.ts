import type { ProfileModel, StreamQuirks } from './profile.js';

/** An answer of the pseudo-model before it is put on the wire. */
export interface Answer {
  id: string;
  created: number;
  model: ProfileModel;
  tokens: string[];
  finish: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function finishOf(a: Answer): string | null {
  const q = a.model.quirks;
  if (a.finish === 'stop' && q.finishReason !== undefined) return q.finishReason;
  return a.finish;
}

function modelName(a: Answer): string {
  return a.model.quirks.echoModel ?? a.model.id;
}

export function completionBody(a: Answer): Record<string, unknown> {
  const q = a.model.quirks;
  if (q.errorIn200) {
    return { error: { message: 'upstream error: the channel returned no answer', type: 'upstream_error', code: 'bad_response' } };
  }
  const text = a.tokens.join('');
  const message: Record<string, unknown> = q.emptyContent ? { role: 'assistant', content: '', reasoning_content: text } : { role: 'assistant', content: text };
  const choice: Record<string, unknown> = { index: 0, message, finish_reason: finishOf(a) };
  if (!q.omitStrictFields) {
    message.refusal = null;
    choice.logprobs = null;
  }
  if (q.omitChoiceIndex) delete choice.index;
  const body: Record<string, unknown> = { id: a.id, object: 'chat.completion', created: a.created, model: modelName(a), choices: [choice] };
  if (!q.omitStrictFields) body.system_fingerprint = null;
  if (!q.omitUsage) body.usage = a.usage;
  return body;
}

/** One SSE event as the server will frame it, or a raw directive for the writer. */
export type StreamStep = { data: string } | { comment: string } | { stall: true } | { close: true };

/** The events of a streamed answer, with every quirk of the profile applied. */
export function streamSteps(a: Answer, includeUsage: boolean): StreamStep[] {
  const s: StreamQuirks = a.model.quirks.stream;
  const steps: StreamStep[] = [];
  const usageWanted = s.usage === 'always' || (s.usage === 'requested' && includeUsage);
  const chunk = (delta: Record<string, unknown>, finish: string | null | undefined, extra: Record<string, unknown> = {}) => {
    const choice: Record<string, unknown> = { index: 0, delta, logprobs: null };
    if (finish !== undefined) choice.finish_reason = finish;
    const body: Record<string, unknown> = { id: a.id, object: s.chunkObject, created: a.created, model: modelName(a), system_fingerprint: null, choices: [choice] };
    if (usageWanted && s.usage === 'requested') body.usage = null;
    return { ...body, ...extra };
  };
  const intermediate = s.intermediateFinish === 'null' ? null : s.intermediateFinish === 'empty' ? '' : undefined;
  const roleFor = (i: number) => {
    if (s.role === 'wrong' && i === 0) return { role: 'model' };
    return s.role === 'every' || (s.role === 'first' && i === 0) ? { role: 'assistant' } : {};
  };
  const contentKey = a.model.quirks.emptyContent ? 'reasoning_content' : 'content';
  const push = (body: unknown) => {
    if (s.comments) steps.push({ comment: 'PING' });
    steps.push({ data: JSON.stringify(body) });
  };
  push(chunk({ ...roleFor(0), content: '' }, intermediate));
  let completion = 0;
  for (const [i, t] of a.tokens.entries()) {
    if (s.errorAfter !== undefined && i === s.errorAfter) {
      steps.push({ data: JSON.stringify({ error: { message: 'upstream connection reset', type: 'server_error', code: 'upstream_error' } }) });
      steps.push({ close: true });
      return steps;
    }
    if (s.closeAfter !== undefined && i === s.closeAfter) {
      steps.push({ close: true });
      return steps;
    }
    if (s.stallAfter !== undefined && i === s.stallAfter) {
      steps.push({ stall: true });
      return steps;
    }
    completion++;
    const extra: Record<string, unknown> = {};
    if (s.usage === 'every') extra.usage = { ...a.usage, completion_tokens: completion, total_tokens: a.usage.prompt_tokens + completion };
    if (s.usage === 'last-content' && i === a.tokens.length - 1 && includeUsage) extra.usage = a.usage;
    push(chunk({ ...roleFor(i + 1), [contentKey]: t }, intermediate, extra));
  }
  if (!s.noFinish) {
    const extra: Record<string, unknown> = s.usage === 'every' ? { usage: a.usage } : {};
    push(chunk({ ...roleFor(a.tokens.length + 1) }, finishOf(a), extra));
  }
  if (usageWanted) push({ id: a.id, object: 'chat.completion.chunk', created: a.created, model: modelName(a), system_fingerprint: null, choices: [], usage: a.usage });
  if (s.done) steps.push({ data: '[DONE]' });
  if (s.afterDone) steps.push({ data: JSON.stringify({ id: a.id, object: s.chunkObject, created: a.created, model: modelName(a), choices: [] }) });
  return steps;
}

/** The bytes of one step, framed as the profile frames events. */
export function frame(step: StreamStep, s: StreamQuirks, index: number): string {
  const nl = s.lineEnding === 'crlf' ? '\r\n' : '\n';
  const end = s.singleNewline ? nl : nl + nl;
  if ('comment' in step) return `: ${step.comment}${nl}${nl}`;
  if (!('data' in step)) return '';
  const fields = s.eventLines ? `event: message${nl}id: ${index}${nl}` : '';
  return `${fields}data:${s.noSpace ? '' : ' '}${step.data}${end}`;
}
