import { type Exchange, STREAM_RECORD_CHARS, type StreamExchange } from '../engine/exchange.js';
import type { ProbeVerdict } from '../engine/probe.js';
import { conformance, describeFailure, fail, inconclusive, note, ourCut, warn } from '../engine/verdicts.js';
import type { Finding } from '../results/model.js';
import { tooDeep } from '../wire/json-depth.js';
import { isObject } from '../wire/json.js';
import { addedKeys, at, differences, fateOf, type Json, keyOrder, type Path, pathText, sameJson, show } from './diff.js';
import { eventRewrites, pieceChanges, piecesOf, type StreamView, viewOf, wholeChanges, withoutNulls } from './stream-diff.js';

export { framesOf } from './stream-diff.js';

/**
 * The passthrough catalogue: requests whose fields chatprobe compares with what its own upstream recorded
 * (the request direction), and answers the upstream gives whose fields it compares with what the client
 * received (the response direction). Every request carries a marker in its last user message, which names
 * the run and the case, so the upstream can tell them apart and answer each as scripted.
 */

export const AREA = 'passthrough';

/** The marker: `chatprobe-pt.<run>.<case>`; runs are 10 hex digits. */
export const MARKER = /chatprobe-pt\.([0-9a-f]{10})\.([a-z0-9_]+(?:\.[a-z0-9_]+)*)/;
export const markerOf = (run: string, caseId: string) => `chatprobe-pt.${run}.${caseId}`;

/** One request as the upstream recorded it. Header values that carry credentials are not kept. */
export interface UpstreamRecord {
  seq: number;
  at: string;
  method: string;
  path: string;
  run: string | undefined;
  case: string | undefined;
  /** Header names (lower case) and values, credentials as "[not recorded]". */
  headers: [string, string][];
  body: string;
}

/** What the upstream answers. */
export type Scripted =
  | { kind: 'json'; status: number; headers?: Record<string, string>; body: Json }
  | { kind: 'text'; status: number; contentType: string; body: string }
  | { kind: 'stream'; frames: string[]; gapMs: number };

export interface CaseEvidence {
  /** The body chatprobe sent to the gateway, and the headers of this request alone. */
  sent: Record<string, unknown>;
  sentHeaders: Record<string, string>;
  /** What the upstream recorded under this case's marker (none: the request never reached it). */
  records: UpstreamRecord[];
  x: Exchange | StreamExchange;
  scripted: Scripted;
  /**
   * The worst lateness of chatprobe's own event loop while a stream's content arrived (ms; 0 for an
   * answer that is not a stream): a loop held up gathers chunks into a burst the gateway never sent.
   */
  loopLagMs: number;
}

export interface PassCase {
  /** The probe id is `passthrough.<id>`. */
  id: string;
  requirement: string;
  /** The fields of the request beyond model, messages and the output limit (which a case may replace). */
  body?: Record<string, unknown>;
  /** Messages before the marked user message, and after it. */
  history?: Record<string, unknown>[];
  after?: Record<string, unknown>[];
  /** The marked message's content as parts instead of a string. */
  parts?: (marker: string) => unknown[];
  headers?: (marker: string) => Record<string, string>;
  stream?: boolean;
  /**
   * The upstream's answer to the request as it received it (default: a short completion, or a short
   * stream when one is asked for, with a usage chunk when usage is asked for).
   */
  respond?: (model: string, asked: Asked) => Scripted;
  judge(ev: CaseEvidence): ProbeVerdict;
}

/** Statuses about a request as a whole (the key, the route, the rate), which say nothing of one field. */
const WHOLE_REQUEST = new Set([401, 403, 404, 407, 408, 429]);

/** Why an answer the gateway gave back cannot be compared with the upstream's, or undefined when it can. */
function answerUnjudgeable(ev: CaseEvidence, what: string): ProbeVerdict | undefined {
  if (ev.records.length === 0) return inconclusive(`the upstream never received the request (${describeFailure(ev.x)}): no ${what} of its to compare`);
  if (ev.x.transport) return inconclusive(`the upstream answered, but no complete answer reached chatprobe (${describeFailure(ev.x)}): nothing to compare`);
  if (ev.x.truncated) return inconclusive(`cannot compare the ${what}: ${ourCut(ev.x)}`);
  return undefined;
}
/**
 * How many more times the upstream received the request than chatprobe sent it (the control: chatprobe's
 * own retries, which passthrough makes none of, are its attempts; the rest are the gateway's).
 */
export const retriesOf = (ev: CaseEvidence): number => Math.max(0, ev.records.length - ev.x.attempts.length);
const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);
const sentAgain = (ev: CaseEvidence): Finding[] =>
  retriesOf(ev) > 0
    ? [warn('sent_again', `the upstream received this request ${ev.records.length} times, chatprobe sent it ${times(ev.x.attempts.length)}: the gateway sent it again`)]
    : [];

/** The output limit every request carries unless its case is about the limit itself. */
export const LIMIT = 16;

// ---- the upstream's answers ----

const created = 1_700_000_000;

export function completion(model: string, message: Record<string, Json>, extra: Record<string, Json> = {}, finish = 'stop'): Record<string, Json> {
  return {
    id: 'chatcmpl-upstream',
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
    ...extra,
  };
}

export const chunk = (model: string, delta: Record<string, Json>, finish: string | null = null, extra: Record<string, Json> = {}): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;

