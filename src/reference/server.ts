import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Behaviour, Profile, ProfileModel, Rejection } from './profile.js';
import { answer, countPromptTokens, messageText, tokenize } from './pseudo-model.js';

export interface ReferenceServerOptions {
  profile: Profile;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** When set, only `Authorization: Bearer <apiKey>` is accepted; otherwise any non-empty bearer token. */
  apiKey?: string;
}

export interface ReferenceServer {
  /** Base URL ending in /v1. */
  url: string;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 1024 * 1024;
/** Body keys that are the request itself rather than optional features. */
const CORE_KEYS = new Set(['model', 'messages', 'stream']);

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  profile: Profile;
  /** The caller's bearer token, only ever echoed by profiles that test redaction. */
  token: string;
}

type Json = Record<string, unknown>;

function send(c: Call, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const extra: Record<string, string> = { ...headers };
  if (c.profile.server.echoKey && c.token) extra['x-echo-authorization'] = `Bearer ${c.token}`;
  c.res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId(), ...extra });
  c.res.end(JSON.stringify(body));
}

function sendError(c: Call, status: number, message: string, type: string, code: string | null, param: string | null = null): void {
  const echoed = c.profile.server.echoKey && c.token ? `${message} (received key ${c.token})` : message;
  send(c, status, { error: { message: echoed, type, param, code } });
}

let counter = 0;
const requestId = () => `req_ref_${(++counter).toString(36)}`;

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

function authorise(c: Call, apiKey: string | undefined): boolean {
  const header = c.req.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  c.token = match?.[1]?.trim() ?? '';
  if (!header) {
    sendError(c, 401, "You didn't provide an API key. Provide it in the Authorization header (Bearer auth).", 'invalid_request_error', null);
    return false;
  }
  if (!c.token || (apiKey !== undefined && c.token !== apiKey)) {
    sendError(c, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    return false;
  }
  return true;
}

function listModels(c: Call): void {
  const data = c.profile.models
    .filter((m) => m.listed)
    .map((m) => ({ id: m.id, object: 'model', created: 1_700_000_000, owned_by: m.ownedBy, ...m.extra }));
  send(c, 200, { object: 'list', data });
}

function reject(c: Call, param: string, r: Rejection): void {
  sendError(c, r.status, r.message, r.type, r.code, param);
}

async function chatCompletions(c: Call): Promise<void> {
  const raw = await readBody(c.req);
  if (raw === undefined) return sendError(c, 413, 'Request body too large.', 'invalid_request_error', null);
  let body: Json;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    body = parsed as Json;
  } catch {
    return sendError(c, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
  }
  if (typeof body.model !== 'string' || body.model === '') {
    return sendError(c, 400, "Missing required parameter: 'model'.", 'invalid_request_error', 'missing_required_parameter', 'model');
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return sendError(c, 400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages');
  }
  const model = c.profile.models.find((m) => m.id === body.model);
  if (!model) {
    return sendError(c, 404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found', 'model');
  }
  const honoured = new Set<string>();
  for (const key of Object.keys(body)) {
    if (CORE_KEYS.has(key)) continue;
    const b: Behaviour = model.features[key] ?? 'honour';
    if (typeof b === 'object') return reject(c, key, b.reject);
    if (b === 'honour') honoured.add(key);
  }
  const messages = body.messages as { role?: unknown; content?: unknown }[];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  let tokens = tokenize(answer(messageText(lastUser?.content)));
  let finish = 'stop';
  const limit = honoured.has('max_tokens') ? body.max_tokens : undefined;
  if (typeof limit === 'number' && tokens.length > limit) {
    tokens = tokens.slice(0, Math.max(0, limit));
    finish = 'length';
  }
  if (c.profile.server.echoKey && c.token) tokens.push(` (key ${c.token})`);
  const usage = {
    prompt_tokens: countPromptTokens(messages),
    completion_tokens: tokens.length,
    total_tokens: 0,
  };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const id = `chatcmpl-ref${(++counter).toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  if (body.stream === true) return streamAnswer(c, model, body, { id, created, tokens, finish, usage });
  send(c, 200, {
    id,
    object: 'chat.completion',
    created,
    model: model.id,
    system_fingerprint: null,
    choices: [
      { index: 0, message: { role: 'assistant', content: tokens.join(''), refusal: null }, logprobs: null, finish_reason: finish },
    ],
    usage,
  });
}

interface Answer {
  id: string;
  created: number;
  tokens: string[];
  finish: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

async function streamAnswer(c: Call, model: ProfileModel, body: Json, a: Answer): Promise<void> {
  const opts = body.stream_options as { include_usage?: unknown } | undefined;
  const includeUsage = opts?.include_usage === true;
  const headers: Record<string, string> = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': requestId() };
  if (c.profile.server.echoKey && c.token) headers['x-echo-authorization'] = `Bearer ${c.token}`;
  c.res.writeHead(200, headers);
  let closed = false;
  c.res.on('close', () => {
    closed = true;
  });
  const chunk = (choices: unknown[], extra: Json = {}) => ({
    id: a.id,
    object: 'chat.completion.chunk',
    created: a.created,
    model: model.id,
    system_fingerprint: null,
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const events: unknown[] = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }])];
  for (const t of a.tokens) events.push(chunk([{ index: 0, delta: { content: t }, logprobs: null, finish_reason: null }]));
  events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: a.finish }]));
  if (includeUsage) events.push(chunk([], { usage: a.usage }));
  for (const ev of events) {
    if (closed) return;
    c.res.write(`data: ${JSON.stringify(ev)}\n\n`);
    if (model.chunkDelayMs > 0) await sleep(model.chunkDelayMs);
  }
  if (!closed) c.res.end('data: [DONE]\n\n');
}

const HTML_PAGE = '<!doctype html><html><head><title>Gateway console</title></head><body><div id="app"></div></body></html>';

export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const { profile } = options;
  const server = createServer((req, res) => {
    const c: Call = { req, res, profile, token: '' };
    const path = (req.url ?? '/').split('?')[0]!;
    const handle = async () => {
      if (profile.server.mode === 'html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(HTML_PAGE);
        return;
      }
      if (!authorise(c, options.apiKey)) return;
      if (req.method === 'GET' && path === '/v1/models') return listModels(c);
      if (req.method === 'POST' && path === '/v1/chat/completions') return chatCompletions(c);
      sendError(c, 404, `Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url');
    };
    handle().catch((err: unknown) => {
      if (!res.headersSent) sendError(c, 500, `reference server bug: ${(err as Error).message}`, 'server_error', null);
      else res.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
