import type { GeneratedChoice } from './generate.js';
import type { ProfileModel, StreamQuirks } from './profile.js';

/** An answer of the pseudo-model before it is put on the wire. */
export interface Answer {
  id: string;
  created: number;
  model: ProfileModel;
  choices: GeneratedChoice[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; completion_tokens_details?: { reasoning_tokens: number } };
  /** The backend configuration's mark (Quirks.systemFingerprint); absent: null. */
  systemFingerprint?: string;
}

function finishOf(a: Answer, c: GeneratedChoice): string | null {
  const q = a.model.quirks;
  if (c.finish === 'stop' && q.finishReason !== undefined) return q.finishReason;
  return c.finish;
}

function modelName(a: Answer): string {
  return a.model.quirks.echoModel ?? a.model.id;
}

export function completionBody(a: Answer): Record<string, unknown> {
  const q = a.model.quirks;
  if (q.errorIn200) {
    return { error: { message: 'upstream error: the channel returned no answer', type: 'upstream_error', code: 'bad_response' } };
  }
  const choices = a.choices.map((c, index) => {
    const message: Record<string, unknown> = { role: 'assistant', content: q.emptyContent ? '' : c.content };
    if (q.emptyContent && c.content) message.reasoning_content = c.content;
    const place = q.reasoning?.place ?? 'reasoning_content';
    if (c.reasoning && place === 'think') message.content = `<think>${c.reasoning}</think>${c.content ?? ''}`;
    else if (c.reasoning && place !== 'hidden') message[place] = c.reasoning;
    if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls;
    const choice: Record<string, unknown> = { index, message, finish_reason: finishOf(a, c) };
    if (!q.omitStrictFields) {
      message.refusal = null;
      choice.logprobs = c.logprobs ? { content: c.logprobs, refusal: null } : null;
    } else if (c.logprobs) {
      choice.logprobs = { content: c.logprobs };
    }
    if (q.omitChoiceIndex) delete choice.index;
    return choice;
  });
  const body: Record<string, unknown> = { id: a.id, object: 'chat.completion', created: a.created, model: modelName(a), choices };
  if (!q.omitStrictFields || a.systemFingerprint) body.system_fingerprint = a.systemFingerprint ?? null;
  if (!q.omitUsage) body.usage = a.usage;
  return body;
}

type ToolCall = GeneratedChoice['toolCalls'][number];

/** The `delta.tool_calls[]` fragments of one call, streamed the way the profile's server streams them. */
function toolFragments(how: StreamQuirks['toolCalls'], i: number, call: ToolCall): Record<string, unknown>[] {
  if (how === 'dropped') return [];
  const index = how === 'no-index' ? {} : { index: how === 'index-zero' ? 0 : i };
  const id = how === 'empty-id' ? '' : call.id;
  const name = call.function.name;
  const args = call.function.arguments;
  if (how === 'one-chunk') return [{ ...index, id, type: 'function', function: { name, arguments: args } }];
  // As OpenAI streams them: id, type and name on the first fragment, then the arguments in pieces.
  const first = how === 'split-name' ? [{ ...index, id, type: 'function', function: { name: name.slice(0, 4), arguments: '' } }, { ...index, function: { name: name.slice(4) } }] : [{ ...index, id, type: 'function', function: { name, arguments: '' } }];
  const pieces: string[] = [];
  for (let at = 0; at < args.length; at += 8) pieces.push(args.slice(at, at + 8));
  if (how === 'bad-args') pieces.pop();
  if (how === 'repeat-args' && pieces.length > 1) pieces.splice(1, 0, pieces[1]!);
  return [...first, ...pieces.map((p) => ({ ...index, function: { arguments: p } }))];
}

/** One SSE event as the server will frame it, or a directive for the writer. */
export type StreamStep = { data: string } | { comment: string } | { stall: true } | { close: true };

