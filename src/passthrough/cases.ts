import type { Exchange, StreamExchange } from '../engine/exchange.js';
import type { ProbeVerdict } from '../engine/probe.js';
import { conformance, describeFailure, fail, inconclusive, note, ourCut, warn } from '../engine/verdicts.js';
import type { Finding } from '../report/model.js';
import { addedKeys, at, differences, fateOf, type Json, keyOrder, type Path, pathText, sameJson, show } from './diff.js';

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
  /** The upstream's answer (default: a short completion, or a short stream when one is asked for). */
  respond?: (model: string) => Scripted;
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
const sentAgain = (ev: CaseEvidence): Finding[] =>
  ev.records.length > 1 ? [warn('sent_again', `the upstream received this request ${ev.records.length} times: the gateway sent it again`)] : [];

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

export function defaultAnswer(model: string, stream: boolean): Scripted {
  if (!stream) return { kind: 'json', status: 200, body: completion(model, { content: 'ok' }) };
  return { kind: 'stream', gapMs: 0, frames: [chunk(model, { role: 'assistant', content: '' }), chunk(model, { content: 'ok' }), chunk(model, {}, 'stop'), 'data: [DONE]\n\n'] };
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
  let got: unknown;
  try {
    got = JSON.parse(ev.records[0]!.body);
  } catch {
    return conformance([fail('not_json', `the upstream received a body that is not JSON: ${show(ev.records[0]!.body)}`)], '');
  }
  if (got === null || typeof got !== 'object' || Array.isArray(got)) return conformance([fail('not_json', `the upstream received ${show(got)}, not a JSON object`)], '');
  const findings: Finding[] = [];
  if (ev.records.length > 1) findings.push(warn('sent_again', `the upstream received this request ${ev.records.length} times: the gateway sent it again`));
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
const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const PARAMETERS: PassCase[] = [
  field('max_tokens', { max_tokens: LIMIT }, 'max_tokens reaches the upstream as sent.'),
  field('max_completion_tokens', { max_completion_tokens: LIMIT }, 'max_completion_tokens reaches the upstream as sent.'),
  field('temperature', { temperature: 0.7 }, 'temperature reaches the upstream as sent.'),
  field('top_p', { top_p: 0.9 }, 'top_p reaches the upstream as sent.'),
  field('seed', { seed: 42 }, 'seed reaches the upstream as sent.'),
  field('stop', { stop: ['chatprobe-stop'] }, 'stop reaches the upstream as sent.'),
  field('stop_many', { stop: ['chatprobe-a', 'chatprobe-b', 'chatprobe-c', 'chatprobe-d'] }, 'Four stop strings reach the upstream as sent (none cut off).'),
  field('n', { n: 2 }, 'n reaches the upstream as sent.'),
  field('presence_penalty', { presence_penalty: 0.5 }, 'presence_penalty reaches the upstream as sent.'),
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

/** A verdict on what the client received of a scripted JSON answer at `paths`. */
export function judgeAnswer(ev: CaseEvidence, paths: readonly Path[], severity: Severity, ok: string): ProbeVerdict {
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
  const sent = scripted.body as Record<string, unknown>;
  for (const path of paths) {
    const name = pathText(path);
    const f = fateOf(sent, got as Record<string, unknown>, path);
    if (f.fate === 'unchanged') findings.push(note('kept', `${name}: received as the upstream sent it`));
    else if (f.fate === 'renamed') findings.push(finding(severity, 'renamed', `${name} arrived renamed to ${f.to}`));
    else if (f.fate === 'changed') {
      const detail = typeof f.from === 'object' && f.from !== null ? differences(f.from, f.value).slice(0, 4).join('; ') : `the upstream sent ${show(f.from)}, the client got ${show(f.value)}`;
      findings.push(finding(severity, 'changed', `${name} changed on the way back: ${detail}`));
    } else findings.push(finding(severity, 'dropped', `${name} was dropped: the upstream sent it, the client did not receive it`));
  }
  return conformance(findings, ok);
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
      const findings: Finding[] = sentAgain(ev);
      if (ev.x.status !== scripted.status) findings.push(fail('status_changed', `the upstream answered HTTP ${scripted.status}, the client got ${describeFailure(ev.x)}`));
      const sentBody = scripted.body;
      const got = ev.x.json !== undefined ? ev.x.json : ev.x.text;
      if (!sameJson(sentBody, got)) {
        const changes = typeof sentBody === 'object' && typeof got === 'object' ? differences(sentBody, got).slice(0, 6).join('; ') : `the upstream sent ${show(sentBody)}, the client got ${show(got)}`;
        findings.push(warn('reshaped', `the error body was rewritten: ${changes}`));
      }
      return conformance(findings, `HTTP ${scripted.status} and its body received as the upstream sent them`);
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
  errorCase('response_rate_limited', 'A 429 from the upstream reaches the client as a 429 (not a 500), with its body.', {
    kind: 'json',
    status: 429,
    headers: { 'retry-after': '1' },
    body: { error: { message: 'chatprobe upstream rate limit', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } },
  }),
];

// ---- streams ----

interface Frame {
  comment?: string;
  data?: string;
}

/** The frames of an SSE text, in order: comments and data (multi-line data joined). */
export function framesOf(text: string): Frame[] {
  const out: Frame[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) out.push({ comment: line.slice(1).trim() });
      else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length > 0) out.push({ data: data.join('\n') });
  }
  return out;
}

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

