import { isObject } from './stream.js';

export interface ChoiceView {
  index: number;
  content: string | null;
  finishReason: unknown;
  toolCalls: unknown[];
  reasoning: string | undefined;
}

/** The parts of a non-stream completion a probe reads, tolerant of any shape (schema checks are separate). */
export function readChoices(json: unknown): readonly ChoiceView[] {
  if (!isObject(json) || !Array.isArray(json.choices)) return [];
  // Many probes read the same answer (the smoke call is every probe's control): read once per body.
  let views = readCache.get(json);
  if (!views) readCache.set(json, (views = viewsOf(json.choices)));
  return views;
}

const readCache = new WeakMap<object, readonly ChoiceView[]>();

function viewsOf(choices: unknown[]): readonly ChoiceView[] {
  return choices.filter(isObject).map((c, i) => {
    const message = isObject(c.message) ? c.message : {};
    const reasoning = message.reasoning_content ?? message.reasoning;
    return {
      index: typeof c.index === 'number' ? c.index : i,
      content: typeof message.content === 'string' ? message.content : null,
      finishReason: c.finish_reason,
      toolCalls: Array.isArray(message.tool_calls) ? message.tool_calls : [],
      reasoning: typeof reasoning === 'string' ? reasoning : undefined,
    };
  });
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
