import type { SseEvent } from '../http/sse.js';
import type { Usage } from './usage.js';
import { readUsage } from './usage.js';

/** A chat-completion stream put back together the way a client would, with what it had to tolerate. */
export interface AssembledStream {
  /** Parsed `data:` payloads other than `[DONE]`, in order. */
  chunks: unknown[];
  /** `data:` payloads that were neither JSON nor `[DONE]` (first few, cut short). */
  nonJson: string[];
  done: boolean;
  /** Events that arrived after `[DONE]`. */
  afterDone: number;
  /** How many of `chunks` came before `[DONE]` (all of them when there was none). */
  chunksBeforeDone: number;
  /** Chunks carrying an `error` member: an error reported in-band after a 200. */
  errors: unknown[];
  ids: string[];
  /** Per choice index: the assembled content, roles seen and finish reasons seen. */
  choices: Map<number, { content: string; roles: string[]; finishReasons: unknown[]; reasoning: string }>;
  usage: Usage[];
  /** Arrival time (ms) of the first chunk that carried content. */
  firstContentAt: number | undefined;
  /** Arrival times (ms) of all chunks with content, for gap and burst analysis. */
  contentTimes: number[];
}

export function assembleStream(events: readonly SseEvent[]): AssembledStream {
  const out: AssembledStream = {
    chunks: [],
    nonJson: [],
    done: false,
    afterDone: 0,
    chunksBeforeDone: 0,
    errors: [],
    ids: [],
    choices: new Map(),
    usage: [],
    firstContentAt: undefined,
    contentTimes: [],
  };
  for (const ev of events) {
    if (out.done) out.afterDone++;
    const data = ev.data.trim();
    if (data === '[DONE]') {
      out.done = true;
      continue;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      if (out.nonJson.length < 5) out.nonJson.push(data.slice(0, 120));
      continue;
    }
    out.chunks.push(chunk);
    if (!out.done) out.chunksBeforeDone++;
    if (!isObject(chunk)) continue;
    if ('error' in chunk) out.errors.push(chunk.error);
    if (typeof chunk.id === 'string' && !out.ids.includes(chunk.id)) out.ids.push(chunk.id);
    const usage = readUsage(chunk.usage);
    if (usage) out.usage.push(usage);
    if (!Array.isArray(chunk.choices)) continue;
    let hadContent = false;
    for (const choice of chunk.choices) {
      if (!isObject(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let slot = out.choices.get(index);
      if (!slot) {
        slot = { content: '', roles: [], finishReasons: [], reasoning: '' };
        out.choices.set(index, slot);
      }
      const delta = isObject(choice.delta) ? choice.delta : {};
      if (typeof delta.role === 'string') slot.roles.push(delta.role);
      if (typeof delta.content === 'string' && delta.content.length > 0) {
        slot.content += delta.content;
        hadContent = true;
      }
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string') slot.reasoning += reasoning;
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) slot.finishReasons.push(choice.finish_reason);
    }
    if (hadContent) {
      out.firstContentAt ??= ev.at;
      out.contentTimes.push(ev.at);
    }
  }
  return out;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
