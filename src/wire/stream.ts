import { MAX_LINE, type SseEvent } from '../wire/sse.js';
import { errorMember, type ErrorRead } from './error.js';
import { MAX_JSON_DEPTH, tooDeep } from './json-depth.js';
import { isObject } from './json.js';
import type { Usage } from './usage.js';
import { readUsage } from './usage.js';

/** A chat-completion stream put back together the way a client would, with what it had to tolerate. */
export interface AssembledStream {
  /** Parsed `data:` payloads other than `[DONE]`, in order: the first MAX_KEPT_CHUNKS of them. */
  chunks: unknown[];
  /** Every JSON payload, kept or not: a hostile stream of 120,000 chunks is counted, not held. */
  chunkCount: number;
  /** `data:` payloads that were neither JSON nor `[DONE]` (first few, cut short). */
  nonJson: string[];
  /** Events not parsed because their JSON nests deeper than MAX_JSON_DEPTH: what they held cannot be told. */
  tooDeep: number;
  done: boolean;
  /** Events that arrived after `[DONE]`. */
  afterDone: number;
  /** How many of `chunks` came before `[DONE]` (all of them when there was none). */
  chunksBeforeDone: number;
  /** Chunks carrying an `error` member (not null): an error reported in-band after a 200, as read (wire/error.ts). */
  errors: ErrorRead[];
  /** Distinct chunk ids, the first few; `idCount` counts them all (up to MAX_COUNTED_IDS). */
  ids: string[];
  idCount: number;
  /** Per choice index: the assembled content, roles seen, finish reasons seen, and the streamed tool calls. */
  choices: Map<number, StreamedChoice>;
  usage: Usage[];
  /** Arrival time (ms) of the first chunk that carried content. */
  firstContentAt: number | undefined;
  /** Arrival times (ms) of the chunks with content, for gap and burst analysis: the first MAX_KEPT_CHUNKS. */
  contentTimes: number[];
  /** Every chunk with content, kept in contentTimes or not. */
  contentChunks: number;
  /** A choice's content or reasoning passed MAX_TEXT characters: the rest was read and dropped (our cut). */
  textCut: boolean;
}

export interface StreamedChoice {
  content: string;
  roles: string[];
  finishReasons: unknown[];
  reasoning: string;
  /** The delta fields the reasoning came in (`reasoning_content`, `reasoning`), in order of first use. */
  reasoningFields: string[];
  toolCalls: StreamedToolCall[];
  /** `delta.tool_calls[]` fragments without a numeric `index`. */
  toolFragmentsWithoutIndex: number;
}

/** One tool call rebuilt from its `delta.tool_calls[]` fragments, with what its first fragment carried. */
export interface StreamedToolCall {
  /** The index its fragments carried (undefined: none did; such fragments join the call before them). */
  index: number | undefined;
  /** The first fragment's id, as sent ("" and undefined are kept apart). */
  id: unknown;
  /** The first fragment's type. */
  type: unknown;
  /** The name, every fragment's name joined. */
  name: string;
  /** How many fragments carried a piece of the name (OpenAI sends it whole, once). */
  nameFragments: number;
  arguments: string;
  /** The arguments' fragments as they came, the first MAX_KEPT_PIECES (a repeated one shows here). */
  argumentPieces: string[];
  fragments: number;
  /** It shares its index with the call before it: a new id or name came on an index already in use. */
  sharedIndex: boolean;
}

/** Tool calls rebuilt per choice, and the name and arguments kept per call: bounded whatever the server sends. */
const MAX_TOOL_CALLS = 32;
const MAX_ARGUMENTS = 64 * 1024;
const MAX_KEPT_PIECES = 256;
/** Characters of a tool call's name kept (a name sent in a million fragments is not a million characters). */
export const MAX_TOOL_NAME = 1024;

/**
 * Adds one delta's tool-call fragments to a choice, as OpenAI's SDKs accumulate them: by `index`. A
 * fragment whose index is missing joins the last call, unless it carries an id (a new call). A fragment
 * bringing a new id or name to an index whose call already has them starts another call on the same index
 * (a server that puts every call at index 0): a client keyed by index would merge the two.
 */