/** The events of a streamed answer, with every quirk of the profile applied. */
export function streamSteps(a: Answer, includeUsage: boolean): StreamStep[] {
  const s: StreamQuirks = a.model.quirks.stream;
  const steps: StreamStep[] = [];
  const usageWanted = s.usage === 'always' || (s.usage === 'requested' && includeUsage);
  // A racing gateway: the usage comes inside a copy of the last content chunk, zero usage on every other.
  const inRepeat = s.usage === 'in-repeat' && includeUsage;
  const zero = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const base = () => ({ id: a.id, object: s.chunkObject, created: a.created, model: modelName(a), system_fingerprint: a.systemFingerprint ?? null });
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null | undefined, extra: Record<string, unknown> = {}) => {
    const choice: Record<string, unknown> = { index, delta, logprobs: null };
    if (finish !== undefined) choice.finish_reason = finish;
    return { ...base(), choices: [choice], ...(usageWanted && s.usage === 'requested' ? { usage: null } : {}), ...(inRepeat ? { usage: zero } : {}), ...extra };
  };
  const intermediate = s.intermediateFinish === 'null' ? null : s.intermediateFinish === 'empty' ? '' : undefined;
  const contentKey = a.model.quirks.emptyContent ? 'reasoning_content' : 'content';
  const r = a.model.quirks.reasoning;
  const streamPlace = r ? (r.streamPlace ?? (r.place === 'hidden' ? 'none' : r.place)) : 'reasoning_content';
  const push = (body: unknown) => {
    if (s.comments) steps.push({ comment: 'PING' });
    steps.push({ data: JSON.stringify(body) });
  };
  let completion = 0;
  for (const [index, c] of a.choices.entries()) {
    let deltas = 0;
    const roleFor = () => {
      const first = deltas++ === 0;
      if (s.role === 'wrong' && first) return { role: 'model' };
      return s.role === 'every' || (s.role === 'first' && first) ? { role: 'assistant' } : {};
    };
    push(chunk(index, { ...roleFor(), content: c.toolCalls.length > 0 ? null : '' }, intermediate));
    // The reasoning streams first, a word a chunk, where the profile's server streams it.
    if (c.reasoning && streamPlace !== 'none') {
      const words = c.reasoning.split(/(?<= )/);
      if (streamPlace === 'think') words[0] = `<think>${words[0]}`;
      if (streamPlace === 'think') words[words.length - 1] += '</think>';
      for (const w of words) push(chunk(index, { ...roleFor(), [streamPlace === 'think' ? 'content' : streamPlace]: w }, intermediate));
    }
    for (const [i, call] of c.toolCalls.entries()) {
      for (const fragment of toolFragments(s.toolCalls, i, call)) push(chunk(index, { ...roleFor(), tool_calls: [fragment] }, intermediate));
    }
    let last: Record<string, unknown> | undefined;
    for (const [i, t] of c.tokens.entries()) {
      if (s.errorAfter !== undefined && i === s.errorAfter) {
        const error = { message: 'upstream connection reset', type: 'server_error', code: 'upstream_error' };
        steps.push({ data: s.errorDepth > 0 ? `{"error":${'['.repeat(s.errorDepth)}${']'.repeat(s.errorDepth)}}` : JSON.stringify({ error }) });
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
      if (s.usage === 'every') {
        const counted = Math.round(completion * (a.model.quirks.usageInflate ?? 1));
        extra.usage = { ...a.usage, completion_tokens: counted, total_tokens: a.usage.prompt_tokens + counted };
      }
      if (s.usage === 'last-content' && i === c.tokens.length - 1 && includeUsage) extra.usage = a.usage;
      const body = chunk(index, { ...roleFor(), [contentKey]: t }, intermediate, extra);
      if (c.logprobs?.[i]) (body.choices[0] as Record<string, unknown>).logprobs = { content: [c.logprobs[i]] };
      if (s.race === 'swap' && i === 4 && i + 1 < c.tokens.length) {
        // Held back: it goes out after the piece that should follow it.
        last = body;
        continue;
      }
      push(body);
      if (s.race === 'swap' && i === 5 && last) push(last);
      if (s.race === 'repeat' && i % 5 === 2) push(body);
      last = body;
    }
    if (inRepeat && last) {
      // The usage in a copy of the last piece, ended "stop"; the finish chunk after it carries zero usage.
      const copy = structuredClone(last) as { choices: Record<string, unknown>[] };
      copy.choices[0]!.finish_reason = finishOf(a, c);
      push({ ...copy, usage: a.usage });
    }
    const finish = chunk(index, { ...roleFor() }, finishOf(a, c), s.usage === 'every' ? { usage: a.usage } : {});
    if (!s.noFinish) push(finish);
    if (!s.noFinish && s.finishTwice) push(finish);
  }
  if (usageWanted) push({ ...base(), choices: [], usage: a.usage });
  if (s.done) steps.push({ data: '[DONE]' });
  if (s.afterDone) steps.push({ data: JSON.stringify({ ...base(), choices: [] }) });
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