const usageChunk = (model: string) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } })}\n\n`;

/** What the upstream reads of a request to answer it as a real upstream would. */
export interface Asked {
  stream: boolean;
  /** `stream_options.include_usage` on a stream: the upstream ends it with a usage chunk (`choices: []`). */
  includeUsage: boolean;
}

export function askedOf(request: unknown): Asked {
  const r = isObject(request) ? request : {};
  const options = isObject(r.stream_options) ? r.stream_options : {};
  return { stream: r.stream === true, includeUsage: r.stream === true && options.include_usage === true };
}

export function defaultAnswer(model: string, asked: Asked): Scripted {
  if (!asked.stream) return { kind: 'json', status: 200, body: completion(model, { content: 'ok' }) };
  return {
    kind: 'stream',
    gapMs: 0,
    frames: [chunk(model, { role: 'assistant', content: '' }), chunk(model, { content: 'ok' }), chunk(model, {}, 'stop'), ...(asked.includeUsage ? [usageChunk(model)] : []), 'data: [DONE]\n\n'],
  };
}

// ---- the request direction ----

type Severity = 'fail' | 'warn';
interface Policy {
  /** A value that arrived different. */
  changed: Severity;
  dropped: Severity;
  /** Refused by the gateway itself (never reached the upstream): a failure for a valid field, fine for a bad value. */
  refusedIsFine: boolean;
}
const VALID: Policy = { changed: 'fail', dropped: 'fail', refusedIsFine: false };
const BAD_VALUE: Policy = { changed: 'warn', dropped: 'warn', refusedIsFine: true };
const finding = (severity: Severity, code: string, message: string): Finding => (severity === 'fail' ? fail(code, message) : warn(code, message));

/** The first record's body as JSON, or the verdict when the evidence cannot be compared. */
function recorded(ev: CaseEvidence, refusedIsFine: boolean): { got: Record<string, unknown>; findings: Finding[] } | ProbeVerdict {
  const { x } = ev;
  if (ev.records.length === 0) {
    if (x.transport) return inconclusive(`the gateway gave no answer (${describeFailure(x)}) and the upstream recorded nothing`);
    if (x.status !== undefined && WHOLE_REQUEST.has(x.status)) {
      return inconclusive(`the gateway answered ${describeFailure(x)} and the upstream recorded nothing: that status is about the request as a whole (key, route, rate), not this field`);
    }
    if (x.status !== undefined && x.status >= 400 && x.status < 500) {
      const said = `refused by the gateway itself: ${describeFailure(x)}, and the upstream never received the request`;
      const v = refusedIsFine ? conformance([note('refused_by_gateway', said)], said) : conformance([fail('refused_by_gateway', said)], '');
      v.status = x.status;
      if (x.errorMessage) v.message = x.errorMessage;
      return v;
    }
    if (x.ok) return conformance([fail('answered_elsewhere', `the gateway answered HTTP ${x.status}, but the upstream never received the request: another channel, a cache or a fallback answered it`)], '');
    return inconclusive(`the gateway answered ${describeFailure(x)} and the upstream recorded nothing: is its channel pointed at chatprobe upstream?`);
  }
  // JSON.parse would overflow the stack on a body nested that deep: not parsed, and said as our limit.
  if (tooDeep(ev.records[0]!.body)) return inconclusive('the upstream received a body nested deeper than chatprobe parses (its own limit): nothing in it was compared');
  let got: unknown;
  try {
    got = JSON.parse(ev.records[0]!.body);
  } catch {
    return conformance([fail('not_json', `the upstream received a body that is not JSON: ${show(ev.records[0]!.body)}`)], '');
  }
  if (got === null || typeof got !== 'object' || Array.isArray(got)) return conformance([fail('not_json', `the upstream received ${show(got)}, not a JSON object`)], '');
  const findings: Finding[] = sentAgain(ev);
  const where = ev.records[0]!;
  if (where.method !== 'POST' || !where.path.endsWith('/chat/completions')) {
    findings.push(fail('rerouted', `the upstream received ${where.method} ${where.path}, not POST …/chat/completions: the gateway turned the request into another API's`));
  }
  return { got: got as Record<string, unknown>, findings };
}

/** A verdict on what became of `paths` of the request. */
export function judgeFields(ev: CaseEvidence, paths: readonly Path[], policy: Policy): ProbeVerdict {
  const r = recorded(ev, policy.refusedIsFine);
  if (!('got' in r)) return r;
  const { got, findings } = r;
  const seen: string[] = [];
  for (const path of paths) {
    const name = pathText(path);
    const f = fateOf(ev.sent, got, path);
    if (f.fate === 'unchanged') {
      seen.push(typeof f.value === 'object' && f.value !== null ? name : `${name} ${show(f.value)}`);
      findings.push(note('forwarded', `${name}: forwarded unchanged`));
    } else if (f.fate === 'renamed' && f.changed) {
      findings.push(finding(policy.changed, 'changed', `${name} arrived renamed to ${f.to}, its value changed: sent ${show(at(ev.sent, path))}, arrived ${show(f.value)}`));
    } else if (f.fate === 'renamed') {
      findings.push(warn('renamed', `${name} arrived renamed to ${f.to}`));
    } else if (f.fate === 'changed') {
      const detail = typeof f.from === 'object' && f.from !== null ? differences(f.from, f.value).slice(0, 4).join('; ') : `sent ${show(f.from)}, arrived ${show(f.value)}`;
      findings.push(finding(policy.changed, 'changed', `${name} changed on the way: ${detail}`));
    } else {
      findings.push(finding(policy.dropped, 'dropped', `${name} was dropped: the upstream recorded the request without it`));
    }
  }
  return conformance(findings, `forwarded unchanged: ${seen.join(', ')}`);
}

const field = (id: string, body: Record<string, unknown>, requirement: string, policy = VALID, extra: Partial<PassCase> = {}): PassCase => ({
  id,
  requirement,
  body,
  judge: (ev) => judgeFields(ev, Object.keys(body).map((k) => [k]), policy),
  ...extra,
});

