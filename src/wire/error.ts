import { clip } from '../text.js';
import { tooDeep } from './json-depth.js';
import { isObject } from './json.js';

/**
 * The one reader of error bodies: a non-2xx answer, an error inside a 2xx, an error event in a stream.
 * Servers send a dozen shapes; each is read for its message, code, offending parameter and any HTTP
 * status the body states, and the shape is named so that judges can tell the OpenAI envelope from the
 * rest. Rules never match error text themselves: they read what this returns.
 *
 * Bounded whatever the server sends: it descends MAX_ERROR_DEPTH levels at most, reads the
 * first MAX_ERROR_ITEMS entries of a list, looks for an HTML title in the first HTML_SCANNED characters,
 * and cuts what it returns to MAX_ERROR_MESSAGE characters, the cut said as chatprobe's.
 */

/** The shape an error body came in: OpenAI's envelope or one of the others seen in the wild. */
export type ErrorShape =
  /** `{"error": {"message", "type", "param", "code"}}`: OpenAI, and most gateways (new-api, OpenRouter, LiteLLM, Anthropic). */
  | 'openai'
  /** `{"error": "…"}` (vLLM, Ollama), or `{"error": "Internal Server Error", "message": "…"}` (Node gateways). */
  | 'error_string'
  /** `{"detail": "…"}` or `{"detail": [{"loc", "msg", "type"}]}`: FastAPI and pydantic. */
  | 'fastapi'
  /** `{"message", "code"}` at the top level (old vLLM's `"object": "error"`, Chinese APIs' `msg`). */
  | 'top_level'
  /** `{"errors": [{"message"} | "…"]}`: Cloudflare, GraphQL-style APIs. */
  | 'errors_list'
  /** A JSON array of errors: Google's `[{"error": {"code", "message", "status"}}]`. */
  | 'array'
  /** JSON in none of these shapes. */
  | 'json_other'
  | 'html'
  | 'text'
  | 'empty';

export interface ErrorRead {
  /** The message as the server put it, cut to MAX_ERROR_MESSAGE characters. */
  message: string | undefined;
  /** `error.code`, else `error.type` (a string; numbers are written out). */
  code: string | undefined;
  /** The parameter the error names: `error.param`, or the last element of pydantic's `loc`. */
  param: string | undefined;
  /**
   * An HTTP status the body states, when it states one (Google's and OpenRouter's numeric `error.code`,
   * `status`, `status_code`): beside the real status it shows what a gateway rewrapped, and in a 2xx or a
   * stream's error event it says how the call really went.
   */
  status: number | undefined;
  shape: ErrorShape;
}

/** Levels of nesting the reader descends looking for a message: real envelopes nest three or four. */
export const MAX_ERROR_DEPTH = 8;
/** Characters of a message kept: real messages are a sentence or two, pydantic's lists a few lines. */
export const MAX_ERROR_MESSAGE = 2000;
/** Characters of a body shown as the message when it holds none (plain text, JSON of no known shape). */
export const BODY_SHOWN = 300;
/** Entries of a list of errors (pydantic's `detail`, `errors`, Google's array) read for their messages. */
export const MAX_ERROR_ITEMS = 8;
/** Characters of an HTML page searched for its title: the title is in the head. */
export const HTML_SCANNED = 64 * 1024;
/** Characters of a code or parameter name kept. */
const MAX_NAME = 200;
/** Characters of an embedded upstream body (OpenRouter's `metadata.raw`) parsed to read its message. */
const MAX_EMBEDDED = 64 * 1024;

/** Keys a message is found under, in the order tried, at any level of an envelope. */
const MESSAGE_KEYS = ['message', 'msg', 'detail', 'error', 'errors', 'error_description', 'title'] as const;

/**
 * Reads an error body. `json` is the parsed body (undefined when it was not JSON, or not parsed), `text`
 * the body's text (it may be a start only), `contentType` as received.
 */
export function readError(json: unknown, text = '', contentType = ''): ErrorRead {
  if (json === undefined) return readText(text, contentType);
  return readJson(json, text);
}

/**
 * The error a 2xx body or a stream chunk carries, or undefined when it carries none: an `error` member
 * that is null (some servers send `"error": null` beside every answer) is no error.
 */
export function errorMember(json: unknown): ErrorRead | undefined {
  if (!isObject(json) || json.error === null || json.error === undefined) return undefined;
  return readJson(json, '');
}

/** A found message in a line of our text: quoted, cut to `max`; '' when there is none. */
export function quotedMessage(e: ErrorRead | undefined, max = 120): string {
  if (!e?.message || e.shape === 'json_other' || e.shape === 'empty') return '';
  return JSON.stringify(clip(e.message, max));
}

const result = (shape: ErrorShape, message: string | undefined, code?: string, param?: string, status?: number): ErrorRead => ({
  message: message === undefined ? undefined : clip(message, MAX_ERROR_MESSAGE),
  code: code === undefined ? undefined : clip(code, MAX_NAME),
  param: param === undefined ? undefined : clip(param, MAX_NAME),
  status,
  shape,
});

