import type { HttpRequest } from '../http/client.js';
import type { CallLog } from './calls.js';
import type { Exchange, StreamExchange } from './exchange.js';
import { SMOKE_PROMPT, SMOKE_RETRY_LIMIT, type ChatBody, type ChatOptions } from './probe.js';
import { LIMIT_KEYS, namesAny } from './verdicts.js';
import { learnRoom, NO_ROOM, withRoom, type ReasoningRoom } from './room.js';
import { readChoices } from '../wire/completion.js';
import { setOwn } from '../own.js';

/** Whether a request body carries an output limit (verdict contract, rule 7). */
export function hasLimit(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  return LIMIT_KEYS.some((k) => typeof (body as Record<string, unknown>)[k] === 'number');
}

/** A chat body (object with messages) sent without an output limit: a harness bug, caught before sending. */
export function assertLimited(req: HttpRequest, probe: string): void {
  const body = req.body;
  if (req.method !== 'POST' || typeof body !== 'object' || body === null || !Array.isArray((body as ChatBody).messages)) return;
  if (!hasLimit(body)) throw new Error(`probe ${probe} sent a chat request without max_tokens or max_completion_tokens`);
}

/** A 4xx that names `key`: the model refuses that limit key (reasoning models refuse max_tokens). */
export function refusesKey(x: Exchange, key: string): boolean {
  return x.status !== undefined && x.status >= 400 && x.status < 500 && !x.cause && namesAny(x, [key]);
}

/** The body with `max_tokens` sent as `max_completion_tokens`. */
export function renameLimit(body: ChatBody): ChatBody {
  return 'max_tokens' in body ? requestBody(undefined, body, true) : body;
}

/**
 * A chat request's body: `model` first (when given), the probe's own fields in their order, `stream: true`
 * with `stream`, and with `rename` the limit sent as `max_completion_tokens` (last, its value the one
 * written as max_tokens). Keys are set as own properties: a probe's `__proto__` key stays a key.
 */
function requestBody(model: string | undefined, body: ChatBody, rename: boolean, stream = false): ChatBody {
  const out: Record<string, unknown> = model === undefined ? {} : { model };
  for (const [key, value] of Object.entries(body)) if (!(rename && key === 'max_tokens')) setOwn(out, key, value);
  if (stream) out.stream = true;
  if (rename) out.max_completion_tokens = body.max_tokens;
  return out as ChatBody;
}

/** How the engine sends a probe's chat request: as the probe asked, and for which shared exchange, if any. */
export type CallerOptions = ChatOptions & {
  /** The shared exchange the request is made for (its key): the record knows the call by it (engine/calls.ts CallAsk). */
  shared?: string;
};

/** Shown each final exchange of a model's caller (a probe's cell, keeping its evidence). */
export interface CallObserver {
  seen(x: Exchange): void;
}

/** This many requests of a model in a row running past --timeout stop its row, as a failed smoke call does. */
export const STALL_AFTER = 2;

/** Thrown by a model's caller once its row has stalled: the probe's cell is "not run", nothing is sent. */
export class RowStalled extends Error {
  constructor(readonly calls: readonly string[]) {
    super(`the model stopped answering: ${calls.length} requests in a row ran past --timeout (${calls.join(', ')}); nothing more was sent to it`);
  }
}

/** Two tries as one exchange: the last answer, every attempt's id, and what the first try got. */
function joined<T extends Exchange>(first: Exchange, second: T, keepFirst: boolean): T {
  const x: T = { ...second, attempts: [...first.attempts, ...second.attempts] };
  if (keepFirst) x.firstTry = { status: first.status, message: first.errorMessage };
  return x;
}

/**
 * How the requests of one model are sent: with the output limit under the key the model accepts, and a
 * 5xx tried once more. Shared by every probe of the model, so the limit key is learnt once.
 */
export class ModelCaller {
  private limitKey: (typeof LIMIT_KEYS)[number] = 'max_tokens';
  /** The smoke call's uncapped first try, when it ran past --timeout and a capped try answered. */
  runaway: Exchange | undefined;
  /** The calls that stalled the row, once STALL_AFTER in a row ran past --timeout. */
  stalled: string[] | undefined;
  private timeouts: string[] = [];
  /** Room for the model's reasoning in its limits, learnt from the smoke call (engine/room.ts). */
  room: ReasoningRoom = NO_ROOM;
  /**
   * Calls sent with room (or without it, for a model whose reasoning could not be measured) whose answer
   * was cut by the limit: their cells say what room they had. Kept only for such models.
   */
  private readonly cutWithRoom = new Set<string>();

  constructor(
    private readonly log: CallLog,
    readonly model: string,
  ) {}

  /** A chat request; `observer` is shown its exchange once it is final (the probe's evidence), before the caller is. */
  chat(body: ChatBody, probe: string, options: CallerOptions = {}, observer?: CallObserver): Promise<Exchange> {
    return this.call(body, probe, options, false, observer);
  }