const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
/** The weather tool with strict arguments (every property required, no others): a valid strict schema. */
const STRICT_TOOL = {
  type: 'function',
  function: { ...WEATHER_TOOL.function, strict: true, parameters: { ...WEATHER_TOOL.function.parameters, additionalProperties: false } },
};
const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const PARAMETERS: PassCase[] = [
  field('max_tokens', { max_tokens: LIMIT }, 'max_tokens reaches the upstream as sent.'),
  field('max_completion_tokens', { max_completion_tokens: LIMIT }, 'max_completion_tokens reaches the upstream as sent.'),
  field('temperature', { temperature: 0.7 }, 'temperature reaches the upstream as sent.'),
  field('top_p', { top_p: 0.9 }, 'top_p reaches the upstream as sent.'),
  // 0 and 1 are what a gateway that tests `if (body.top_p)` or leaves out "the default" drops; the
  // upstream's own default then applies (llama.cpp's is 0.95, vLLM's the model's generation_config).
  field('top_p_0', { top_p: 0 }, 'top_p 0 reaches the upstream as sent (not dropped as a false value).'),
  field('top_p_1', { top_p: 1 }, 'top_p 1 reaches the upstream as sent (not dropped as the default: the upstream\'s own may differ).'),
  field('seed', { seed: 42 }, 'seed reaches the upstream as sent.'),
  field('stop', { stop: ['chatprobe-stop'] }, 'stop reaches the upstream as sent.'),
  field('stop_many', { stop: ['chatprobe-a', 'chatprobe-b', 'chatprobe-c', 'chatprobe-d'] }, 'Four stop strings reach the upstream as sent (none cut off).'),
  field('n', { n: 2 }, 'n reaches the upstream as sent.'),
  field('presence_penalty', { presence_penalty: 0.5 }, 'presence_penalty reaches the upstream as sent.'),
  // The ends of OpenAI's range (-2 to 2): Portkey clamps presence_penalty to 0 … 1 for some providers.
  field('presence_penalty_min', { presence_penalty: -2 }, 'presence_penalty -2 (the low end of its range) reaches the upstream as sent, not clamped.'),
  field('presence_penalty_max', { presence_penalty: 2 }, 'presence_penalty 2 (the high end of its range) reaches the upstream as sent, not clamped.'),
  field('frequency_penalty', { frequency_penalty: 0.5 }, 'frequency_penalty reaches the upstream as sent.'),
  field('logit_bias', { logit_bias: { '50256': -100 } }, 'logit_bias reaches the upstream as sent.'),
  field('logprobs', { logprobs: true, top_logprobs: 2 }, 'logprobs and top_logprobs reach the upstream as sent.'),
  field('response_format_json_object', { response_format: { type: 'json_object' } }, 'response_format {"type":"json_object"} reaches the upstream as sent.'),
  field(
    'response_format_json_schema',
    { response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false } } } },
    'response_format with a json_schema reaches the upstream as sent.',
  ),
  field('tools', { tools: [WEATHER_TOOL], tool_choice: { type: 'function', function: { name: 'get_weather' } } }, 'tools and tool_choice reach the upstream as sent.'),
  {
    id: 'tools_strict',
    requirement: 'A tool\'s function.strict (structured outputs for its arguments) reaches the upstream as sent.',
    body: { tools: [STRICT_TOOL] },
    judge: (ev) => judgeFields(ev, [['tools', 0, 'function', 'strict']], VALID),
  },
  field('tool_choice_required', { tools: [WEATHER_TOOL], tool_choice: 'required' }, 'tool_choice "required" reaches the upstream as sent.'),
  field('tool_choice_none', { tools: [WEATHER_TOOL], tool_choice: 'none' }, 'tool_choice "none" reaches the upstream as sent.'),
  field('parallel_tool_calls', { tools: [WEATHER_TOOL], parallel_tool_calls: false }, 'parallel_tool_calls reaches the upstream as sent.'),
  field('user', { user: 'chatprobe-user' }, 'user reaches the upstream as sent.'),
  field('metadata', { metadata: { chatprobe: 'passthrough' }, store: true }, 'metadata and store reach the upstream as sent.'),
  field('reasoning_effort', { reasoning_effort: 'low' }, 'reasoning_effort reaches the upstream as sent.'),
  field('stream', { stream: true, stream_options: { include_usage: true } }, 'stream and stream_options reach the upstream as sent.', VALID, { stream: true }),
  field('stream_options_without_stream', { stream_options: { include_usage: true } }, 'stream_options without stream reaches the upstream as sent (or the gateway refuses it).', {
    changed: 'fail',
    dropped: 'warn',
    refusedIsFine: true,
  }),
];

const OUT_OF_RANGE: PassCase[] = [
  ['max_tokens', -5],
  ['temperature', 5],
  ['top_p', 2],
  ['n', 0],
  ['frequency_penalty', 3],
].map(([k, v]) =>
  field(
    `out_of_range_${k as string}`,
    { [k as string]: v },
    `${k as string}: ${v as number} (out of range) reaches the upstream as sent, for the upstream to refuse, or the gateway refuses it; a value changed on the way (clamped) is a finding.`,
    BAD_VALUE,
  ),
);

const UNKNOWN: PassCase = field(
  'unknown_field',
  { chatprobe_extension: { nested: true, n: 1 } },
  'A field the gateway does not know (a provider extension such as top_k or repetition_penalty) reaches the upstream, or its loss is a finding.',
  { changed: 'fail', dropped: 'warn', refusedIsFine: false },
);

/** Cases about the messages: the whole list compared, each difference named. */
const messages = (id: string, requirement: string, extra: Partial<PassCase>): PassCase => ({
  id,
  requirement,
  judge: (ev) => judgeFields(ev, [['messages']], { changed: 'warn', dropped: 'fail', refusedIsFine: false }),
  ...extra,
});

const ROLES: PassCase[] = [
  messages('role_system', 'A system message reaches the upstream as sent.', { history: [{ role: 'system', content: 'Answer briefly.' }] }),
  messages('role_developer', 'A developer message reaches the upstream as sent (not turned into a system message or dropped).', { history: [{ role: 'developer', content: 'Answer briefly.' }] }),
  messages('role_assistant', 'An assistant turn in the history reaches the upstream as sent.', {
    history: [
      { role: 'user', content: 'Say hello.' },
      { role: 'assistant', content: 'Hello.' },
    ],
  }),
  messages('role_tool', 'An assistant tool call and its tool result reach the upstream as sent (ids, arguments, tool_call_id).', {
    body: { tools: [WEATHER_TOOL] },
    history: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_chatprobe_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_chatprobe_1', content: '{"temp_c":21}' },
    ],
  }),
  messages('role_system_parts', 'A system message given as text parts reaches the upstream as parts.', { history: [{ role: 'system', content: [{ type: 'text', text: 'Answer briefly.' }] }] }),
  messages('consecutive_user', 'Two user messages in a row reach the upstream as two (not merged).', { history: [{ role: 'user', content: 'First.' }] }),
  messages('assistant_prefill', 'A final assistant message (a prefill) reaches the upstream after the user message.', { after: [{ role: 'assistant', content: 'ok' }] }),
  messages('empty_content', 'A message with empty content reaches the upstream as sent.', { history: [{ role: 'user', content: '' }] }),
  messages('reasoning_echo', 'An assistant message carrying its reasoning_content back (DeepSeek thinking mode) reaches the upstream with it.', {
    history: [
      { role: 'user', content: 'Say hello.' },
      { role: 'assistant', content: 'Hello.', reasoning_content: 'The user wants a greeting.' },
    ],
  }),
  messages('name_field', 'A message with a name reaches the upstream with it.', { history: [{ role: 'user', name: 'chatprobe_user', content: 'Hello.' }] }),
  messages('content_parts', 'Content given as text parts reaches the upstream as parts (not flattened into a string).', {
    parts: (marker) => [
      { type: 'text', text: 'Two parts: ' },
      { type: 'text', text: marker },
    ],
  }),
  messages('image_part', 'An image_url part (a data URL) reaches the upstream as sent.', {
    parts: (marker) => [
      { type: 'text', text: marker },
      { type: 'image_url', image_url: { url: PNG_1PX, detail: 'low' } },
    ],
  }),
];

