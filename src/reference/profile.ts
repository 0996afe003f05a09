import { z } from 'zod';
import { Verdict } from '../results/model.js';
import { VERSION } from '../version.js';
import { TOKENIZER_FAMILIES } from './pseudo-model.js';

/**
 * A reference-server profile: data, not code. It imitates one server or gateway: how it authenticates,
 * how its errors look, and per model how each request feature behaves and which wire quirks it shows,
 * modelled on behaviour seen in real servers (README: the bundled profiles). The verdicts an audit of it must give
 * follow from what it declares (the oracle test derives them by rule, test/oracle/expectations.ts);
 * `expect` holds only the verdicts no rule can say. The server never reads it.
 */
export const Rejection = z.object({
  /** Values still accepted (reasoning models take temperature 1 and refuse the rest). */
  allow: z.array(z.unknown()).optional(),
  status: z.number().int().min(400).max(599).default(400),
  message: z.string(),
  code: z.string().nullable().default('unsupported_parameter'),
  type: z.string().default('invalid_request_error'),
  /** `openai`: the error envelope; `flat`: a Node gateway's `{"error": "<reason phrase>", "message": "…"}`. */
  shape: z.enum(['openai', 'flat']).default('openai'),
});
export type Rejection = z.infer<typeof Rejection>;

/**
 * How a model treats a request feature: honours it, ignores it, refuses it (`reject`, as the rejection says),
 * or answers HTTP 200 with an error body (`error200`: a route that fails in disguise).
 */
export const Behaviour = z.union([z.literal('honour'), z.literal('ignore'), z.object({ reject: Rejection }), z.object({ error200: z.string() })]);
export type Behaviour = z.infer<typeof Behaviour>;

export const StreamQuirks = z.object({
  /** Close with `data: [DONE]` (false: the stream simply ends, as many servers do). */
  done: z.boolean().default(true),
  /** `first`: role in the first delta only (OpenAI); `every`: in every delta; `never`; `wrong`: "model". */
  role: z.enum(['first', 'every', 'never', 'wrong']).default('first'),
  /** The `object` of each chunk (OpenAI: chat.completion.chunk). */
  chunkObject: z.string().default('chat.completion.chunk'),
  /** Another event after [DONE]. */
  afterDone: z.boolean().default(false),
  /** Never end: a comment line every 50 ms, forever. */
  endless: z.boolean().default(false),
  /** finish_reason in the chunks before the last: null (OpenAI), "" , or the key left out. */
  intermediateFinish: z.enum(['null', 'empty', 'omit']).default('null'),
  /** Send no finish_reason at all. */
  noFinish: z.boolean().default(false),
  /** `requested`: a final `choices: []` chunk when include_usage asks; `always`: even unasked;
   *  `every`: cumulative usage in every chunk; `last-content`: inside the last content chunk; `in-repeat`
   *  (a racing gateway): when asked, inside a chunk that repeats the last content piece with finish "stop",
   *  and zero usage on every other chunk; `never`. */
  usage: z.enum(['requested', 'always', 'every', 'last-content', 'in-repeat', 'never']).default('requested'),
  lineEnding: z.enum(['lf', 'crlf']).default('lf'),
  /** `data:{…}` without the space. */
  noSpace: z.boolean().default(false),
  /** `: PING` comment lines between events. */
  comments: z.boolean().default(false),
  /** One newline between events instead of a blank line. */
  singleNewline: z.boolean().default(false),
  /** `event: message` and `id:` lines on every event. */
  eventLines: z.boolean().default(false),
  /** Hold the whole stream back this long, then send it in one burst (a buffering gateway). */
  bufferMs: z.number().min(0).max(10_000).default(0),
  /** After this many content chunks: `data: {"error":…}`, then the stream ends. */
  errorAfter: z.number().int().min(0).optional(),
  /** The error event of errorAfter carries a value nested this deep (a gateway relaying a hostile upstream). */
  errorDepth: z.number().int().min(0).max(1_000_000).default(0),
  /** A gateway whose chunk handlers race: `repeat` sends every fifth content piece twice; `swap` sends
   *  pieces 5 and 6 in each other's place. */
  race: z.enum(['none', 'repeat', 'swap']).default('none'),
  /** The finish chunk is sent twice. */
  finishTwice: z.boolean().default(false),
  /** After this many content chunks the stream ends: no finish_reason, no [DONE]. */
  closeAfter: z.number().int().min(0).optional(),
  /** After this many content chunks nothing more is sent, and the connection stays open. */
  stallAfter: z.number().int().min(0).optional(),
  contentType: z.string().default('text/event-stream; charset=utf-8'),
  /** Answer stream: true with one JSON body. */
  ignoreStreamFlag: z.boolean().default(false),
  /** How tool calls are streamed: as OpenAI does (id, type and name first, then the arguments in pieces);
   *  `one-chunk`: each call whole in one fragment (fine); `no-index`: fragments without an index;
   *  `index-zero`: every call at index 0; `empty-id`: id ""; `split-name`: the name in two fragments;
   *  `bad-args`: the last piece of the arguments lost; `dropped`: no fragment at all, finish "tool_calls"
   *  kept (a gateway that forwards only content); `repeat-args`: the second piece of the arguments sent twice. */
  toolCalls: z.enum(['openai', 'one-chunk', 'no-index', 'index-zero', 'empty-id', 'split-name', 'bad-args', 'dropped', 'repeat-args']).default('openai'),
});
export type StreamQuirks = z.infer<typeof StreamQuirks>;

