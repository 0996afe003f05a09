import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { openaiError, refuse, rejection, type Refusal, type Reply } from './errors.js';
import type { Behaviour, Profile, ProfileModel, ServerSettings } from './profile.js';
import { Draws, generate } from './generate.js';
import { applyRoles, type Message } from './roles.js';
import { countPromptTokens, familyPromptTokens, hash, tokenize } from './pseudo-model.js';
import { completionBody, frame, streamSteps, type Answer } from './respond.js';

export interface ReferenceServerOptions {
  profile: Profile;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** When set, only `Authorization: Bearer <apiKey>` is accepted; otherwise any non-empty bearer token. */
  apiKey?: string;
  /** Keep every request body whole in `received` (`raw`), for replaying a run (bench/run.ts). */
  recordBodies?: boolean;
}

export interface ReferenceServer {
  /** Base URL ending in /v1. */
  url: string;
  /** Every request received, in order (tests count what an audit sent, and check each chat request's limit). */
  received: { method: string; path: string; limited?: boolean; body?: string; raw?: string }[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Serve another profile from now on, at the same URL: a model that changes between two audits. */
  setProfile(profile: Profile): void;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 1024 * 1024;
/** Body keys that are the request itself rather than optional features. */
const CORE_KEYS = new Set(['model', 'messages', 'stream']);
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

interface Incoming {
  req: IncomingMessage;
  res: ServerResponse;
  profile: Profile;
  /** The caller's bearer token, only ever echoed by profiles that test redaction. */
  token: string;
  /** Failed requests so far per model, for failures limited to the first few. */
  failures: Map<string, number>;
  draws: Draws;
  /** This start of the server, for weights that change at every start (Quirks.weightsPerStart). */
  start: string;
  /** Requests so far per model and conversation, for a round robin of backends (Quirks.roundRobin). */
  turns: Map<string, number>;
  /** A response cache's answers by request body (Quirks.cache). */
  cache: Map<string, Reply>;
  /** This request's line in `received`. */
  entry: ReferenceServer['received'][number];
  ledger: Ledger;
  record: boolean;
  /** What the meter charges this call for, filled in as the request is read and answered. */
  bill?: { model: ProfileModel; limit: number | undefined; streamed: boolean; usage?: { prompt: number; completion: number } };
}

/**
 * The calling key's spending, in quota units: charges that show at once, and charges still to show (after
 * so many more reads, and not before `due`, a Date.now() time).
 */
interface Ledger {
  used: number;
  pending: { amount: number; reads: number; due: number }[];
}

type Json = Record<string, unknown>;

let counter = 0;
const nextId = () => (++counter).toString(36);

function send(c: Incoming, reply: Reply): void {
  const { server } = c.profile;
  const headers: Record<string, string> = { ...reply.headers, [server.requestIdHeader]: `req_ref_${nextId()}` };
  let body = reply.body;
  if (server.echoKey && c.token) {
    headers['x-echo-authorization'] = `Bearer ${c.token}`;
    // Inside the JSON string, escaped as a real server's serialiser would.
    if (reply.status >= 400) body = body.replace(/("message":\s*"[^"]*)/, (m) => `${m} (received key ${JSON.stringify(c.token).slice(1, -1)})`);
  }
  if (server.errorPadding > 0 && reply.status >= 400 && reply.status < 500) body += ' '.repeat(server.errorPadding);
  c.res.writeHead(reply.status, headers);
  c.res.end(body);
}

const json = (status: number, body: unknown): Reply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** OpenAI's answers to a missing or wrong key, or those of the server the profile imitates. */
function authorise(c: Incoming, apiKey: string | undefined): Reply | undefined {
  const header = c.req.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  c.token = match?.[1]?.trim() ?? '';
  const style = c.profile.server.auth;
  if (style === 'none') return undefined;
  const missing = !header;
  if (!missing && c.token && (apiKey === undefined || c.token === apiKey)) return undefined;
  if (style === 'broken') return { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' };
  if (style === 'vllm') return json(401, { error: 'Unauthorized' });
  if (missing) {
    return openaiError(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.", 'invalid_request_error', null);
  }
  return openaiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
}

function listModels(c: Incoming): Reply {
  const { modelList } = c.profile.server;
  const data = c.profile.models
    .filter((m) => m.listed)
    .map((m) => {
      const entry: Json = { id: m.id, object: 'model', created: modelList.created, owned_by: m.ownedBy, ...m.extra };
      if (modelList.omitCreated) delete entry.created;
      return entry;
    });
  if (modelList.duplicateFirst && data[0]) data.push({ ...data[0] });
  return json(200, { object: 'list', data });
}

function invalid(c: Incoming, kind: Refusal, message: string, param: string | null): Reply {
  return refuse(c.profile.server.errorStyle, c.profile.server.unknownModel, kind, message, param);
}

/** Validates like OpenAI does; `lenient` profiles let wrong types and unknown roles through. */
function validate(c: Incoming, body: Json): Reply | undefined {
  if (typeof body.model !== 'string' || body.model === '') return invalid(c, 'invalid_request', "Missing required parameter: 'model'.", 'model');
  if (!Array.isArray(body.messages)) return invalid(c, 'invalid_request', "Missing required parameter: 'messages'.", 'messages');
  if (body.messages.length === 0) return invalid(c, 'invalid_request', "Invalid 'messages': empty array. Expected an array with minimum length 1.", 'messages');
  if (c.profile.server.validation === 'lenient') return undefined;
  for (const key of ['temperature', 'top_p', 'max_tokens', 'presence_penalty', 'frequency_penalty']) {
    if (key in body && typeof body[key] !== 'number') {
      return invalid(c, 'invalid_request', `Invalid type for '${key}': expected a decimal, but got a string instead.`, key);
    }
  }
  for (const [i, m] of (body.messages as unknown[]).entries()) {
    const role = (m as { role?: unknown })?.role;
    if (typeof role !== 'string' || !ROLES.has(role)) {
      return invalid(c, 'invalid_request', `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages[${i}].role`);
    }
  }
  return undefined;
}

/** The ranges OpenAI documents; a value outside is refused, clamped, or crashes the server, as the model's route does. */
const RANGES: Record<string, [number, number]> = {
  temperature: [0, 2],
  top_p: [0, 1],
  max_tokens: [1, Number.MAX_SAFE_INTEGER],
  max_completion_tokens: [1, Number.MAX_SAFE_INTEGER],
  n: [1, 128],
};

function outOfRange(c: Incoming, model: ProfileModel, body: Json): Reply | undefined {
  for (const [key, [lo, hi]] of Object.entries(RANGES)) {
    const v = body[key];
    if (typeof v !== 'number' || (v >= lo && v <= hi)) continue;
    switch (model.quirks.outOfRange) {
      case 'clamp':
        // As a gateway that "fixes" requests does: a negative limit becomes 0, temperature 5 becomes 2.
        body[key] = Math.min(hi, Math.max(key.startsWith('max_') ? 0 : lo, v));
        break;
      case 'crash':
        return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Internal Server Error' };
      case 'unnamed':
        return invalid(c, 'invalid_request', 'Invalid request.', null);
      case 'llama-cpp':
        if (key === 'temperature' || key === 'top_p') break;
        return openaiError(400, `Field '${key}': Value must be between ${key === 'n' ? '1 <= value <= 4' : '-1 <= value <= 2147483647'}, but got ${v}`, 'invalid_request_error', null, null);
      default:
        return invalid(c, 'invalid_request', `Invalid '${key}': ${v < lo ? `value below minimum. Expected a value >= ${lo}` : `value above maximum. Expected a value <= ${hi}`}, but got ${v} instead.`, key);
    }
  }
  return undefined;
}

/** What a reasoning model refuses: an effort it does not know, or reasoning_content sent back when it takes none. */
function reasoningRequest(model: ProfileModel, body: Json): Reply | undefined {
  const r = model.quirks.reasoning;
  if (!r) return undefined;
  const effort = body.reasoning_effort;
  if (r.validateEffort && effort !== undefined && !['low', 'medium', 'high'].includes(String(effort))) {
    return openaiError(400, `Invalid value for 'reasoning_effort': '${String(effort)}'. Supported values are: 'low', 'medium', and 'high'.`, 'invalid_request_error', 'invalid_value', 'reasoning_effort');
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const echoed = messages.findIndex((m) => typeof m === 'object' && m !== null && 'reasoning_content' in m);
  if (r.echo === 'reject' && echoed >= 0) {
    return openaiError(400, `Unrecognized request argument supplied: messages[${echoed}].reasoning_content`, 'invalid_request_error', null, `messages[${echoed}].reasoning_content`);
  }
  return undefined;
}

/** A chat request, then what the meter charges for it (when the profile has a meter). */
async function chatCompletions(c: Incoming): Promise<Reply | undefined> {
  const reply = await answerChat(c);
  const meter = c.profile.server.meter;
  if (meter && c.bill) charge(c.ledger, meter, costOf(c.bill, reply));
  return reply;
}

/** Quota units, rounded as new-api rounds them: a refused call is free unless the model pre-charges and keeps it. */
function costOf(bill: NonNullable<Incoming['bill']>, reply: Reply | undefined): number {
  const q = bill.model.quirks.billing;
  if (reply && reply.status >= 400) return q.failures === 'bill' ? Math.round((bill.limit ?? 0) * q.completion + q.perCall) : 0;
  if (!bill.usage) return 0;
  const completion = q.byLimit && bill.limit !== undefined ? bill.limit : bill.usage.completion;
  const amount = Math.round((bill.usage.prompt + q.unreported) * q.prompt + completion * q.completion + q.perCall);
  if (!bill.streamed) return amount;
  return q.stream === 'free' ? 0 : q.stream === 'double' ? 2 * amount : amount;
}

function charge(ledger: Ledger, meter: NonNullable<ServerSettings['meter']>, amount: number): void {
  if (amount === 0) return;
  if (meter.lagReads > 0 || meter.lateMs > 0) ledger.pending.push({ amount, reads: meter.lagReads, due: Date.now() + meter.lateMs });
  else ledger.used += amount;
}

/** The balance routes of the gateways the meter imitates, each in its own shape and unit. */
const METER_ROUTES = { 'new-api': '/api/usage/token', openrouter: '/v1/key', litellm: '/key/info', 'one-api': '/v1/dashboard/billing/usage' } as const;
const GRANTED = 50_000_000;

function readMeter(c: Incoming): Reply {
  const meter = c.profile.server.meter!;
  const { ledger } = c;
  const now = Date.now();
  const landed = (p: Ledger['pending'][number]) => p.reads <= 0 && p.due <= now;
  for (const p of ledger.pending) {
    p.reads--;
    if (landed(p)) ledger.used += p.amount;
  }
  ledger.pending = ledger.pending.filter((p) => !landed(p));
  ledger.used += meter.drift;
  const used = ledger.used;
  switch (meter.kind) {
    case 'new-api':
      return json(200, {
        code: true,
        message: 'ok',
        data: { object: 'token_usage', name: 'chatprobe', total_granted: GRANTED, total_used: used, total_available: GRANTED - used, unlimited_quota: false, model_limits: {}, model_limits_enabled: false, expires_at: 0 },
      });
    case 'openrouter':
      return json(200, { data: { label: 'sk-or-v1-ref...ref', usage: used / 500_000, limit: null, is_free_tier: false, is_provisioning_key: false } });
    case 'litellm':
      return json(200, { key: 'hashed-reference-key', info: { spend: used / 500_000, max_budget: null, models: [] } });
    case 'one-api':
      return json(200, { object: 'list', total_usage: used / 5_000 });
  }
}

async function answerChat(c: Incoming): Promise<Reply | undefined> {
  const raw = await readBody(c.req);
  if (raw === undefined) return openaiError(413, 'Request body too large.', 'invalid_request_error', null);
  c.entry.limited = /"max(_completion)?_tokens"\s*:\s*\d/.test(raw);
  if (c.record) c.entry.raw = raw;
  if (!c.entry.limited) c.entry.body = raw.slice(0, 2000);
  let body: Json;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    body = parsed as Json;
  } catch {
    return invalid(c, 'invalid_json', 'We could not parse the JSON body of your request.', null);
  }
  const billed = c.profile.models.find((m) => m.id === body.model);
  if (billed) {
    const limit = [body.max_tokens, body.max_completion_tokens].find((v): v is number => typeof v === 'number');
    c.bill = { model: billed, limit, streamed: body.stream === true };
  }
  const refusal = validate(c, body);
  if (refusal) return refusal;
  let model = c.profile.models.find((m) => m.id === body.model);
  if (!model) {
    // llama.cpp and friends serve whatever model is loaded, whatever the name asked for.
    if (c.profile.server.unknownModel === 'substitute') model = c.profile.models[0]!;
    else return invalid(c, 'unknown_model', '', String(body.model));
  }
  if (model.failure) {
    const n = (c.failures.get(model.id) ?? 0) + 1;
    c.failures.set(model.id, n);
    if (model.failure.times === undefined || n <= model.failure.times) {
      return { status: model.failure.status, headers: { 'content-type': 'application/json', ...model.failure.headers }, body: JSON.stringify(model.failure.body) };
    }
  }
  const extra = unknownFieldRefusal(c, body);
  if (extra) return extra;
  const range = outOfRange(c, model, body);
  if (range) return range;
  const reasoningRefusal = reasoningRequest(model, body);
  if (reasoningRefusal) return reasoningRefusal;
  if (model.quirks.zeroRefusedWithTools && body.temperature === 0 && Array.isArray(body.tools)) {
    return openaiError(400, "Unsupported value: 'temperature' does not support 0 with tools on this route.", 'invalid_request_error', 'unsupported_value', 'temperature');
  }
  if (c.profile.server.streamOptionsNeedStream && body.stream_options !== undefined && body.stream !== true) {
    return openaiError(400, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'invalid_request_error', 'invalid_value', 'stream_options');
  }
  const honoured = new Set<string>();
  for (const key of Object.keys(body)) {
    if (CORE_KEYS.has(key)) continue;
    const b: Behaviour = model.features[key] ?? 'honour';
    if (typeof b === 'object' && 'reject' in b) {
      const allowed = b.reject.allow?.some((v) => JSON.stringify(v) === JSON.stringify(body[key]));
      if (!allowed) return rejection(b.reject, key);
      honoured.add(key);
    } else if (typeof b === 'object') {
      return json(200, { error: { message: b.error200, type: 'upstream_error', code: 'bad_response' } });
    } else if (b === 'honour') {
      honoured.add(key);
    }
  }
  // top_logprobs travels with logprobs: it is honoured or dropped with it.
  if (honoured.has('logprobs')) honoured.add('top_logprobs');
  const limit = c.profile.server.stopLimit;
  if (limit !== undefined && Array.isArray(body.stop) && body.stop.length > limit) {
    return openaiError(
      400,
      `Invalid 'stop': array too long. Expected an array with maximum length ${limit}, but got an array with length ${body.stop.length} instead.`,
      'invalid_request_error',
      'array_above_max_length',
      'stop',
    );
  }
  const seen = applyRoles(model, body.messages as Message[]);
  if ('refusal' in seen) return seen.refusal;
  const messages = seen.messages;
  const q = { ...model.quirks, ...weightsOf(c, model, messages) };
  const choices = generate({ ...body, messages }, honoured, q, c.draws);
  // The key goes into prose answers only: JSON answers must stay JSON.
  if (c.profile.server.echoKey && c.token && body.response_format === undefined) {
    const first = choices[0]!;
    first.tokens.push(` (key ${c.token})`);
    first.content = first.tokens.join('');
  }
  // Tool definitions are part of the prompt the template renders, when they reach the model.
  const toolTokens = honoured.has('tools') && Array.isArray(body.tools) ? tokenize(JSON.stringify(body.tools)).length : 0;
  // What a relay adds to the prompt, unseen, and counts: a prompt injected into every request, or a default
  // system prompt where the request brings none (as a chat template's own would be).
  const ownSystem = messages.some((m) => m.role === 'system' || m.role === 'developer');
  const added = (q.hiddenPrompt ?? 0) + (ownSystem ? 0 : (q.defaultPrompt ?? 0));
  const counted = q.tokenizer ? familyPromptTokens(messages, q.tokenizer) : countPromptTokens(messages);
  const promptTokens = q.fixedPromptTokens ?? counted + toolTokens + added;
  const generated = choices.reduce((n, ch) => n + ch.tokens.length + ch.reasoningTokens + (ch.toolCalls.length > 0 ? 12 : 0), 0);
  // A relay that over-counts reports, and bills, more than the model made.
  const completionTokens = Math.round(generated * (q.usageInflate ?? 1));
  const usage: Answer['usage'] = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens + q.usageTotalOff };
  if (q.reasoning && q.reasoning.usage !== 'none') {
    const thought = choices.reduce((n, ch) => n + ch.reasoningTokens, 0);
    usage.completion_tokens_details = { reasoning_tokens: q.reasoning.usage === 'over' ? completionTokens + 5 : thought };
  }
  const a: Answer = { id: `chatcmpl-ref${nextId()}`, created: Math.floor(Date.now() / 1000), model, choices, usage };
  const named = q.fingerprint ?? (q.systemFingerprint && q.weights !== undefined ? `fp_${hash(q.weights).toString(16)}` : undefined);
  if (named !== undefined) a.systemFingerprint = named;
  if (c.bill) c.bill.usage = { prompt: promptTokens, completion: completionTokens };
  const streamed = body.stream === true || (q.streamByDefault && body.stream === undefined);
  // A response cache hands an identical request its first answer back, id and all.
  const cached = q.cache && !streamed ? c.cache.get(raw) : undefined;
  if (cached) return cached;
  // A model that never stops, asked without a limit: the answer never comes, only the client's timeout ends it.
  if (q.runaway && q.outputCap === undefined && !['max_tokens', 'max_completion_tokens'].some((k) => honoured.has(k) && typeof body[k] === 'number')) {
    await new Promise<void>((resolve) => c.res.once('close', resolve));
    return undefined;
  }
  if (streamed && !q.stream.ignoreStreamFlag) {
    const opts = body.stream_options as { include_usage?: unknown } | undefined;
    await streamAnswer(c, a, opts?.include_usage === true);
    return undefined;
  }
  const plain = json(200, completionBody(a));
  const reply = q.paddedBody > 0 ? { ...plain, body: plain.body + ' '.repeat(q.paddedBody) } : plain;
  if (q.cache) c.cache.set(raw, reply);
  return reply;
}

/**
 * The weights that answer this request (identity.*): the model's own, with this start's mark when they
 * change at every start, or, behind a round robin, the next backend's for this conversation (repeats of
 * one request go to each in turn, whatever else the model is sent meanwhile).
 */
function weightsOf(c: Incoming, model: ProfileModel, messages: readonly Message[]): { weights?: string; quantized?: number; fingerprint?: string } {
  const q = model.quirks;
  if (q.roundRobin) {
    const key = `${model.id}\u0000${JSON.stringify(messages)}`;
    const turn = c.turns.get(key) ?? 0;
    c.turns.set(key, turn + 1);
    return q.roundRobin[turn % q.roundRobin.length]!;
  }
  if (q.weights === undefined) return {};
  return { weights: q.weightsPerStart ? `${q.weights}#${c.start}` : q.weights };
}

/** Starts of the reference server in this process: with the process and the time, what makes a start its own. */
let starts = 0;

/** The request fields OpenAI's chat completions accept; `forbid` profiles refuse any other. */
const KNOWN_FIELDS = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n', 'stop',
  'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'response_format', 'seed', 'tools',
  'tool_choice', 'parallel_tool_calls', 'user', 'metadata', 'reasoning_effort', 'store', 'service_tier', 'modalities', 'audio',
  'prediction', 'web_search_options', 'functions', 'function_call',
]);