/** Header names hop-by-hop or set by any HTTP client: not worth calling "added by the gateway". */
const ORDINARY_HEADERS = new Set(['host', 'connection', 'content-length', 'content-type', 'accept', 'accept-encoding', 'user-agent', 'transfer-encoding', 'keep-alive']);
export const MARK_HEADER = 'x-chatprobe-marker';

const REQUEST_SHAPE: PassCase[] = [
  {
    id: 'model',
    requirement: 'The upstream is asked for the model the client named (no other model served in its place).',
    judge(ev) {
      const r = recorded(ev, false);
      if (!('got' in r)) return r;
      const findings = [...r.findings];
      // Only here: a gateway that maps an alias to the channel's model rewrites it on every request.
      if (!sameJson(ev.sent.model, r.got.model)) findings.push(fail('model_rewritten', `model: sent ${show(ev.sent.model)}, the upstream was asked for ${show(r.got.model)}`));
      return conformance(findings, `the upstream was asked for ${show(r.got.model)}, as sent`);
    },
  },
  {
    id: 'defaults',
    requirement: 'The gateway adds no field to the request (defaults it injects are findings), and keeps the fields in their order.',
    judge(ev) {
      const r = recorded(ev, false);
      if (!('got' in r)) return r;
      const findings = [...r.findings];
      for (const k of addedKeys(ev.sent, r.got)) findings.push(warn('added', `the gateway added ${k}: ${show(r.got[k])}`));
      const order = keyOrder(ev.sent, r.got);
      if (order) findings.push(note('reordered', `fields reordered: sent ${order.sent.join(', ')}; arrived ${order.received.join(', ')}`));
      return conformance(findings, 'nothing added');
    },
  },
  {
    id: 'extra_header',
    requirement: 'A header the client adds reaches the upstream (the headers the gateway adds are listed).',
    headers: (marker) => ({ [MARK_HEADER]: marker }),
    judge(ev) {
      const r = recorded(ev, false);
      if (!('got' in r)) return r;
      const findings = [...r.findings];
      const headers = new Map(ev.records[0]!.headers);
      const sent = ev.sentHeaders[MARK_HEADER]!;
      const arrived = headers.get(MARK_HEADER);
      if (arrived === undefined) findings.push(warn('dropped', `${MARK_HEADER} was dropped: the upstream recorded the request without it`));
      else if (arrived !== sent) findings.push(warn('changed', `${MARK_HEADER} changed on the way: sent ${show(sent)}, arrived ${show(arrived)}`));
      const added = [...headers.keys()].filter((k) => !ORDINARY_HEADERS.has(k) && k !== MARK_HEADER && k !== 'authorization');
      if (added.length > 0) findings.push(note('added_headers', `headers the upstream received that the client did not send: ${added.join(', ')}`));
      if (headers.has('authorization')) findings.push(note('authorization', 'the upstream received an Authorization header (its value is not recorded)'));
      return conformance(findings, `${MARK_HEADER} forwarded unchanged`);
    },
  },
];

// ---- the response direction ----

/** A verdict on what the client received of a scripted JSON answer at `paths` (each at `severity`, or its own). */
export function judgeAnswer(ev: CaseEvidence, paths: readonly (Path | { path: Path; severity: Severity })[], severity: Severity, ok: string): ProbeVerdict {
  const r = receivedAnswer(ev);
  if (!('got' in r)) return r;
  const { got, sent, findings } = r;
  for (const p of paths) {
    const { path, severity: s } = 'path' in p ? p : { path: p, severity };
    findings.push(answerFate(sent, got, path, s));
  }
  return conformance(findings, ok);
}

/** The upstream's JSON answer and the object the client received, or the verdict when they cannot be compared. */
function receivedAnswer(ev: CaseEvidence): { got: Record<string, unknown>; sent: Record<string, unknown>; findings: Finding[] } | ProbeVerdict {
  const stop = answerUnjudgeable(ev, 'answer');
  if (stop) return stop;
  const scripted = ev.scripted;
  if (scripted.kind !== 'json') return inconclusive('not a JSON answer');
  const findings: Finding[] = sentAgain(ev);
  if (ev.x.status !== scripted.status) findings.push(fail('status_changed', `the upstream answered HTTP ${scripted.status}, the client got ${describeFailure(ev.x)}`));
  const got = ev.x.json;
  if (got === null || typeof got !== 'object' || Array.isArray(got)) {
    findings.push(fail('not_json', `the client received ${ev.x.contentType || 'a body'} that is not a JSON object: ${show(ev.x.text)}`));
    return conformance(findings, '');
  }
  return { got: got as Record<string, unknown>, sent: scripted.body as Record<string, unknown>, findings };
}

/** What became of the upstream's answer at `path` on its way to the client. */
function answerFate(sent: Record<string, unknown>, got: Record<string, unknown>, path: Path, severity: Severity): Finding {
  const name = pathText(path);
  const f = fateOf(sent, got, path);
  if (f.fate === 'unchanged') return note('kept', `${name}: received as the upstream sent it`);
  if (f.fate === 'renamed') return finding(severity, 'renamed', `${name} arrived renamed to ${f.to}`);
  if (f.fate === 'changed') {
    const detail = typeof f.from === 'object' && f.from !== null ? differences(f.from, f.value).slice(0, 4).join('; ') : `the upstream sent ${show(f.from)}, the client got ${show(f.value)}`;
    return finding(severity, 'changed', `${name} changed on the way back: ${detail}`);
  }
  return finding(severity, 'dropped', `${name} was dropped: the upstream sent it, the client did not receive it`);
}

/** An error answer's status and body against what the client received (status changed: fail; body rewritten: warn). */
function errorFindings(ev: CaseEvidence, scripted: Exclude<Scripted, { kind: 'stream' }>): Finding[] {
  const findings: Finding[] = [];
  if (ev.x.status !== scripted.status) findings.push(fail('status_changed', `the upstream answered HTTP ${scripted.status}, the client got ${describeFailure(ev.x)}`));
  const sentBody = scripted.body;
  const got = ev.x.json !== undefined ? ev.x.json : ev.x.text;
  if (!sameJson(sentBody, got)) {
    const changes = typeof sentBody === 'object' && typeof got === 'object' ? differences(sentBody, got).slice(0, 6).join('; ') : `the upstream sent ${show(sentBody)}, the client got ${show(got)}`;
    findings.push(warn('reshaped', `the error body was rewritten: ${changes}`));
  }
  return findings;
}