/** A reasoning model: it reasons before every answer, and the reasoning counts against the output limit. */
export const ReasoningQuirks = z.object({
  /** Where the reasoning goes without streaming: a message field, <think> tags in the content, or nowhere
   *  (hidden: only the token count, as OpenAI's o-series). */
  place: z.enum(['reasoning_content', 'reasoning', 'think', 'hidden']).default('reasoning_content'),
  /** Where it goes in a stream (default: as without streaming; `none`: a gateway that forwards only content). */
  streamPlace: z.enum(['reasoning_content', 'reasoning', 'think', 'none']).optional(),
  /** Reasoning tokens at the default effort; "low" halves them, "high" quadruples them (unless ignored). */
  tokens: z.number().int().min(1).default(12),
  effort: z.enum(['honour', 'ignore']).default('honour'),
  /** Refuse a reasoning_effort outside low/medium/high with a 400 naming it. */
  validateEffort: z.boolean().default(true),
  /** `details`: usage.completion_tokens_details.reasoning_tokens; `none`: not reported; `over`: more
   *  reasoning tokens reported than completion tokens (reasoning billed on top). */
  usage: z.enum(['details', 'none', 'over']).default('details'),
  /** An assistant message carrying reasoning_content: accepted, or refused as an unknown field. */
  echo: z.enum(['accept', 'reject']).default('accept'),
});
export type ReasoningQuirks = z.infer<typeof ReasoningQuirks>;

/**
 * What a call costs on the server's meter (ServerSettings.meter), in quota units (new-api's, 500,000 to
 * the dollar). Every model bills at these prices unless its quirks say otherwise.
 */
export const BillingQuirks = z.object({
  /** Per prompt token, per completion token, and per call. */
  prompt: z.number().min(0).default(10),
  completion: z.number().min(0).default(30),
  perCall: z.number().min(0).default(0),
  /** `bill`: a refused request is charged what its limit could have cost (a pre-charge never refunded). */
  failures: z.enum(['free', 'bill']).default('free'),
  /** A stream billed as its usage, not at all, or twice. */
  stream: z.enum(['usage', 'free', 'double']).default('usage'),
  /** Completion billed at the limit asked for, not at the tokens used. */
  byLimit: z.boolean().default(false),
  /** Prompt tokens charged on every answered call beyond the usage reported: a relay that bills a prompt it injects and does not report. */
  unreported: z.number().int().min(0).default(0),
});
export type BillingQuirks = z.infer<typeof BillingQuirks>;