/** Any character that is not white space (a test, where trim() would copy the whole body). */
const NOT_BLANK = /\S/;

function readText(text: string, contentType: string): ErrorRead {
  const start = text.search(NOT_BLANK);
  if (start === -1) return result('empty', undefined);
  const head = text.slice(start, start + HTML_SCANNED);
  if (contentType.includes('html') || /^<(!doctype|html)/i.test(head)) {
    const title = /<title[^>]{0,200}>([^<]{0,2000})<\/title>/i.exec(head)?.[1]?.trim();
    const heading = title ? undefined : /<h1[^>]{0,200}>([^<]{0,2000})<\/h1>/i.exec(head)?.[1]?.trim();
    return result('html', clip(title || heading || 'an HTML page', BODY_SHOWN));
  }
  return result('text', shown(text.trim()));
}

/** Text shown as the message, cut to BODY_SHOWN characters. */
const shown = (text: string): string => clip(text, BODY_SHOWN);

/** A message given as something other than text (an object of unknown keys, true): shown as JSON, bounded. */
const shownValue = (v: unknown): string | undefined => (v === undefined || v === null || typeof v === 'string' ? undefined : preview(v));

function readJson(json: unknown, text: string): ErrorRead {
  if (Array.isArray(json)) {
    // Google: [{"error": {"code": 400, "message": "…", "status": "INVALID_ARGUMENT"}}]
    const first = json[0];
    const inner = isObject(first) && isObject(first.error) ? first.error : first;
    const o = isObject(inner) ? inner : undefined;
    return result('array', messageIn(json, 0), o ? (name(o.code) ?? name(o.status)) : undefined, o ? name(o.param) : undefined, o ? statusIn(o) : undefined);
  }
  if (typeof json === 'string') return result('json_other', shown(json));
  if (!isObject(json)) return result('json_other', shown(NOT_BLANK.test(text) ? text.trim() : preview(json)));
  const e = json.error;
  if (Array.isArray(e)) return result('errors_list', messageIn(e, 0) ?? preview(e), undefined, undefined, statusIn(json));
  if (isObject(e)) {
    let message = messageIn(e, 0) ?? shownValue(e.message);
    let param = name(e.param);
    // OpenRouter says "Provider returned error" and puts the provider's own answer in metadata.raw: that is
    // what names the feature, so it is kept beside the envelope's message.
    const meta = isObject(e.metadata) ? e.metadata : undefined;
    const said = meta ? embedded(meta.raw) : undefined;
    if (said?.message && !(message ?? '').includes(said.message)) {
      const provider = name(meta?.provider_name);
      message = message ? `${message} (${provider ? `${provider}: ` : ''}${said.message})` : said.message;
    }
    param ??= said?.param;
    return result('openai', message, name(e.code) ?? name(e.type), param, statusIn(e) ?? statusIn(json) ?? said?.status);
  }
  if (typeof e === 'string') {
    // Node gateways send the reason phrase as `error` and what went wrong as `message`:
    // {"error": "Internal Server Error", "message": "OpenAI API Error (500): image input is not supported"}.
    const message = messageIn(json.message, 1) ?? messageIn(e, 1);
    return result('error_string', message, name(json.code) ?? name(json.type), name(json.param), statusIn(json));
  }
  if (json.detail !== undefined && json.detail !== null) {
    const d = json.detail;
    // pydantic puts the offending field last in `loc` and the error kind in `type` (extra_forbidden, …).
    const first = Array.isArray(d) && isObject(d[0]) ? d[0] : undefined;
    const loc = first && Array.isArray(first.loc) ? name(first.loc.at(-1)) : undefined;
    return result('fastapi', messageIn(d, 0) ?? preview(d), first ? name(first.type) : name(json.code), loc, statusIn(json));
  }
  const topMessage = json.message ?? json.msg;
  const hasMessage = topMessage !== undefined && topMessage !== null;
  if (json.errors !== undefined && json.errors !== null && !hasMessage) {
    const list = json.errors;
    const first = Array.isArray(list) && isObject(list[0]) ? list[0] : undefined;
    // The field an entry is about goes by several names: `param`, `field`, or a JSON path.
    const param = first ? (name(first.param) ?? name(first.field) ?? name(first.path)) : undefined;
    return result('errors_list', messageIn(list, 0) ?? preview(list), first ? name(first.code) : undefined, param, statusIn(json) ?? (first ? statusIn(first) : undefined));
  }
  if (json.object === 'error' || hasMessage) {
    let message = messageIn(topMessage, 1) ?? shownValue(topMessage);
    // Laravel-style {"message": "The given data was invalid.", "errors": {…}}: the list says which field.
    const listed = json.errors !== undefined && json.errors !== null ? (messageIn(json.errors, 1) ?? shownValue(json.errors)) : undefined;
    if (listed && message !== listed) message = message ? `${message}: ${listed}` : listed;
    return result('top_level', message, name(json.code) ?? name(json.type), name(json.param), statusIn(json));
  }
  return result('json_other', shown(NOT_BLANK.test(text) ? text.trim() : preview(json)), undefined, undefined, statusIn(json));
}