/** pydantic's answer to unknown fields under extra="forbid". */
function unknownFieldRefusal(c: Incoming, body: Json): Reply | undefined {
  if (c.profile.server.unknownFields !== 'forbid') return undefined;
  const unknown = Object.keys(body).filter((k) => !KNOWN_FIELDS.has(k));
  if (unknown.length === 0) return undefined;
  return json(422, { detail: unknown.map((k) => ({ type: 'extra_forbidden', loc: ['body', k], msg: 'Extra inputs are not permitted', input: body[k] })) });
}

async function streamAnswer(c: Incoming, a: Answer, includeUsage: boolean): Promise<void> {
  const s = a.model.quirks.stream;
  const headers: Record<string, string> = { 'content-type': s.contentType, 'cache-control': 'no-cache', [c.profile.server.requestIdHeader]: `req_ref_${nextId()}` };
  if (c.profile.server.echoKey && c.token) headers['x-echo-authorization'] = `Bearer ${c.token}`;
  c.res.writeHead(200, headers);
  let closed = false;
  c.res.on('close', () => {
    closed = true;
  });
  const steps = streamSteps(a, includeUsage);
  if (s.endless) {
    // Content first, then comments forever: only the client's total timeout ends this.
    for (const [i, step] of steps.entries()) if ('data' in step && step.data !== '[DONE]') c.res.write(frame(step, s, i));
    while (!closed) {
      c.res.write(': PING\n\n');
      await sleep(50);
    }
    return;
  }
  if (s.bufferMs > 0) {
    // A buffering gateway: nothing until the upstream answer is complete, then everything at once.
    await sleep(s.bufferMs);
    const whole = steps.map((step, i) => frame(step, s, i)).join('');
    if (!closed) c.res.end(whole);
    return;
  }
  for (const [i, step] of steps.entries()) {
    if (closed) return;
    if ('stall' in step) return; // keep the connection open and send nothing more
    if ('close' in step) break;
    c.res.write(frame(step, s, i));
    if (a.model.chunkDelayMs > 0) await sleep(a.model.chunkDelayMs);
  }
  if (!closed) c.res.end();
}