function addToolFragments(slot: StreamedChoice, fragments: unknown[]): void {
  for (const f of fragments.slice(0, MAX_KEPT)) {
    if (!isObject(f)) continue;
    const fn = isObject(f.function) ? f.function : {};
    const index = typeof f.index === 'number' ? f.index : undefined;
    if (index === undefined) slot.toolFragmentsWithoutIndex++;
    const id = shortened(f.id);
    const hasId = typeof id === 'string' && id !== '';
    const hasName = typeof fn.name === 'string' && fn.name !== '';
    let call = index === undefined ? slot.toolCalls.at(-1) : slot.toolCalls.findLast((c) => c.index === index);
    // Some servers repeat the whole name in every fragment: that is the same call, not a split name.
    const repeated = hasName && call !== undefined && (fn.name === call.name || (call.name.length === MAX_TOOL_NAME && (fn.name as string).startsWith(call.name)));
    const another = call && ((hasId && typeof call.id === 'string' && call.id !== '' && call.id !== id) || (hasName && !repeated && call.name !== '' && call.arguments !== ''));
    const created = !call || Boolean(another) || (index === undefined && hasId);
    if (!call || created) {
      if (slot.toolCalls.length >= MAX_TOOL_CALLS) continue;
      call = { index, id, type: shortened(f.type), name: '', nameFragments: 0, arguments: '', argumentPieces: [], fragments: 0, sharedIndex: Boolean(another) };
      slot.toolCalls.push(call);
    }
    call.fragments++;
    if (hasName && (created || !repeated)) {
      if (call.name.length < MAX_TOOL_NAME) call.name += (fn.name as string).slice(0, MAX_TOOL_NAME - call.name.length);
      call.nameFragments++;
    }
    if (typeof fn.arguments === 'string' && call.arguments.length < MAX_ARGUMENTS) {
      const piece = fn.arguments.slice(0, MAX_ARGUMENTS - call.arguments.length);
      call.arguments += piece;
      if (piece !== '' && call.argumentPieces.length < MAX_KEPT_PIECES) call.argumentPieces.push(piece);
    }
  }
}

/** A string cut to MAX_ID_CHARS (a copy of its own), anything else as it is: what a call's first fragment said it was. */
const shortened = (v: unknown): unknown => (typeof v === 'string' && v.length > MAX_ID_CHARS ? Buffer.from(v.slice(0, MAX_ID_CHARS), 'utf8').toString('utf8') : v);

/** Chunks kept as objects for the probes that read them one by one; a real answer under our limits has far fewer. */
export const MAX_KEPT_CHUNKS = 4096;
/** Characters of content (and of reasoning) kept per choice: a real answer under our limits has far fewer. */
export const MAX_TEXT = 256 * 1024;
/**
 * Characters of chunk data kept as parsed chunks in all: with MAX_KEPT_CHUNKS, bounds what one stream
 * holds (4,096 chunks of 16 KB would be 64 MB, and a run reads several streams at once). An answer under
 * our limits is a few KB of chunks.
 */
export const MAX_KEPT_CHUNK_CHARS = 256 * 1024;
const MAX_KEPT_IDS = 8;
const MAX_COUNTED_IDS = 10_000;
/** Characters of a chunk id kept and compared: 10,000 distinct ids of a megabyte each are not held. */
export const MAX_ID_CHARS = 256;
/** Errors, roles, usages and finish reasons kept per stream: enough to show the fault, bounded whatever the server sends. */
const MAX_KEPT = 32;
/** The delta of a choice that has none (read, never written). */
const NO_DELTA: Readonly<Record<string, unknown>> = Object.freeze({});
/** Where servers put a reasoning model's thinking in a delta, in the order read. */
const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;

/**
 * Puts a stream back together one event at a time, as it arrives: what it holds is bounded (the first
 * chunks, texts up to MAX_TEXT, the first content times), so memory does not follow the stream's length.
 */
export class StreamAssembler {
  private readonly seenIds = new Set<string>();
  private keptChars = 0;
  readonly result: AssembledStream = {
    chunks: [],
    chunkCount: 0,
    nonJson: [],
    tooDeep: 0,
    done: false,
    afterDone: 0,
    chunksBeforeDone: 0,
    errors: [],
    ids: [],
    idCount: 0,
    choices: new Map(),
    usage: [],
    firstContentAt: undefined,
    contentTimes: [],
    contentChunks: 0,
    textCut: false,
  };

