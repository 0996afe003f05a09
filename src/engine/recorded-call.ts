import type { HttpRequest } from '../http/client.js';

/**
 * One call as the run hands it to whoever records it as it completes (the CLI's exchanges.har,
 * report/har.ts): its request and answer, bodies capped at RECORDED_BODY_CHARS, the key left out.
 */
export interface RecordedCall {
  callId: string;
  /** ISO time the request was sent. */
  at: string;
  probe: string;
  model: string | undefined;
  method: HttpRequest['method'];
  url: string;
  /** Request header names and values, the Authorization value left out. */
  requestHeaders: Record<string, string>;
  requestBody: string | undefined;
  status: number | undefined;
  responseHeaders: Record<string, string>;
  /** The response body as recorded (a stream's text), up to RECORDED_BODY_CHARS. */
  responseText: string;
  bytes: number;
  durationMs: number;
  ttftMs: number | undefined;
  events: { at: number; data: string }[] | undefined;
  /** What the record leaves out, as our cuts. */
  cuts: string[];
  /** Why no complete answer came (a timeout, a reset). */
  error: string | undefined;
}

/** Characters of a request or response body a recorded exchange keeps. */
export const RECORDED_BODY_CHARS = 64 * 1024;

export function capBody(text: string, what: string, cuts: string[]): string {
  if (text.length <= RECORDED_BODY_CHARS) return text;
  cuts.push(`the ${what} is recorded up to ${RECORDED_BODY_CHARS} of its ${text.length} characters`);
  return text.slice(0, RECORDED_BODY_CHARS);
}