const HTML_PAGE = '<!doctype html><html><head><title>Gateway console</title></head><body><div id="app"></div></body></html>';

export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  let current = options.profile;
  const received: ReferenceServer['received'] = [];
  const failures = new Map<string, number>();
  const draws = new Draws();
  const start = `${process.pid}.${++starts}.${Date.now()}`;
  const turns = new Map<string, number>();
  const cache = new Map<string, Reply>();
  const ledger: Ledger = { used: 0, pending: [] };
  const server = createServer((req, res) => {
    const entry: ReferenceServer['received'][number] = { method: req.method ?? '', path: (req.url ?? '/').split('?')[0]! };
    received.push(entry);
    const c: Incoming = { req, res, profile: current, token: '', failures, draws, start, turns, cache, entry, ledger, record: options.recordBodies === true };
    const path = (req.url ?? '/').split('?')[0]!;
    const handle = async (): Promise<Reply | undefined> => {
      if (current.server.mode === 'html') return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: HTML_PAGE };
      const denied = authorise(c, options.apiKey);
      if (denied) return denied;
      if (req.method === 'GET' && path === '/v1/models') return listModels(c);
      if (req.method === 'POST' && path === '/v1/chat/completions') return chatCompletions(c);
      const meter = current.server.meter;
      if (meter && req.method === 'GET' && (path === METER_ROUTES[meter.kind] || (meter.kind === 'one-api' && path === '/v1/dashboard/billing/subscription'))) {
        return path.endsWith('/subscription') ? json(200, { object: 'billing_subscription', has_payment_method: true, hard_limit_usd: GRANTED / 500_000, soft_limit_usd: GRANTED / 500_000, access_until: 0 }) : readMeter(c);
      }
      return openaiError(404, `Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url');
    };
    handle().then(
      (reply) => {
        if (reply) send(c, reply);
      },
      (err: unknown) => {
        if (!res.headersSent) send(c, openaiError(500, `reference server bug: ${(err as Error).message}`, 'server_error', null));
        else res.destroy();
      },
    );
  });
  let connections = 0;
  server.on('connection', () => connections++);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/v1`,
    received,
    connections: () => connections,
    setProfile: (next) => {
      current = next;
      failures.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type { ProfileModel };