  push(ev: SseEvent): void {
    const out = this.result;
    // A client stops at [DONE] (the OpenAI SDK yields nothing after it): what follows is counted, not read.
    if (out.done) {
      out.afterDone++;
      return;
    }
    const data = ev.data.trim();
    if (data === '[DONE]') {
      out.done = true;
      return;
    }
    let chunk: unknown;
    if (tooDeep(data)) {
      // Not parsed: JSON.parse would overflow the stack. Said as a cut of ours, not as the server's text.
      out.tooDeep++;
      return;
    }
    try {
      chunk = JSON.parse(data);
    } catch {
      if (out.nonJson.length < 5) out.nonJson.push(data.slice(0, 120));
      return;
    }
    out.chunkCount++;
    // The first chunk always (an event the SSE reader gives is at most MAX_LINE): a stream that sent chunks
    // is never one "with no chunks".
    if ((out.chunks.length === 0 && data.length <= MAX_LINE) || (out.chunks.length < MAX_KEPT_CHUNKS && this.keptChars + data.length <= MAX_KEPT_CHUNK_CHARS)) {
      out.chunks.push(chunk);
      out.chunksBeforeDone++;
      this.keptChars += data.length;
    }
    if (!isObject(chunk)) return;
    // `"error": null` beside a chunk's choices is no error (errorIn2xx reads a body the same way).
    if (out.errors.length < MAX_KEPT) {
      const error = errorMember(chunk);
      if (error) out.errors.push(error);
    }
    const id = typeof chunk.id === 'string' ? (chunk.id.length > MAX_ID_CHARS ? chunk.id.slice(0, MAX_ID_CHARS) : chunk.id) : undefined;
    if (id !== undefined && this.seenIds.size < MAX_COUNTED_IDS && !this.seenIds.has(id)) {
      // A copy of its own when cut: a slice would keep the whole id alive.
      const own = shortened(chunk.id) as string;
      this.seenIds.add(own);
      out.idCount = this.seenIds.size;
      if (out.ids.length < MAX_KEPT_IDS) out.ids.push(own);
    }
    // The last usage is the one that counts: past the cap, it replaces the last kept.
    const usage = readUsage(chunk.usage);
    if (usage && out.usage.length < MAX_KEPT) out.usage.push(usage);
    else if (usage) out.usage[MAX_KEPT - 1] = usage;
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    let hadContent = false;
    // A chunk with a million choices is read as its first few: the fault shows, the memory does not follow.
    for (let c = 0, end = Math.min(choices.length, MAX_KEPT); c < end; c++) {
      const choice: unknown = choices[c];
      if (!isObject(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let slot = out.choices.get(index);
      if (!slot) {
        if (out.choices.size >= MAX_KEPT) continue;
        slot = { content: '', roles: [], finishReasons: [], reasoning: '', reasoningFields: [], toolCalls: [], toolFragmentsWithoutIndex: 0 };
        out.choices.set(index, slot);
      }
      const delta = isObject(choice.delta) ? choice.delta : NO_DELTA;
      if (typeof delta.role === 'string' && slot.roles.length < MAX_KEPT) slot.roles.push(delta.role);
      if (typeof delta.content === 'string' && delta.content.length > 0) {
        slot.content = this.append(slot.content, delta.content);
        hadContent = true;
      }
      if (Array.isArray(delta.tool_calls)) addToolFragments(slot, delta.tool_calls);
      // Some servers send the same text under both names: it is read once, and both names are recorded.
      let read = false;
      for (const field of REASONING_FIELDS) {
        const piece = delta[field];
        if (typeof piece !== 'string' || piece === '') continue;
        if (!read) slot.reasoning = this.append(slot.reasoning, piece);
        read = true;
        if (!slot.reasoningFields.includes(field)) slot.reasoningFields.push(field);
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined && slot.finishReasons.length < MAX_KEPT) slot.finishReasons.push(choice.finish_reason);
    }
    if (hadContent) {
      out.firstContentAt ??= ev.at;
      out.contentChunks++;
      if (out.contentTimes.length < MAX_KEPT_CHUNKS) out.contentTimes.push(ev.at);
    }
  }

  /** A text with a piece added, up to MAX_TEXT characters; past it the rest is dropped and the cut said. */
  private append(text: string, piece: string): string {
    if (text.length >= MAX_TEXT) {
      this.result.textCut = true;
      return text;
    }
    if (text.length + piece.length > MAX_TEXT) this.result.textCut = true;
    return text + piece.slice(0, MAX_TEXT - text.length);
  }
}

/** A whole list of events, assembled (tests, and bodies read after the fact). */
export function assembleStream(events: readonly SseEvent[]): AssembledStream {
  const a = new StreamAssembler();
  for (const ev of events) a.push(ev);
  return a.result;
}