/**
 * The message a value holds: a string as it is, a number written out, the first messages of a list, or
 * in an object the first of MESSAGE_KEYS that holds one, down to MAX_ERROR_DEPTH levels. Undefined when
 * none is found (an object of other keys, true, null).
 */
function messageIn(v: unknown, depth: number): string | undefined {
  if (typeof v === 'string') return NOT_BLANK.test(v) ? v : undefined;
  if (typeof v === 'number') return String(v);
  if (depth >= MAX_ERROR_DEPTH || typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    const said: string[] = [];
    let chars = 0;
    for (let i = 0; i < v.length && i < MAX_ERROR_ITEMS && chars < MAX_ERROR_MESSAGE; i++) {
      const m = messageIn(v[i], depth + 1);
      if (m === undefined) continue;
      said.push(m);
      chars += m.length;
    }
    if (said.length === 0) return undefined;
    const more = v.length > MAX_ERROR_ITEMS ? `; … and ${v.length - MAX_ERROR_ITEMS} more, not read by chatprobe` : '';
    return said.join('; ') + more;
  }
  const o = v as Record<string, unknown>;
  for (const key of MESSAGE_KEYS) {
    if (!Object.hasOwn(o, key)) continue;
    const m = messageIn(o[key], depth + 1);
    if (m !== undefined) return m;
  }
  return undefined;
}

/** An upstream's own error body carried as a string (JSON or text) or an object, read for its message. */
function embedded(raw: unknown): ErrorRead | undefined {
  if (typeof raw === 'string') {
    if (!NOT_BLANK.test(raw)) return undefined;
    if (raw.length <= MAX_EMBEDDED && /^\s*[[{]/.test(raw) && !tooDeep(raw)) {
      try {
        const inner = readJson(JSON.parse(raw), '');
        if (inner.shape !== 'json_other') return inner;
      } catch {
        // Text that only looks like JSON: read as text.
      }
    }
    return result('text', shown(raw.trim()));
  }
  if (isObject(raw) || Array.isArray(raw)) {
    const inner = readJson(raw, '');
    return inner.shape === 'json_other' ? undefined : inner;
  }
  return undefined;
}

/** A string or a number, as a name (a code, a parameter): anything else is none. */
function name(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** Keys an HTTP status is stated under, in the order tried. A `code` counts only as a number. */
const STATUS_KEYS = ['status', 'status_code', 'statusCode', 'http_status', 'code'] as const;

/** The HTTP status an object states: an integer from 100 to 599 (a string of three digits for `status`). */
function statusIn(o: Record<string, unknown>): number | undefined {
  for (const key of STATUS_KEYS) {
    const v = o[key];
    const n = typeof v === 'number' ? v : typeof v === 'string' && key !== 'code' && /^\d{3}$/.test(v) ? Number(v) : undefined;
    if (n !== undefined && Number.isInteger(n) && n >= 100 && n <= 599) return n;
  }
  return undefined;
}

/**
 * A short JSON-like text of any value, bounded in depth, entries and length whatever the value: never a
 * JSON.stringify of the whole (a 100,000-deep value overflows it, a million keys are megabytes of text).
 */
export function preview(v: unknown, max = BODY_SHOWN): string {
  const out: string[] = [];
  let chars = 0;
  const put = (s: string): boolean => {
    out.push(s);
    chars += s.length;
    return chars <= max;
  };
  const walk = (x: unknown, depth: number): boolean => {
    if (typeof x === 'string') return put(JSON.stringify(x.length > max ? x.slice(0, max + 1) : x));
    if (x === null || typeof x !== 'object') return put(String(x));
    if (depth >= PREVIEW_DEPTH) return put(Array.isArray(x) ? '[…]' : '{…}');
    if (Array.isArray(x)) {
      if (!put('[')) return false;
      for (let i = 0; i < x.length; i++) {
        if ((i > 0 && !put(',')) || !walk(x[i], depth + 1)) return false;
      }
      return put(']');
    }
    if (!put('{')) return false;
    let first = true;
    for (const k in x) {
      if (!Object.hasOwn(x, k)) continue;
      if (!first && !put(',')) return false;
      first = false;
      if (!put(`${JSON.stringify(k.length > max ? k.slice(0, max + 1) : k)}:`) || !walk((x as Record<string, unknown>)[k], depth + 1)) return false;
    }
    return put('}');
  };
  const whole = walk(v, 0);
  const text = out.join('');
  return whole && text.length <= max ? text : `${text.slice(0, max)}… [cut by chatprobe]`;
}

/** Levels of a value a preview shows; deeper ones are shown as […] or {…}. */
const PREVIEW_DEPTH = 4;