  stream(body: ChatBody, probe: string, options: CallerOptions = {}, observer?: CallObserver): Promise<StreamExchange> {
    return this.call(body, probe, options, true, observer) as Promise<StreamExchange>;
  }

  /**
   * The smoke call: the plain request with no optional parameter and no limit. If it does not end within
   * --timeout, it is sent once more with a small limit: a model that never stops on its own (a broken chat
   * template or EOS token, common on local servers) still gets its row audited, with limits. Its answer
   * sets the room the model's later limits get for its reasoning (engine/room.ts).
   */
  async smoke(signal: AbortSignal | undefined): Promise<Exchange> {
    const x = await this.plainRequest(signal);
    this.room = learnRoom(x);
    return x;
  }

  private async plainRequest(signal: AbortSignal | undefined): Promise<Exchange> {
    const messages = [{ role: 'user', content: SMOKE_PROMPT }];
    const first = await this.log.send({ method: 'POST', path: '/chat/completions', body: { model: this.model, messages } }, 'smoke', this.model);
    if (first.transport?.code !== 'timeout' || signal?.aborted) return first;
    const capped = await this.chat({ messages, max_tokens: SMOKE_RETRY_LIMIT }, 'smoke');
    if (!capped.ok) return first;
    this.runaway = first;
    return joined(first, capped, false);
  }

  /** Whether one of these calls went with the model's room (or its lack) and was cut by the limit. */
  cutShort(calls: readonly string[]): boolean {
    return this.cutWithRoom.size > 0 && calls.some((id) => this.cutWithRoom.has(id));
  }

  /**
   * Counts timeouts in a row: a model that answered its smoke call and then stalls costs two, not every
   * probe. Only a timeout with no answer at all counts, headers alone being none (a gateway may send them
   * at once, then wait on a model that never answers) unless they open an event stream (llama.cpp sends
   * those once a slot starts on the prompt: a model at work). A stream that began and never ended, or a
   * body cut halfway, is a model answering, judged in its own cell, and however the calls of a model
   * interleave, two such answers must not stop a row whose other calls succeed. A call the run's stop
   * cut short is no timeout (its code says which stop).
   */
  private note<T extends Exchange>(x: T): T {
    if (x.transport?.code !== 'timeout' || x.bytes > 0 || x.contentType.includes('text/event-stream')) this.timeouts = [];
    else if (!this.stalled) {
      this.timeouts.push(x.callId);
      if (this.timeouts.length >= STALL_AFTER) this.stalled = [...this.timeouts];
    }
    return x;
  }

  /** One chat request of the model as the probe wrote it, its limit under the key the model takes, with room for reasoning. */
  private async call(body: ChatBody, probe: string, options: CallerOptions, stream: boolean, observer: CallObserver | undefined): Promise<Exchange> {
    const renamed = !options.raw && this.limitKey === 'max_completion_tokens';
    // Room for the model's reasoning, unless the limit itself is judged or billed (engine/room.ts).
    const roomy = !options.raw && !options.exact && this.room.kind !== 'none';
    const sent = roomy ? withRoom(body, this.room) : body;
    let x = await this.send(sent, renamed, probe, options, stream);
    if (!options.raw && !renamed && 'max_tokens' in body && refusesKey(x, 'max_tokens')) {
      // Reasoning models refuse max_tokens ("use max_completion_tokens"): send the limit under that key,
      // for this request and every later one of the model.
      this.limitKey = 'max_completion_tokens';
      x = joined(x, await this.send(sent, true, probe, options, stream), false);
    }
    if (roomy && finishedAtLimit(x)) this.cutWithRoom.add(x.callId);
    observer?.seen(x);
    return x;
  }

  /** One chat request of the model (its limit renamed with `rename`), and a 5xx tried once more. */
  private async send(b: ChatBody, rename: boolean, probe: string, options: CallerOptions, stream: boolean): Promise<Exchange> {
    if (this.stalled) throw new RowStalled(this.stalled);
    const req: HttpRequest = { method: 'POST', path: '/chat/completions', body: requestBody(this.model, b, rename, stream) };
    assertLimited(req, probe);
    const once = () => (stream ? this.log.stream(req, probe, this.model, options.slot, options.shared) : this.log.send(req, probe, this.model, options.slot, options.shared));
    const x = this.note(await once());
    // A 5xx once may be a flaky channel; the same 5xx twice, for a request the plain one survives, is how
    // some servers refuse a feature (llama.cpp: HTTP 500 for an image without a vision projector).
    if (x.status === undefined || x.status < 500 || x.transport || options.once) return x;
    return joined(x, this.note(await once()), true);
  }
}

/** Whether an answer (a body, or a stream as assembled) ended with finish_reason "length". */
function finishedAtLimit(x: Exchange): boolean {
  const assembled = (x as Partial<StreamExchange>).assembled;
  if (assembled) return assembled.choices.get(0)?.finishReasons.includes('length') ?? false;
  return x.ok && readChoices(x.json)[0]?.finishReason === 'length';
}