/** An error answer: its status must reach the client, and its body is compared whole. */
function errorCase(id: string, requirement: string, scripted: Exclude<Scripted, { kind: 'stream' }>): PassCase {
  return {
    id,
    requirement,
    respond: () => scripted,
    judge(ev) {
      const stop = answerUnjudgeable(ev, 'answer');
      if (stop) return stop;
      return conformance([...sentAgain(ev), ...errorFindings(ev, scripted)], `HTTP ${scripted.status} and its body received as the upstream sent them`);
    },
  };
}

/**
 * An error the upstream gives every time it is asked, and whether the gateway sent the request again
 * (the upstream counts the marker). A 5xx may be worth another try; a 4xx refusal cannot change on one,
 * so each retry of it costs a request for nothing (a warning). A 429 is left out: retrying it is right.
 */
function retryCase(id: string, requirement: string, scripted: Extract<Scripted, { kind: 'json' }>): PassCase {
  const refusal = scripted.status < 500;
  return {
    id,
    requirement,
    respond: () => scripted,
    judge(ev) {
      const stop = answerUnjudgeable(ev, 'answer');
      if (stop) return stop;
      const findings = errorFindings(ev, scripted);
      const retries = retriesOf(ev);
      const ours = ev.x.attempts.length;
      const counted = `the upstream received the request ${times(ev.records.length)}, chatprobe sent it ${times(ours)}`;
      const said = retries > 0 ? `the gateway retried the upstream's HTTP ${scripted.status} ${times(retries)} (${counted})` : `the gateway did not retry the upstream's HTTP ${scripted.status} (${counted})`;
      // Said whatever else the verdict says: whether the gateway retried is what this case reports.
      if (retries === 0) findings.push(note('not_retried', said));
      else findings.push(refusal ? warn('retried', `${said}: a refusal does not change on a retry, so each one costs a request for nothing`) : note('retried', said));
      return conformance(findings, `${said}; HTTP ${scripted.status} and its body reached the client as the upstream sent them`);
    },
  };
}