export const Quirks = z.object({
  /** Prices on the server's meter, when it has one. */
  billing: BillingQuirks.default(BillingQuirks.parse({})),
  /** A reasoning model (see ReasoningQuirks); unset: the model does not reason. */
  reasoning: ReasoningQuirks.optional(),
  /** The finish_reason of a complete answer, instead of "stop" (TGI "eos", Anthropic-style "end_turn"). */
  finishReason: z.string().nullable().optional(),
  omitUsage: z.boolean().default(false),
  /** Added to total_tokens: a broken usage invariant. */
  usageTotalOff: z.number().int().default(0),
  /** prompt_tokens reported whatever the prompt: fake usage. */
  fixedPromptTokens: z.number().int().optional(),
  /** completion_tokens reported this many times over in every answer, streamed or not, and billed so: a
   *  relay that over-counts (one seen reported 3×: 15 for a 5-token cut). */
  usageInflate: z.number().min(1).optional(),
  /** Counts like this tokenizer family: the usage probes' texts at the table's counts (suites/support/tokenizer-table.ts),
   *  numbers cut in the family's digit groups, one user message (or a system message and one) under the family's
   *  first known template. Unset: the pseudo-model's own count, a tokenizer outside the table. */
  tokenizer: z.enum(TOKENIZER_FAMILIES).optional(),
  /** Tokens of a system prompt a relay injects into every request, and counts (and bills). */
  hiddenPrompt: z.number().int().min(1).optional(),
  /** Tokens of a default system prompt counted when the request brings no system message of its own (a chat
   *  template's, as Mistral Small 3's, or a relay's), replaced by the client's. */
  defaultPrompt: z.number().int().min(1).optional(),
  /** A response cache in front of the model: a request identical to an earlier one (not streamed) gets the
   *  earlier answer back, id and all (LiteLLM, Portkey and Cloudflare's gateways keep such caches). */
  cache: z.boolean().default(false),
  /** The `model` the answer names, instead of the one requested ("" for empty). */
  echoModel: z.string().optional(),
  /** Leave out what only the strict tier requires: message.refusal, choices[].logprobs. */
  omitStrictFields: z.boolean().default(false),
  /** Answer 200 with an error body (`{"error":…}`) instead of a completion. */
  errorIn200: z.boolean().default(false),
  /** Leave out choices[].index (lenient-tier schema failure). */
  omitChoiceIndex: z.boolean().default(false),
  /** The answer goes to reasoning_content and content stays empty. */
  emptyContent: z.boolean().default(false),
  /** Answer this, whatever the prompt: a model that follows no instruction. */
  fixedAnswer: z.string().optional(),
  /** Stream even when the request has no stream field. */
  streamByDefault: z.boolean().default(false),
  /** Call every tool it is given, needed or not, as some small models do. */
  alwaysCallTools: z.boolean().default(false),
  /** See the tools but call one only when tool_choice forces it. */
  callsOnlyWhenForced: z.boolean().default(false),
  /** Sample even at temperature 0, as some batched or MoE deployments effectively do. */
  randomAtZero: z.boolean().default(false),
  /** Temperature 0 refused on a request that carries tools, taken everywhere else (a gateway that routes tool
   *  requests to a backend that takes no 0): the tools and tool_choice are not what is refused. */
  zeroRefusedWithTools: z.boolean().default(false),
  /** A peaked sampler: this share of the samples of an open prompt is the model's favourite answer. */
  favourite: z.number().min(0).max(1).optional(),
  /** A gateway cap: every answer is cut at this many tokens, whatever limit the client sent (which is dropped). */
  outputCap: z.number().int().min(1).optional(),
  /** The limit a request that sends none gets (Cloudflare Workers AI defaults max_tokens to 256): a reasoning
   *  model's plain answer can end inside its reasoning. */
  defaultLimit: z.number().int().min(1).optional(),
  /** json_schema is treated as json_object (a gateway or server that downgrades structured output). */
  jsonSchemaAsJsonMode: z.boolean().default(false),
  /** The matched stop string is kept at the end of the answer (TGI does this). */
  keepStop: z.boolean().default(false),
  /** Never ends an answer on its own (a broken chat template or EOS): without a limit, the answer never comes. */
  runaway: z.boolean().default(false),
  /** Under tool_choice "none" it writes prose about the tool's subject that runs past any small limit,
   *  where without it its calls always begin its answer (a small model on llama.cpp). */
  chattyWithoutCall: z.boolean().default(false),
  /** Tool calls come back as `<tool_call>` text in the content (a server without its tool-call parser). */
  toolCallsAsText: z.boolean().default(false),
  /** Follows plain instructions but recalls nothing (code words, remembered words, tool results, colours):
   *  a weak model. */
  weakRecall: z.boolean().default(false),
  /** A value outside its documented range (temperature 5, top_p 2, max_tokens -5, n 0): refused naming the
   *  parameter (OpenAI), clamped in silence (a gateway: -5 becomes 0, 5 becomes 2), a 500 text page, or
   *  refused without naming it; `llama-cpp`: temperature and top_p unchecked, limits and n refused with the
   *  name in the message only ("Field 'n': Value must be between 1 <= value <= 4, but got 0"). */
  outOfRange: z.enum(['refuse', 'clamp', 'crash', 'unnamed', 'llama-cpp']).default('refuse'),
  /** Spaces after every non-stream JSON answer, this many: valid JSON larger than chatprobe reads (its cap). */
  paddedBody: z.number().int().min(0).default(0),
  /**
   * The weights behind the name (identity.*): the first token's logprobs, and the greedy answer to an open
   * prompt, follow from them. Unset: the pseudo-model's plain logprobs, the same for every model.
   */
  weights: z.string().optional(),
  /** The weights change at every server start (a relay that swaps the model between runs): `weights` plus the start. */
  weightsPerStart: z.boolean().default(false),
  /** A quantized twin: every logprob moved by up to this much (deterministically per token), answers alike. */
  quantized: z.number().min(0).max(1).optional(),
  /**
   * One name over several backends, in turn (a load balancer): each repeat of one request goes to the next
   * weights of this list, each with its own `system_fingerprint` when `systemFingerprint` is set.
   */
  roundRobin: z
    .array(
      z.object({
        weights: z.string(),
        quantized: z.number().min(0).max(1).optional(),
        /** This backend's own `system_fingerprint` (two configurations of one model). */
        fingerprint: z.string().optional(),
      }),
    )
    .min(2)
    .optional(),
  /** A `system_fingerprint` naming the weights (fp_ and a hash), as OpenAI's names a backend configuration; unset: null. */
  systemFingerprint: z.boolean().default(false),
  stream: StreamQuirks.default(StreamQuirks.parse({})),
});
export type Quirks = z.infer<typeof Quirks>;

