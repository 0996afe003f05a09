import { MAX_TEXT } from './stream.js';
import { isObject } from './json.js';

export interface ChoiceView {
  index: number;
  content: string | null;
  finishReason: unknown;
  toolCalls: unknown[];
  reasoning: string | undefined;
  /** The content or reasoning passed MAX_TEXT characters, or the tool calls MAX_TOOL_CALLS: read up to there (our cut). */
  cut?: boolean;
}

/** Choices read from one body: n probes ask for 2 or 3. */
export const MAX_CHOICES = 64;
/** Tool calls read from one message: parallel calls are a few. */
export const MAX_TOOL_CALLS = 64;

/**
 * The parts of a non-stream completion a probe reads, tolerant of any shape (schema checks are separate).
 * Bounded whatever the body holds: the first MAX_CHOICES choices, MAX_TOOL_CALLS calls, MAX_TEXT
 * characters of content and of reasoning, as a stream is read (wire/stream.ts).
 */
export function readChoices(json: unknown): readonly ChoiceView[] {
  if (!isObject(json) || !Array.isArray(json.choices)) return [];
  // Many probes read the same answer (the smoke call is every probe's control): read once per body.
  let views = readCache.get(json);
  if (!views) readCache.set(json, (views = viewsOf(json.choices)));
  return views;
}

const readCache = new WeakMap<object, readonly ChoiceView[]>();

/** Whether readChoices reads a body's choices only in part (its cut, said by the exchange). Not cached. */
export function choicesCut(json: unknown): boolean {
  if (!isObject(json) || !Array.isArray(json.choices)) return false;
  const choices = json.choices;
  for (let i = 0; i < choices.length && i < MAX_CHOICES; i++) {
    const c = choices[i];
    const m = isObject(c) && isObject(c.message) ? c.message : undefined;
    if (!m) continue;
    const long = (v: unknown) => typeof v === 'string' && v.length > MAX_TEXT;
    if (long(m.content) || long(m.reasoning_content ?? m.reasoning) || (Array.isArray(m.tool_calls) && m.tool_calls.length > MAX_TOOL_CALLS)) return true;
  }
  return false;
}

function viewsOf(choices: unknown[]): readonly ChoiceView[] {
  const views: ChoiceView[] = [];
  for (let i = 0; i < choices.length && i < MAX_CHOICES; i++) {
    const c = choices[i];
    if (!isObject(c)) continue;
    const message = isObject(c.message) ? c.message : {};
    const reasoning = message.reasoning_content ?? message.reasoning;
    const content = typeof message.content === 'string' ? message.content : null;
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    const thinking = typeof reasoning === 'string' ? reasoning : undefined;
    const view: ChoiceView = {
      index: typeof c.index === 'number' ? c.index : views.length,
      content: content !== null && content.length > MAX_TEXT ? content.slice(0, MAX_TEXT) : content,
      finishReason: c.finish_reason,
      toolCalls: calls.length > MAX_TOOL_CALLS ? calls.slice(0, MAX_TOOL_CALLS) : calls,
      reasoning: thinking !== undefined && thinking.length > MAX_TEXT ? thinking.slice(0, MAX_TEXT) : thinking,
    };
    if ((content?.length ?? 0) > MAX_TEXT || (thinking?.length ?? 0) > MAX_TEXT || calls.length > MAX_TOOL_CALLS) view.cut = true;
    views.push(view);
  }
  return views;
}

/**
 * The value of a JSON text, or undefined when it is none. Text that cannot begin a JSON value (prose, the
 * usual answer) is not handed to JSON.parse: it fails here without a SyntaxError thrown and caught.
 */
export function jsonOf(text: string): unknown {
  if (!JSON_START.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How a JSON text can begin, after JSON's white space: an object, array, string, number or literal. */
const JSON_START = /^[ \t\n\r]*[[{"\-0-9tfn]/;

/** A 2xx body that is really an error (`{"error":…}`, `{"success":false}`) is a failure: clients take it as an answer. */
export function errorIn2xx(json: unknown): string | undefined {
  if (!isObject(json)) return undefined;
  if ('error' in json && json.error !== null && json.error !== undefined) return 'the 2xx body carries an "error" member';
  if (json.success === false) return 'the 2xx body says "success": false';
  return undefined;
}