/** The scripted stream of the stream cases: a comment, content in six chunks a gap apart, a usage chunk, [DONE]. */
export const STREAM_GAP_MS = 60;
/** Content chunks that arrive within this many ms arrived as one burst. */
const BURST_MS = 15;
function scriptedStream(model: string): Scripted {
  const words = ['one', ' two', ' three', ' four', ' five', ' six'];
  return {
    kind: 'stream',
    gapMs: STREAM_GAP_MS,
    frames: [
      ': chatprobe upstream keep-alive\n\n',
      chunk(model, { role: 'assistant', content: '' }),
      ...words.map((w) => chunk(model, { content: w })),
      chunk(model, {}, 'stop'),
      usageChunk(model),
      'data: [DONE]\n\n',
    ],
  };
}

/** What the client received of a scripted stream, against the frames the upstream sent. */
export function judgeStream(ev: CaseEvidence, aspect: 'frames' | 'usage' | 'timing'): ProbeVerdict {
  const stop = answerUnjudgeable(ev, 'stream');
  if (stop) return stop;
  if (ev.scripted.kind !== 'stream') return inconclusive('not a stream');
  const x = ev.x as StreamExchange;
  if (!x.ok) return conformance([fail('status_changed', `the upstream streamed HTTP 200, the client got ${describeFailure(x)}`)], '');
  const sent = framesOf(ev.scripted.frames.join(''));
  const got = framesOf(x.text);
  const data = (fs: Frame[]) => fs.filter((f) => f.data !== undefined).map((f) => parse(f.data!));
  const sentData = data(sent);
  const gotData = data(got);
  const findings: Finding[] = sentAgain(ev);
  if (aspect === 'frames') {
    const comments = got.filter((f) => f.comment !== undefined).length;
    if (comments === 0) findings.push(note('comments_dropped', 'the stream’s comment line did not reach the client (harmless: clients skip comments)'));
    if (!gotData.includes('[DONE]')) findings.push(fail('done_dropped', 'data: [DONE] did not reach the client'));
    const a = sentData.filter((d) => d !== '[DONE]');
    const b = gotData.filter((d) => d !== '[DONE]');
    if (!sameJson(a, b)) {
      findings.push(warn('reframed', `the stream's events were rewritten: ${a.length} sent, ${b.length} received; ${differences(a, b).slice(0, 4).join('; ')}`));
    }
    return conformance(findings, `${b.length} events and [DONE] received as sent`);
  }
  if (aspect === 'usage') {
    const want = sentData.find((d) => typeof d === 'object' && d !== null && 'usage' in d) as { usage: unknown };
    const have = gotData.filter((d) => typeof d === 'object' && d !== null && (d as { usage?: unknown }).usage) as { usage: unknown }[];
    if (have.length === 0) findings.push(fail('dropped', 'the usage chunk did not reach the client'));
    else if (!sameJson(have.at(-1)!.usage, want.usage)) findings.push(fail('changed', `the stream's usage changed on the way: ${differences(want.usage, have.at(-1)!.usage).join('; ')}`));
    return conformance(findings, 'the usage chunk received unchanged');
  }
  // Timing: the upstream spaced its content chunks STREAM_GAP_MS apart.
  const times = x.assembled?.contentTimes ?? [];
  const sentSpan = (sentData.filter((d) => JSON.stringify(d).includes('"content":"') && !JSON.stringify(d).includes('"content":""')).length - 1) * ev.scripted.gapMs;
  if (times.length < 3) return inconclusive(`only ${times.length} content chunk(s) reached the client: too few to time`);
  const span = times.at(-1)! - times[0]!;
  const seen = `content chunks arrived over ${Math.round(span)} ms; the upstream spread them over ${sentSpan} ms`;
  if (span >= sentSpan / 2) return conformance([note('timing', seen)], seen);
  if (span > BURST_MS) return inconclusive(`${seen}: neither spread nor one burst`);
  // The control: our own loop held up for about the whole span would have read an honest stream as one
  // burst too (the chunks sent before a shorter hold-up began are read before it).
  if (ev.loopLagMs > BURST_MS && ev.loopLagMs >= sentSpan - BURST_MS) {
    return inconclusive(`${seen}, but chatprobe's own event loop was held up ${Math.round(ev.loopLagMs)} ms while they arrived, long enough to gather them into one burst: the burst may be ours, not the gateway's`);
  }
  return conformance([fail('buffered', `${seen}: the gateway buffers the stream and sends it in one burst`)], '');
}

/** A case reading one aspect of the same scripted stream. */
const streamCase = (id: string, aspect: Parameters<typeof judgeStream>[1], requirement: string): PassCase => ({
  id,
  requirement,
  body: { stream: true, stream_options: { include_usage: true } },
  stream: true,
  respond: scriptedStream,
  judge: (ev) => judgeStream(ev, aspect),
});

const STREAMS: PassCase[] = [
  streamCase('stream_frames', 'frames', 'A stream reaches the client event for event, with data: [DONE] (comment lines may be dropped).'),
  streamCase('stream_usage', 'usage', 'The usage chunk at the end of a stream (include_usage) reaches the client unchanged.'),
  streamCase('stream_timing', 'timing', 'A stream reaches the client as the upstream sends it, not buffered into one burst.'),
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

/** The upstream's answer to a case's request (a request with no known case gets the default). */
export function answerOf(caseId: string | undefined, model: string, stream: boolean): Scripted {
  const c = caseId ? CASE_BY_ID.get(caseId) : undefined;
  return c?.respond ? c.respond(model) : defaultAnswer(model, stream);
}