export const ProfileModel = z.object({
  id: z.string().min(1),
  ownedBy: z.string().default('chatprobe-reference'),
  /** False: callable but missing from GET /models. */
  listed: z.boolean().default(true),
  /** Extra keys on the /models entry (vLLM max_model_len, OpenRouter supported_parameters, …). */
  extra: z.record(z.string(), z.unknown()).default({}),
  /** Request parameter → behaviour; a parameter not named is honoured. */
  features: z.record(z.string(), Behaviour).default({}),
  /** Message feature (system, developer, history, prefill, tool, content_parts, image, name,
   *  consecutive_user, empty_content) → behaviour; one not named is honoured. */
  roles: z.record(z.string(), Behaviour).default({}),
  quirks: Quirks.default(Quirks.parse({})),
  /** Every chat request for this model fails like this (a channel down, no quota, a group without access,
   *  a rate limit), or only the first `times` requests. */
  failure: z
    .object({
      status: z.number().int().min(400).max(599),
      body: z.unknown(),
      headers: z.record(z.string(), z.string()).default({}),
      times: z.number().int().min(1).optional(),
    })
    .optional(),
  /** Milliseconds between streamed chunks: long enough that a busy client does not read them as one
   *  burst (streaming.buffered would call that buffering). */
  chunkDelayMs: z.number().min(0).max(1000).default(5),
  /** Probe → the verdict it should give for this model, only where no rule derives it from what the model
   *  declares (a fixed answer's text, a sampler's luck decide it); target-scope probes: see Profile.expect. */
  expect: z.record(z.string(), Verdict).default({}),
});
export type ProfileModel = z.infer<typeof ProfileModel>;

