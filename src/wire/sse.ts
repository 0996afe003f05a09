import { StringDecoder } from 'node:string_decoder';
import type { BodyChunk } from '../http/client.js';

/**
 * A server-sent-events reader that tolerates what real servers send and records every tolerance as a
 * framing fact (WHATWG HTML "Parsing an event stream"). It is fed the body chunks exactly as they arrived,
 * so split lines, split CRLF pairs and split UTF-8 sequences behave as they would for a live client.
 */
export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
  /** Milliseconds since the request when the event's terminating blank line arrived. */
  at: number;
}

export interface SseFacts {
  crlf: boolean;
  bareCr: boolean;
  /** Comment lines (`: PING`, `: OPENROUTER PROCESSING`), first few kept. */
  comments: string[];
  commentCount: number;
  /** `data:{...}` with no space after the colon: legal. */
  dataWithoutSpace: boolean;
  /** `event:`, `id:` or `retry:` fields: legal SSE, unusual for chat completions. */
  otherFields: string[];
  /** Lines that are not a field at all (no colon, unknown field name). */
  strayLines: string[];
  /** An event whose data spans several lines: two events separated by a single newline look like this. */
  multiLineData: number;
  /** Bytes that came after the last blank line and formed no complete event. */
  unterminatedTail: boolean;
  bom: boolean;
  /** Lines (or one event's data) longer than MAX_LINE: read up to it, the rest skipped, and counted. */
  overlong: number;
}

const KEEP = 5;

/**
 * The longest line, and the most data one event gathers, that the reader holds: a body with no line
 * break (a 100 MB JSON answer to a stream request) or endless `data:` lines without a blank one cannot
 * make it grow without bound. A real chunk is a few hundred bytes.
 */
export const MAX_LINE = 1024 * 1024;

export interface SseReaderOptions {
  /** Each event as it completes; when given, events are not kept in `events`. */
  onEvent?(ev: SseEvent): void;
  /** The decoded text as it arrives (BOM included), for a capped record of the body. */
  onText?(text: string): void;
}

export class SseReader {
  /** The events read, when no onEvent was given. */
  readonly events: SseEvent[] = [];
  readonly facts: SseFacts = {
    crlf: false,
    bareCr: false,
    comments: [],
    commentCount: 0,
    dataWithoutSpace: false,
    otherFields: [],
    strayLines: [],
    multiLineData: 0,
    unterminatedTail: false,
    bom: false,
    overlong: 0,
  };
  // A StringDecoder keeps a leading BOM in the text, so it can be recorded rather than silently dropped, and
  // decodes as TextDecoder does (a U+FFFD per maximal bad sequence, a sequence split across reads joined),
  // without TextDecoder's converter made for every stream and its slower decode of every read.
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private pendingCr = false;
  private first = true;
  private readonly data: string[] = [];
  private dataLength = 0;
  /** The current line passed MAX_LINE: the rest of it is skipped. */
  private skipping = false;
  private event: string | undefined;
  private id: string | undefined;
  private touched = false;

  constructor(private readonly options: SseReaderOptions = {}) {}

  push(bytes: Uint8Array, at: number): void {
    const text = this.decoder.write(bytes);
    this.options.onText?.(text);
    this.feed(text, at);
  }

  end(at: number): void {
    const rest = this.decoder.end();
    if (rest) this.options.onText?.(rest);
    this.feed(rest, at);
    if (this.pendingCr) {
      this.pendingCr = false;
      this.line(this.pending, at);
      this.pending = '';
    }
    if (this.pending.length > 0) {
      this.line(this.pending, at);
      this.pending = '';
    }
    if (this.touched) {
      this.facts.unterminatedTail = true;
      this.dispatch(at);
    }
  }

  private feed(text: string, at: number): void {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) {
        this.facts.bom = true;
        text = text.slice(1);
      }
    }
    let start = 0;
    if (this.pendingCr && text.length > 0) {
      // The LF of a CRLF pair split across two reads: the line already ended at the CR.
      this.pendingCr = false;
      if (text.charCodeAt(0) === 10) {
        this.facts.crlf = true;
        start = 1;
      } else {
        this.facts.bareCr = true;
      }
    }
    // Jump from line break to line break; a regex scan is far faster than a loop over characters.
    const breaks = /[\r\n]/g;
    breaks.lastIndex = start;
    for (let m = breaks.exec(text); m; m = breaks.exec(text)) {
      const i = m.index;
      if (this.skipping) this.skipping = false;
      else this.capped(this.pending + text.slice(start, i), at);
      this.pending = '';
      if (text.charCodeAt(i) === 13) {
        if (i + 1 === text.length) this.pendingCr = true;
        else if (text.charCodeAt(i + 1) === 10) {
          this.facts.crlf = true;
          breaks.lastIndex = i + 2;
        } else this.facts.bareCr = true;
      }
      start = breaks.lastIndex;
    }
    if (this.skipping) return;
    this.pending += text.slice(start);
    if (this.pending.length > MAX_LINE) {
      // Read up to the cap; the rest of the line is skipped until its line break.
      this.capped(this.pending, at);
      this.pending = '';
      this.skipping = true;
    }
  }

  /** A line read up to MAX_LINE characters, the rest dropped and counted. */
  private capped(line: string, at: number): void {
    if (line.length <= MAX_LINE) return this.line(line, at);
    this.facts.overlong++;
    this.line(line.slice(0, MAX_LINE), at);
  }

  private line(line: string, at: number): void {
    if (line === '') {
      this.dispatch(at);
      return;
    }
    if (line.startsWith(':')) {
      this.facts.commentCount++;
      if (this.facts.comments.length < KEEP) this.facts.comments.push(line.slice(0, 120));
      return;
    }
    this.touched = true;
    // Nearly every line of a stream: its value cut out once, with no field name cut out first.
    if (line.startsWith('data: ')) return this.addData(line.slice(6));
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    else if (field === 'data' && colon !== -1 && value.length > 0) this.facts.dataWithoutSpace = true;
    switch (field) {
      case 'data':
        return this.addData(value);
      case 'event':
        this.event = value;
        break;
      case 'id':
        this.id = value;
        break;
      case 'retry':
        break;
      default:
        if (this.facts.strayLines.length < KEEP) this.facts.strayLines.push(line.slice(0, 120));
        return;
    }
    if (!this.facts.otherFields.includes(field)) this.facts.otherFields.push(field);
  }

  private addData(value: string): void {
    if (this.dataLength + value.length > MAX_LINE) {
      this.facts.overlong++;
      return;
    }
    this.dataLength += value.length + 1;
    this.data.push(value);
  }

  private dispatch(at: number): void {
    if (this.data.length > 0) {
      if (this.data.length > 1) this.facts.multiLineData++;
      const ev: SseEvent = { data: this.data.length === 1 ? this.data[0]! : this.data.join('\n'), at };
      if (this.event !== undefined) ev.event = this.event;
      if (this.id !== undefined) ev.id = this.id;
      if (this.options.onEvent) this.options.onEvent(ev);
      else this.events.push(ev);
    }
    this.data.length = 0;
    this.dataLength = 0;
    this.event = undefined;
    this.id = undefined;
    this.touched = false;
  }
}

/** Reads a whole recorded body. */
export function readSse(chunks: readonly BodyChunk[], endAt?: number): { events: SseEvent[]; facts: SseFacts } {
  const reader = new SseReader();
  for (const chunk of chunks) reader.push(chunk.bytes, chunk.at);
  reader.end(endAt ?? chunks.at(-1)?.at ?? 0);
  return { events: reader.events, facts: reader.facts };
}
