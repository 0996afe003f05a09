/**
 * A streamed answer read as plainly as can be: fetch, the body taken read by read, and a parser of the
 * event-stream format written for this suite, not chatprobe's (src/wire/stream.ts), so the wire rows of the
 * truth table rest on nothing chatprobe computes. What it reports is what the OpenAI streaming format says
 * a client may rely on; llama-server's own form (docs/real-server-evidence.md, "stream: true") is the
 * strictest one: one `data: ` line per event, a blank line after each, nothing else.
 */

/** A stream that has not ended by then was left open: long enough for 64 tokens on a loaded machine. */
const DEADLINE_MS = 60_000;

export interface Stream {
  status: number;
  contentType: string;
  /** Every event's data, in order, with the read (0-based) whose bytes completed it. */
  events: { data: string; read: number }[];
  /** The body is nothing but `data: <value>\n\n` events: no other field, comment, stray line or open tail. */
  framed: boolean;
  /** The server ended the body within the deadline. */
  closed: boolean;
}

/** One streamed request (the body should say `stream: true`). */
export async function askStream(base: string, body: Record<string, unknown>, key?: string): Promise<Stream> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(DEADLINE_MS) });
  const decoder = new TextDecoder();
  let text = '';
  // The length of the text once each read was decoded: which read completed an event.
  const readEnds: number[] = [];
  let closed = true;
  try {
    for await (const piece of res.body ?? []) {
      text += decoder.decode(piece as Uint8Array, { stream: true });
      readEnds.push(text.length);
    }
    text += decoder.decode();
  } catch {
    closed = false;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', events: parseEvents(text, readEnds), framed: /^(data: [^\n]*\n\n)*$/.test(text) && text !== '', closed };
}