export const ServerSettings = z.object({
  /** `html`: every path answers a web page, as a gateway's console does on a wrong base URL. */
  mode: z.enum(['api', 'html']).default('api'),
  /** Echo the caller's bearer token back in bodies and headers (tests redaction). */
  echoKey: z.boolean().default(false),
  /** `required`: OpenAI's 401s; `none`: answers without a key (a local server started without --api-key);
   *  `vllm`: 401 {"error": "Unauthorized"}; `broken`: a 500 text page for any auth failure. */
  auth: z.enum(['required', 'none', 'vllm', 'broken']).default('required'),
  /** How invalid requests are refused: OpenAI's 400 envelope, or the shapes other servers use. */
  errorStyle: z.enum(['openai', 'new-api', 'fastapi', 'top-level', 'text', 'html']).default('openai'),
  /** An unknown model: OpenAI 404 model_not_found, new-api 503 "无可用渠道", or a 200 from another model. */
  unknownModel: z.enum(['openai', 'new-api', 'substitute']).default('openai'),
  /** `lenient`: accepts wrong types and unknown roles with a 200, as some servers do. */
  validation: z.enum(['strict', 'lenient']).default('strict'),
  requestIdHeader: z.string().default('x-request-id'),
  /** The most stop strings accepted (OpenAI: 4); more is a 400. Unset: no limit. */
  stopLimit: z.number().int().min(1).optional(),
  /** OpenAI refuses stream_options unless stream is true. */
  streamOptionsNeedStream: z.boolean().default(false),
  /** Spaces after every 4xx body, this many: refusals larger than chatprobe reads (a proxy that appends a dump). */
  errorPadding: z.number().int().min(0).max(16 * 1024 * 1024).default(0),
  /** `forbid`: unknown request fields are a 422 extra_forbidden, as pydantic servers with extra="forbid" answer. */
  unknownFields: z.enum(['accept', 'forbid']).default('accept'),
  /**
   * The calling key's balance, as a gateway shows it: new-api's GET /api/usage/token, OpenRouter's
   * GET /v1/key, LiteLLM's GET /key/info, one-api's GET /v1/dashboard/billing/usage. `lagReads`: a charge
   * shows only after this many reads (a gateway that bills in batches); `lateMs`: a charge shows this many
   * milliseconds after its call was answered, however often the balance is read (new-api with
   * BATCH_UPDATE_ENABLED writes its quota counters seconds after the call); `drift`: the amount used grows
   * by this much at every read, whatever chatprobe sends (other traffic on the same key).
   */
  meter: z
    .object({
      kind: z.enum(['new-api', 'openrouter', 'litellm', 'one-api']),
      lagReads: z.number().int().min(0).default(0),
      lateMs: z.number().int().min(0).max(60_000).default(0),
      drift: z.number().min(0).default(0),
    })
    .optional(),
  /** GET /models quirks: no `created` (DeepSeek), a repeated id, a fixed `created` (one-api). */
  modelList: z
    .object({ omitCreated: z.boolean().default(false), duplicateFirst: z.boolean().default(false), created: z.number().int().default(1_700_000_000) })
    .default({ omitCreated: false, duplicateFirst: false, created: 1_700_000_000 }),
});
export type ServerSettings = z.infer<typeof ServerSettings>;

export const Profile = z.object({
  name: z.string(),
  description: z.string(),
  server: ServerSettings.default(ServerSettings.parse({})),
  models: z.array(ProfileModel).min(1),
  /** The verdict a target-scope probe (auth, malformed input, /models) should give, only where no rule
   *  derives it from the server's settings. */
  expect: z.record(z.string(), Verdict).default({}),
  /** How the oracle test audits this profile: with or without a key, and extra CLI flags. */
  oracle: z.object({ key: z.boolean().default(true), args: z.array(z.string()).default([]) }).default({ key: true, args: [] }),
});
export type Profile = z.infer<typeof Profile>;

/**
 * The JSON Schema of a profile file, generated from the zod model so the two cannot drift: it ships as
 * schema/profile.schema.json for vendors writing their own profile (the TypeScript source is not packed).
 * Input form: what a file may leave out, the defaults fill in.
 */
export function profileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Profile, { io: 'input' }) as Record<string, unknown>;
  return { ...schema, $id: `https://unpkg.com/chatprobe@${VERSION}/schema/profile.schema.json`, title: 'chatprobe reference-server profile' };
}
