/**
 * Hand-made exchanges for the judgement tests: each goes through the real toExchange, from a status, a
 * content type and a body, so a judgement sees exactly what it would see from a server.
 */
import type { HttpResponse } from '../../src/http/client.js';
import { toExchange, toStreamExchange, type Exchange, type StreamExchange } from '../../src/engine/exchange.js';

let seq = 0;

export function raw(status: number | undefined, body: string, contentType = 'application/json', transport?: HttpResponse['transport']): Exchange {
  const res: HttpResponse = {
    status,
    headers: contentType ? { 'content-type': contentType } : {},
    chunks: body ? [{ at: 1, bytes: Buffer.from(body) }] : [],
    bytes: Buffer.byteLength(body),
    truncated: false,
    cap: 2 * 1024 * 1024,
    durationMs: 5,
    startedAt: 0,
    ...(transport ? { transport } : {}),
  };
  return toExchange(`t${++seq}`, { method: 'POST', path: '/chat/completions', body: {} }, res);
}

export interface Call {
  name: string;
  args: unknown;
}

export interface ChoiceSpec {
  content?: string | null;
  finish?: string | null;
  calls?: Call[];
  reasoning?: string;
  logprobs?: unknown;
}

export interface ReplyOptions extends ChoiceSpec {
  /** [prompt, completion] tokens; null for no usage. */
  usage?: [number, number] | null;
  /** More choices after the first. */
  more?: ChoiceSpec[];
  /** The completion's id; each reply gets its own unless given (a cache hands one back twice). */
  id?: string;
}

let replies = 0;

const choice = (c: ChoiceSpec, index: number, content: string | null) => {
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (c.reasoning) message.reasoning_content = c.reasoning;
  if (c.calls) {
    message.tool_calls = c.calls.map((t, i) => ({
      id: `call_${i}`,
      type: 'function',
      function: { name: t.name, arguments: typeof t.args === 'string' ? t.args : JSON.stringify(t.args) },
    }));
  }
  const out: Record<string, unknown> = { index, message, finish_reason: c.finish === undefined ? (c.calls ? 'tool_calls' : 'stop') : c.finish };
  if (c.logprobs !== undefined) out.logprobs = c.logprobs;
  return out;
};

/** A 200 chat completion with the given content and facts. */
export function reply(content: string | null, o: ReplyOptions = {}): Exchange {
  const choices = [choice(o, 0, content), ...(o.more ?? []).map((c, i) => choice(c, i + 1, c.content ?? null))];
  const body: Record<string, unknown> = { id: o.id ?? `chatcmpl-t${++replies}`, object: 'chat.completion', created: 1, model: 'm', choices };
  const usage: [number, number] | null = o.usage === undefined ? [10, Math.max(1, (content ?? '').split(/\s+/).length)] : o.usage;
  if (usage) body.usage = { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] };
  return raw(200, JSON.stringify(body));
}

/** A refusal in the OpenAI envelope (or any other JSON body given as an object, or text). */
export function refused(status: number, message: string, o: { param?: string | null; body?: unknown; firstTry?: { status: number; message?: string } } = {}): Exchange {
  const body = o.body ?? { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: o.param ?? null, code: null } };
  const x = raw(status, typeof body === 'string' ? body : JSON.stringify(body), typeof body === 'string' ? 'text/plain' : 'application/json');
  if (o.firstTry) x.firstTry = { status: o.firstTry.status, message: o.firstTry.message ?? message };
  return x;
}

/** HTTP 200 whose body is an error: a failure in disguise. */
export const errorIn200 = (message = 'upstream error: the channel returned no answer') => raw(200, JSON.stringify({ error: { message, type: 'upstream_error' } }));

export const timedOut = () => raw(undefined, '', '', { code: 'timeout', kind: 'time-limit', message: 'no answer within 60 s' });

/** n samples with the given contents, in order. */
export const samples = (...contents: string[]) => contents.map((c) => reply(c));

/**
 * A 200 event stream of these chunks (objects are JSON-encoded), ended by `data: [DONE]` unless told
 * otherwise; with `transport`, what then failed on the wire.
 */
export function streamed(chunks: unknown[], o: { done?: boolean; transport?: HttpResponse['transport'] } = {}): StreamExchange {
  const events = chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`);
  if (o.done !== false) events.push('data: [DONE]\n\n');
  const res: HttpResponse = {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    chunks: events.map((e, i) => ({ at: i + 1, bytes: Buffer.from(e) })),
    bytes: events.reduce((n, e) => n + Buffer.byteLength(e), 0),
    truncated: false,
    cap: 2 * 1024 * 1024,
    durationMs: events.length,
    startedAt: 0,
    ...(o.transport ? { transport: o.transport } : {}),
  };
  return toStreamExchange(`s${++seq}`, { method: 'POST', path: '/chat/completions', body: {} }, res);
}

/** A streamed request refused before any event: the status and a JSON error, as a stream exchange. */
export function refusedStream(status: number, message: string): StreamExchange {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } });
  const res: HttpResponse = { status, headers: { 'content-type': 'application/json' }, chunks: [{ at: 1, bytes: Buffer.from(body) }], bytes: body.length, truncated: false, cap: 2 * 1024 * 1024, durationMs: 1, startedAt: 0 };
  return toStreamExchange(`s${++seq}`, { method: 'POST', path: '/chat/completions', body: {} }, res);
}

/** A chat.completion.chunk with one choice and this delta. */
export const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: d, finish_reason: finish }] });