/** Events as an SSE client cuts them: blocks between blank lines, their `data:` lines joined by "\n". */
export function parseEvents(text: string, readEnds: readonly number[] = [text.length]): Stream['events'] {
  const events: Stream['events'] = [];
  const blank = /\r?\n\r?\n|\r\r/g;
  let start = 0;
  for (let m = blank.exec(text); m; m = blank.exec(text)) {
    const end = m.index + m[0].length;
    const data = text
      .slice(start, m.index)
      .split(/\r?\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    if (data.length > 0) events.push({ data: data.join('\n'), read: Math.max(0, readEnds.findIndex((e) => e >= end)) });
    start = end;
  }
  return events;
}

/** What the stream shows, summed up: every wire property a streaming probe judges. */
export interface StreamFacts {
  status: number;
  contentType: string;
  framed: boolean;
  closed: boolean;
  /** Events whose data is neither JSON nor [DONE]. */
  notJson: number;
  /** [DONE] came once, as the last event. */
  doneLast: boolean;
  /** The JSON events before [DONE]. */
  chunks: number;
  /** Every chunk: object "chat.completion.chunk", a non-empty string id, an integer created, a string model,
   *  and a choices array whose entries have an integer index, a delta object and a finish_reason key. */
  chunkShape: boolean;
  /** The distinct ids and models of the chunks. */
  ids: number;
  models: string[];
  /** The role of the first chunk's first delta, and every role any delta carries, in order. */
  firstRole: string | null;
  roles: string[];
  /** The non-null finish_reasons, in order; whether the one is in the last chunk that has choices. */
  finishReasons: string[];
  finishLast: boolean;
  /** Every chunk that carries a usage object: its choices, counts, and whether it is the last chunk. */
  usage: { choices: number; prompt: number; completion: number; total: number; last: boolean }[];
  /** Chunks with "choices": []. */
  emptyChoices: number;
  /** Events with an "error" member. */
  errorEvents: number;
  /** delta.content joined, the deltas carrying content, and the reads they came in. */
  content: string;
  contentEvents: number;
  contentReads: number;
  /** Content events completed by the read that completed the last one. */
  contentInLastRead: number;
  /** A delta carries reasoning (reasoning_content, reasoning) or the content <think> tags. */
  reasoning: boolean;
  /** delta.tool_calls fragments. */
  toolCallDeltas: number;
}

type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readStream(s: Stream): StreamFacts {
  const parsed = s.events.map((e) => {
    if (e.data === '[DONE]') return { ...e, done: true as const };
    try {
      return { ...e, json: JSON.parse(e.data) as unknown };
    } catch {
      return { ...e, bad: true as const };
    }
  });
  const doneAt = parsed.findIndex((p) => 'done' in p);
  const chunks = parsed.slice(0, doneAt < 0 ? parsed.length : doneAt).flatMap((p) => ('json' in p && isObject(p.json) ? [{ json: p.json, read: p.read }] : []));
  const withChoices = chunks.filter((c) => Array.isArray(c.json.choices) && c.json.choices.length > 0);
  const choices = withChoices.flatMap((c) => (c.json.choices as unknown[]).filter(isObject).map((choice) => ({ choice, read: c.read })));
  const deltas = choices.map((c) => ({ delta: isObject(c.choice.delta) ? c.choice.delta : {}, read: c.read }));
  const contentDeltas = deltas.filter((d) => typeof d.delta.content === 'string' && d.delta.content !== '');
  const lastContentRead = contentDeltas.at(-1)?.read;
  const finishes = choices.filter((c) => c.choice.finish_reason !== null && c.choice.finish_reason !== undefined);
  const lastWithChoices = withChoices.at(-1)?.json;
  const content = contentDeltas.map((d) => d.delta.content as string).join('');
  return {
    status: s.status,
    contentType: s.contentType,
    framed: s.framed,
    closed: s.closed,
    notJson: parsed.filter((p) => 'bad' in p).length,
    doneLast: doneAt >= 0 && doneAt === parsed.length - 1 && parsed.filter((p) => 'done' in p).length === 1,
    chunks: chunks.length,
    chunkShape:
      chunks.length > 0 &&
      chunks.every(
        ({ json: c }) =>
          c.object === 'chat.completion.chunk' &&
          typeof c.id === 'string' &&
          c.id !== '' &&
          Number.isInteger(c.created) &&
          typeof c.model === 'string' &&
          Array.isArray(c.choices) &&
          c.choices.every((x: unknown) => isObject(x) && Number.isInteger(x.index) && isObject(x.delta) && 'finish_reason' in x),
      ),
    ids: new Set(chunks.map((c) => c.json.id)).size,
    models: [...new Set(chunks.map((c) => String(c.json.model)))],
    firstRole: typeof deltas[0]?.delta.role === 'string' ? deltas[0].delta.role : null,
    roles: deltas.flatMap((d) => (typeof d.delta.role === 'string' ? [d.delta.role] : [])),
    finishReasons: finishes.map((c) => String(c.choice.finish_reason)),
    finishLast: finishes.length === 1 && isObject(lastWithChoices) && lastWithChoices.choices.includes(finishes[0]!.choice),
    usage: chunks
      .filter((c) => isObject(c.json.usage))
      .map((c) => ({
        choices: Array.isArray(c.json.choices) ? c.json.choices.length : -1,
        prompt: c.json.usage.prompt_tokens,
        completion: c.json.usage.completion_tokens,
        total: c.json.usage.total_tokens,
        last: c === chunks.at(-1),
      })),
    emptyChoices: chunks.filter((c) => Array.isArray(c.json.choices) && c.json.choices.length === 0).length,
    errorEvents: parsed.filter((p) => 'json' in p && isObject(p.json) && 'error' in p.json && p.json.error !== null).length,
    content,
    contentEvents: contentDeltas.length,
    contentReads: new Set(contentDeltas.map((d) => d.read)).size,
    contentInLastRead: contentDeltas.filter((d) => d.read === lastContentRead).length,
    reasoning: deltas.some((d) => Boolean(d.delta.reasoning_content || d.delta.reasoning)) || /<think>/.test(content),
    toolCallDeltas: deltas.reduce((n, d) => n + (Array.isArray(d.delta.tool_calls) ? d.delta.tool_calls.length : 0), 0),
  };
}