const RESPONSES: PassCase[] = [
  {
    id: 'response_extra_fields',
    requirement: 'Fields the upstream adds to its answer (top level, choice, message) reach the client.',
    respond: (model) => {
      const body = completion(model, { content: 'ok', x_message_extra: 'm' }, { x_upstream_extra: { kept: true } });
      (body.choices as Record<string, Json>[])[0]!.x_choice_extra = 'c';
      return { kind: 'json', status: 200, body };
    },
    judge: (ev) => judgeAnswer(ev, [['x_upstream_extra'], ['choices', 0, 'x_choice_extra'], ['choices', 0, 'message', 'x_message_extra']], 'warn', 'every extra field received'),
  },
  {
    id: 'response_logprobs',
    requirement: 'logprobs in the upstream answer reach the client unchanged.',
    body: { logprobs: true, top_logprobs: 1 },
    respond: (model) => {
      const body = completion(model, { content: 'ok' });
      (body.choices as Record<string, Json>[])[0]!.logprobs = { content: [{ token: 'ok', logprob: -0.25, bytes: [111, 107], top_logprobs: [{ token: 'ok', logprob: -0.25, bytes: [111, 107] }] }] };
      return { kind: 'json', status: 200, body };
    },
    judge: (ev) => judgeAnswer(ev, [['choices', 0, 'logprobs']], 'fail', 'logprobs received unchanged'),
  },
  {
    id: 'response_reasoning',
    requirement: 'Reasoning fields in the upstream answer (reasoning_content, reasoning) reach the client.',
    respond: (model) => ({ kind: 'json', status: 200, body: completion(model, { content: 'ok', reasoning_content: 'chatprobe thought', reasoning: 'chatprobe thought' }) }),
    judge: (ev) => judgeAnswer(ev, [['choices', 0, 'message', 'reasoning_content'], ['choices', 0, 'message', 'reasoning']], 'warn', 'reasoning fields received'),
  },
  {
    id: 'response_tool_calls',
    requirement: 'Tool calls in the upstream answer reach the client unchanged, with finish_reason "tool_calls".',
    body: { tools: [WEATHER_TOOL] },
    respond: (model) => ({
      kind: 'json',
      status: 200,
      body: completion(model, { content: null, tool_calls: [{ id: 'call_upstream_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, {}, 'tool_calls'),
    }),
    judge: (ev) => judgeAnswer(ev, [['choices', 0, 'message', 'tool_calls'], ['choices', 0, 'finish_reason']], 'fail', 'tool calls received unchanged'),
  },
  {
    id: 'response_usage',
    requirement: 'The usage the upstream reports (with its details) reaches the client unchanged: it is what a gateway bills from.',
    respond: (model) => ({
      kind: 'json',
      status: 200,
      body: completion(model, { content: 'ok' }, { usage: { prompt_tokens: 37, completion_tokens: 5, total_tokens: 42, prompt_tokens_details: { cached_tokens: 32 }, completion_tokens_details: { reasoning_tokens: 3 } } }),
    }),
    judge: (ev) => judgeAnswer(ev, [['usage']], 'fail', 'usage received unchanged'),
  },
  {
    id: 'response_finish_reason',
    requirement: 'A finish_reason outside the OpenAI set ("eos") reaches the client as the upstream gave it, or its rewrite is a finding.',
    respond: (model) => ({ kind: 'json', status: 200, body: completion(model, { content: 'ok' }, {}, 'eos') }),
    judge: (ev) => judgeAnswer(ev, [['choices', 0, 'finish_reason']], 'warn', 'finish_reason received as sent'),
  },
  {
    id: 'response_system_fingerprint',
    requirement: 'system_fingerprint in the upstream answer reaches the client (beside a seed, it tells whether two answers came from the same backend).',
    respond: (model) => ({ kind: 'json', status: 200, body: completion(model, { content: 'ok' }, { system_fingerprint: 'fp_chatprobe_upstream' }) }),
    judge: (ev) => judgeAnswer(ev, [['system_fingerprint']], 'warn', 'system_fingerprint received as the upstream sent it'),
  },
  {
    id: 'response_n',
    requirement: 'An answer with several choices (n: 2) reaches the client with every choice, not cut to the first.',
    body: { n: 2 },
    respond: (model) => {
      const body = completion(model, { content: 'ok' });
      (body.choices as Json[]).push({ index: 1, message: { role: 'assistant', content: 'yes' }, logprobs: null, finish_reason: 'stop' });
      return { kind: 'json', status: 200, body };
    },
    judge(ev) {
      const r = receivedAnswer(ev);
      if (!('got' in r)) return r;
      const { got, sent, findings } = r;
      const want = sent.choices as unknown[];
      const have = Array.isArray(got.choices) ? got.choices : [];
      // Nulls a gateway adds or leaves out (logprobs: null) are no change to a choice.
      if (have.length < want.length) findings.push(fail('choices_cut', `the upstream answered ${want.length} choices (n: 2), the client received ${have.length}`));
      else if (!sameJson(withoutNulls(want), withoutNulls(have))) findings.push(fail('changed', `choices changed on the way back: ${differences(withoutNulls(want), withoutNulls(have)).slice(0, 4).join('; ')}`));
      return conformance(findings, `all ${want.length} choices received as the upstream sent them`);
    },
  },
  {
    id: 'response_empty_content',
    requirement: 'An empty content ("") beside tool calls reaches the client as "" (not turned into null or dropped), the tool calls unchanged.',
    body: { tools: [WEATHER_TOOL] },
    respond: (model) => ({
      kind: 'json',
      status: 200,
      body: completion(model, { content: '', tool_calls: [{ id: 'call_upstream_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }, {}, 'tool_calls'),
    }),
    judge: (ev) =>
      judgeAnswer(
        ev,
        [
          { path: ['choices', 0, 'message', 'content'], severity: 'warn' },
          { path: ['choices', 0, 'message', 'tool_calls'], severity: 'fail' },
        ],
        'warn',
        'the empty content and the tool calls received as the upstream sent them',
      ),
  },
  errorCase('response_error_openai', 'An OpenAI error envelope (HTTP 400) reaches the client with its status and body.', {
    kind: 'json',
    status: 400,
    body: { error: { message: 'chatprobe upstream refuses this request', type: 'invalid_request_error', param: 'temperature', code: 'chatprobe_refusal' } },
  }),
  errorCase('response_error_string', 'An error given as a plain string ({"error":"…"}, HTTP 400) reaches the client with its status and body.', {
    kind: 'json',
    status: 400,
    body: { error: 'chatprobe upstream refuses this request' },
  }),
  errorCase('response_error_fastapi', 'A FastAPI validation error (HTTP 422, {"detail":[…]}) reaches the client with its status and body.', {
    kind: 'json',
    status: 422,
    body: { detail: [{ loc: ['body', 'temperature'], msg: 'chatprobe upstream refuses this value', type: 'value_error' }] },
  }),
  errorCase('response_error_html', 'An HTML error page (HTTP 502) reaches the client with its status.', {
    kind: 'text',
    status: 502,
    contentType: 'text/html',
    body: '<html><body><h1>502 Bad Gateway</h1><p>chatprobe upstream</p></body></html>',
  }),
  retryCase('retry_4xx', 'A 400 the upstream gives every time reaches the client, and is not retried by the gateway (a refusal does not change on a retry).', {
    kind: 'json',
    status: 400,
    body: { error: { message: 'chatprobe upstream refuses this request every time', type: 'invalid_request_error', param: null, code: 'chatprobe_refusal' } },
  }),
  retryCase('retry_5xx', 'A 500 the upstream gives every time reaches the client; whether the gateway retried it, and how often, is reported.', {
    kind: 'json',
    status: 500,
    body: { error: { message: 'chatprobe upstream fails this request every time', type: 'server_error', param: null, code: null } },
  }),
  errorCase('response_rate_limited', 'A 429 from the upstream reaches the client as a 429 (not a 500), with its body.', {
    kind: 'json',
    status: 429,
    headers: { 'retry-after': '1' },
    body: { error: { message: 'chatprobe upstream rate limit', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } },
  }),
];

// ---- streams ----

/** The scripted stream of the stream cases: a comment, content in six chunks a gap apart, the finish chunk, a usage chunk when asked for, [DONE]. */
export const STREAM_GAP_MS = 60;
/** Content chunks that arrive within this many ms arrived as one burst. */
const BURST_MS = 15;
const STREAM_WORDS = ['one', ' two', ' three', ' four', ' five', ' six'];
function scriptedStream(model: string, asked: Asked): Scripted {
  return {
    kind: 'stream',
    gapMs: STREAM_GAP_MS,
    frames: [
      ': chatprobe upstream keep-alive\n\n',
      chunk(model, { role: 'assistant', content: '' }),
      ...STREAM_WORDS.map((w) => chunk(model, { content: w })),
      chunk(model, {}, 'stop'),
      ...(asked.includeUsage ? [usageChunk(model)] : []),
      'data: [DONE]\n\n',
    ],
  };
}

/** The upstream's stream and the client's, each read as a client reads it, with the findings about the answer as a whole. */
interface ComparedStreams {
  x: StreamExchange;
  sent: StreamView;
  got: StreamView;
  findings: Finding[];
}

/**
 * What the client received of a scripted stream against what the upstream sent, or the verdict when they
 * cannot be compared. Every stream case judges the answer as a whole: what a client assembles from what
 * came back (content, reasoning, roles, tool calls, finish reasons, and the last usage when the client
 * asked for usage) against what the upstream's stream assembles.
 */
function compareStreams(ev: CaseEvidence, usageInWhole: boolean): ComparedStreams | ProbeVerdict {
  const stop = answerUnjudgeable(ev, 'stream');
  if (stop) return stop;
  if (ev.scripted.kind !== 'stream') return inconclusive('the upstream was not asked for a stream (stream: true did not reach it; the passthrough.stream case judges that): no stream of its to compare');
  const x = ev.x as StreamExchange;
  if (!x.ok) return conformance([fail('status_changed', `the upstream streamed HTTP 200, the client got ${describeFailure(x)}`)], '');
  // chatprobe keeps a stream's first STREAM_RECORD_CHARS characters: past them the two cannot be set side by side.
  if (x.text.length >= STREAM_RECORD_CHARS) {
    return inconclusive(`the stream the client received passed the ${STREAM_RECORD_CHARS} characters chatprobe keeps of one (its own limit): it cannot be compared with the upstream's`);
  }
  const sent = viewOf(ev.scripted.frames.join(''));
  const got = viewOf(x.text);
  const findings = sentAgain(ev);
  if (got.events.length === 0 && !got.done) {
    findings.push(fail('not_a_stream', `the upstream streamed, the client received no stream: ${x.contentType || 'no Content-Type'}, ${show(x.text)}`));
    return conformance(findings, '');
  }
  const whole = wholeChanges(sent, got, usageInWhole);
  if (whole.length > 0) findings.push(fail('answer_changed', `the answer a client assembles changed: ${whole.join('; ')}`));
  // The OpenAI SDKs parse every data event as JSON: one that is not throws in the client's hands.
  if (got.notJson.length > sent.notJson.length) findings.push(fail('not_json', `the client received data events that are not JSON, which the upstream never sent: ${got.notJson.map((d) => show(d)).join(', ')}`));
  return { x, sent, got, findings };
}

const asksUsage = (ev: CaseEvidence) => askedOf(ev.sent).includeUsage;

/** Frame by frame: which pieces came twice, never, or out of order (a failure when the answer changed), and what else was rewritten. */
function judgeFrames(c: ComparedStreams): ProbeVerdict {
  const { sent, got, findings } = c;
  if (got.comments === 0 && sent.comments > 0) findings.push(note('comments_dropped', 'the stream’s comment line did not reach the client (harmless: clients skip comments)'));
  if (!got.done) findings.push(fail('done_dropped', 'data: [DONE] did not reach the client'));
  if (got.tooDeep > sent.tooDeep) findings.push(warn('too_deep', `${got.tooDeep - sent.tooDeep} event(s) the upstream never sent, nested deeper than chatprobe parses (its own limit): not compared`));
  if (got.afterDone > 0) findings.push(warn('after_done', `${got.afterDone} event(s) came after data: [DONE], where a client has stopped reading`));
  const pieces = pieceChanges(sent.pieces, got.pieces);
  if (pieces.length > 0) {
    // The pieces explain a changed answer; when the answer assembles the same, they were only cut differently.
    const changed = findings.some((f) => f.code === 'answer_changed');
    findings.push(changed ? fail('pieces', `frame by frame: ${pieces.join('; ')}`) : warn('rechunked', `the answer came in other pieces, the same once assembled: ${pieces.slice(0, 4).join('; ')}`));
  }
  const { trivial, rewritten, unmatched } = eventRewrites(sent, got);
  if (rewritten.length > 0) findings.push(warn('rewritten', `events rewritten beyond what a client assembles: ${rewritten.join('; ')}`));
  if (unmatched > 0 && pieces.length === 0 && rewritten.length === 0) findings.push(warn('regrouped', `${sent.events.length} events sent, ${got.events.length} received: the same pieces, grouped otherwise`));
  if (trivial.length > 0) findings.push(note('trivial', `rewrites no client sees: ${trivial.join('; ')}`));
  return conformance(findings, `${got.events.length} events and [DONE] received as sent${trivial.length > 0 ? `, but for rewrites no client sees (${trivial.join('; ')})` : ''}`);
}

const isZero = (u: unknown) => isObject(u) && Object.values(u).every((v) => v === 0 || (isObject(v) && Object.values(v).every((w) => w === 0)));

/**
 * The usage as a client reads it: the last usage it sees against the upstream's, where it came (a chunk of
 * its own with `choices: []`, as the upstream sent it, or inside a chunk that carries pieces of the answer),
 * and usage the upstream never sent on other events.
 */
function judgeUsage(c: ComparedStreams): ProbeVerdict {
  const { sent, got, findings } = c;
  const want = sent.lastUsage;
  const carriers = got.events.map((e, i) => [e, i] as const).filter((p): p is readonly [Record<string, unknown>, number] => isObject(p[0]) && isObject(p[0].usage));
  if (want === undefined) {
    // The upstream streams usage only when the request it received asks for it.
    findings.push(fail('include_usage_dropped', 'the upstream was not asked for usage (stream_options.include_usage did not reach it), so it sent none'));
    if (carriers.length > 0) findings.push(warn('usage_of_its_own', `the client received usage the upstream never sent (${show(got.lastUsage)}): the gateway's own count`));
    return conformance(findings, '');
  }
  if (carriers.length === 0) {
    findings.push(fail('dropped', 'the usage chunk did not reach the client'));
    return conformance(findings, '');
  }
  const carrier = carriers.find(([e]) => sameJson(e.usage, want));
  if (!sameJson(got.lastUsage, want)) {
    const earlier = carrier ? ` (the upstream's usage came earlier, in event ${carrier[1] + 1} of ${got.events.length})` : '';
    findings.push(fail('changed', `the last usage a client sees is ${show(got.lastUsage)}, the upstream reported ${show(want)}${earlier}`));
  }
  if (carrier && Array.isArray(carrier[0].choices) && carrier[0].choices.length > 0) {
    const carried = piecesOf(carrier[0], carrier[1]);
    const count = (list: readonly { key: string }[], key: string) => list.filter((p) => p.key === key).length;
    const repeated = carried.filter((p) => count(got.pieces, p.key) > count(sent.pieces, p.key));
    if (repeated.length > 0) {
      findings.push(
        fail(
          'usage_in_content_chunk',
          `the usage arrived inside a chunk that repeats ${repeated.map((p) => p.label).join(' and ')} (its choices not empty), not in a chunk of its own with choices: [] as the upstream sent it: a client assembles the piece again`,
        ),
      );
    } else findings.push(warn('usage_moved', `the usage arrived inside a chunk carrying ${carried.length > 0 ? carried.map((p) => p.label).join(' and ') : 'a choice'}, not in a chunk of its own with choices: [] as the upstream sent it`));
  }
  const others = carriers.filter(([e]) => e !== carrier?.[0]);
  if (others.length > 0) {
    const values = [...new Set(others.map(([e]) => show(e.usage)))];
    const zero = others.every(([e]) => isZero(e.usage));
    findings.push(
      warn(
        'usage_added',
        `${others.length} other event(s) carry usage the upstream never sent (${values.slice(0, 2).join(', ')})${zero ? ': a client that keeps the last usage it sees may read 0' : ''}`,
      ),
    );
  }
  return conformance(findings, 'the usage chunk received unchanged, in a chunk of its own (choices: [])');
}

/** Timing: the upstream spaced its content chunks STREAM_GAP_MS apart. */
function judgeTiming(ev: CaseEvidence, c: ComparedStreams): ProbeVerdict {
  const { x, sent, findings } = c;
  const times = x.assembled?.contentTimes ?? [];
  const contentEvents = new Set(sent.pieces.filter((p) => p.key.startsWith('content')).map((p) => p.event)).size;
  const sentSpan = (contentEvents - 1) * (ev.scripted as { gapMs: number }).gapMs;
  if (times.length < 3) return inconclusive(`only ${times.length} content chunk(s) reached the client: too few to time`);
  const span = times.at(-1)! - times[0]!;
  const seen = `content chunks arrived over ${Math.round(span)} ms; the upstream spread them over ${sentSpan} ms`;
  if (span >= sentSpan / 2) return conformance([...findings, note('timing', seen)], seen);
  if (span > BURST_MS) return inconclusive(`${seen}: neither spread nor one burst`);
  // The control: our own loop held up for about the whole span would have read an honest stream as one
  // burst too (the chunks sent before a shorter hold-up began are read before it).
  if (ev.loopLagMs > BURST_MS && ev.loopLagMs >= sentSpan - BURST_MS) {
    return inconclusive(`${seen}, but chatprobe's own event loop was held up ${Math.round(ev.loopLagMs)} ms while they arrived, long enough to gather them into one burst: the burst may be ours, not the gateway's`);
  }
  return conformance([...findings, fail('buffered', `${seen}: the gateway buffers the stream and sends it in one burst`)], '');
}

/**
 * A stream that did not ask for usage: stream_options.include_usage added on the way is a finding, and a
 * chunk with `choices: []` the client never asked for breaks a client that reads choices[0] of every chunk
 * (OpenAI sends one only when asked).
 */
function judgeUnasked(ev: CaseEvidence, c: ComparedStreams): ProbeVerdict {
  const { got, findings } = c;
  const received = recordedRequest(ev);
  const options = isObject(received) && isObject(received.stream_options) ? received.stream_options : undefined;
  if (!('stream_options' in ev.sent) && options) {
    if (options.include_usage === true) findings.push(warn('injected', `the gateway added stream_options ${show(options)} to a stream that did not ask for usage`));
    else findings.push(note('added', `the gateway added stream_options ${show(options)}`));
  }
  const empty = got.events.filter((e) => isObject(e) && Array.isArray(e.choices) && e.choices.length === 0).length;
  const usage = got.events.filter((e) => isObject(e) && isObject(e.usage)).length;
  if (empty > 0) {
    findings.push(fail('usage_unasked', `the client received ${empty === 1 ? 'a chunk' : `${empty} chunks`} with choices: [] it did not ask for (usage: ${show(got.lastUsage)}): a client that reads choices[0] of every chunk breaks on it`));
  } else if (usage > 0) findings.push(warn('usage_unasked', `the client received usage it did not ask for, in ${usage} event(s) (${show(got.lastUsage)})`));
  return conformance(findings, 'no usage asked for, none received');
}

/** The Content-Type the upstream streamed with (text/event-stream) against the client's. */
function judgeContentType(c: ComparedStreams): ProbeVerdict {
  const { x, findings } = c;
  const type = x.contentType;
  const refused = "a client that checks it (a browser's EventSource, Python's httpx-sse) refuses the stream";
  if (!type) findings.push(fail('content_type_dropped', `the upstream streamed with Content-Type: text/event-stream, the client got no Content-Type: ${refused}`));
  else if (!type.includes('text/event-stream')) findings.push(fail('content_type_changed', `the upstream streamed with Content-Type: text/event-stream, the client got ${type}: ${refused}`));
  return conformance(findings, `Content-Type: ${type} received as the upstream sent it`);
}

/** The request as the upstream recorded it, parsed (undefined when it is not JSON or nothing reached it). */
function recordedRequest(ev: CaseEvidence): unknown {
  const body = ev.records[0]?.body ?? '';
  if (tooDeep(body)) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** A stream case: the scripted stream (its usage chunk only when the request that reached the upstream asks for one), one aspect of it judged beside the whole answer. */
function streamCase(id: string, requirement: string, judge: (ev: CaseEvidence, c: ComparedStreams) => ProbeVerdict, options: { body?: Record<string, unknown>; usageInWhole?: boolean } = {}): PassCase {
  return {
    id,
    requirement,
    body: options.body ?? { stream: true, stream_options: { include_usage: true } },
    stream: true,
    respond: scriptedStream,
    judge(ev) {
      const c = compareStreams(ev, options.usageInWhole ?? asksUsage(ev));
      return 'sent' in c ? judge(ev, c) : c;
    },
  };
}

const STREAMS: PassCase[] = [
  streamCase('stream_frames', 'A stream reaches the client event for event, with data: [DONE]: every piece of the answer once and in order (ids, nulls and key order may be rewritten; comment lines may be dropped).', (_, c) => judgeFrames(c)),
  streamCase('stream_usage', 'The usage chunk at the end of a stream (include_usage) reaches the client unchanged, in a chunk of its own (choices: []), and no other event carries usage.', (_, c) => judgeUsage(c), { usageInWhole: false }),
  streamCase('stream_timing', 'A stream reaches the client as the upstream sends it, not buffered into one burst.', judgeTiming),
  streamCase('stream_usage_unasked', 'A stream that does not ask for usage reaches the upstream without stream_options.include_usage, and the client without a usage chunk (choices: []).', judgeUnasked, { body: { stream: true } }),
  streamCase('stream_content_type', 'A stream reaches the client with Content-Type: text/event-stream, as the upstream sent it.', (_, c) => judgeContentType(c), { body: { stream: true } }),
];

export const CASES: readonly PassCase[] = [...REQUEST_SHAPE, ...PARAMETERS, ...OUT_OF_RANGE, UNKNOWN, ...ROLES, ...RESPONSES, ...STREAMS];
export const CASE_BY_ID = new Map(CASES.map((c) => [c.id, c]));

/** The request a case sends: its fields, the output limit unless the case sets one, the marked message last. */
export function requestOf(c: PassCase, model: string, marker: string): { body: Record<string, unknown>; headers: Record<string, string> } {
  const text = `Reply with "ok". ${marker}`;
  const last = { role: 'user', content: c.parts ? c.parts(marker) : text };
  const fields = c.body ?? {};
  const limit = 'max_tokens' in fields || 'max_completion_tokens' in fields ? {} : { max_tokens: LIMIT };
  return { body: { model, messages: [...(c.history ?? []), last, ...(c.after ?? [])], ...limit, ...fields }, headers: c.headers?.(marker) ?? {} };
}

/**
 * The upstream's answer to a case's request, given the request as the upstream received it (a request with
 * no known case gets the default).
 */
export function answerOf(caseId: string | undefined, model: string, request: unknown): Scripted {
  const c = caseId ? CASE_BY_ID.get(caseId) : undefined;
  const asked = askedOf(request);
  return c?.respond ? c.respond(model, asked) : defaultAnswer(model, asked);
}
