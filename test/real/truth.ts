/**
 * The truth table of the real-server suite: for each probe, the verdict chatprobe must give on the two
 * tiny models llama-server runs (`stops`: ends turns on its own, served without a key, audited with two
 * requests at once; `runaway`: never ends a turn, served with --api-key, audited one request
 * at a time), and the direct evidence that makes it true (Facts, gathered with
 * plain fetch requests; docs/real-server-evidence.md). A row whose evidence no longer holds fails on its
 * own, before any verdict is compared: the server changed, and the row must be thought through again.
 *
 * The models write gibberish: every instruction-following probe must be inconclusive on them, never
 * ignored; every mechanical effect must be decisive.
 */
import type { Verdict } from '../../src/report/model.js';
import type { Facts } from './facts.js';

export interface Row {
  probe: string;
  /** The verdict, or the verdicts that are all true when the evidence allows more than one. */
  stops: Verdict | Verdict[];
  runaway: Verdict | Verdict[];
  /** Why, in words. */
  because: string;
  /** The evidence, checked on the facts of both servers. */
  holds: (stops: Facts, runaway: Facts) => boolean;
}

const both = (f: (x: Facts) => boolean) => (a: Facts, b: Facts) => f(a) && f(b);

/**
 * The stopping model ends its turn at a random token when it samples (the smoke call and the plain stream
 * send no temperature), now and then at the first: an empty answer is then only a warning, and a stream
 * of three chunks too short to time. Never a failure.
 */
const SAMPLED_LENGTH: Record<string, Verdict[]> = {
  'chat.basic': ['pass', 'warn'],
  'streaming.buffered': ['pass', 'inconclusive'],
};

/**
 * Two streams at once, llama-server now and then sends no role chunk at all: the first delta is content
 * (1 stream in 80 on the stopping model, seen once on the runaway model too; docs/real-server-evidence.md).
 * The server's doing, on either model: the warning is true when it happens.
 */
const CONCURRENT_STREAMS: Record<string, Verdict[]> = {
  'streaming.role_first': ['pass', 'warn'],
};

/** Cells whose verdict is a conformance fact of the wire format, the same on both servers. */
const WIRE: Row[] = [
  'chat.basic',
  'chat.usage',
  'chat.model_echo',
  'chat.error_in_2xx',
  'streaming.basic',
  'streaming.content_type',
  'streaming.framing',
  'streaming.done',
  'streaming.chunk_schema',
  'streaming.role_first',
  'streaming.finish_once',
  'streaming.usage',
  'streaming.unrequested_usage',
  'streaming.no_stream_field',
  'streaming.error_in_band',
  'streaming.buffered',
].map((probe) => ({
  probe,
  stops: SAMPLED_LENGTH[probe] ?? CONCURRENT_STREAMS[probe] ?? 'pass',
  runaway: CONCURRENT_STREAMS[probe] ?? 'pass',
  because: 'llama-server answers in the OpenAI shape, streams with [DONE] and a usage chunk on request, and names the model by its alias',
  holds: both((f) => f.listsAlias),
}));

const ACCEPTED: Row[] = [
  'parameters.presence_penalty',
  'parameters.frequency_penalty',
  'parameters.logit_bias',
  'parameters.user',
  'parameters.metadata',
  'parameters.unknown_field',
  'parameters.reasoning_effort',
  'parameters.stream_options_without_stream',
  'roles.name',
  'roles.consecutive_user',
  'roles.assistant_prefill',
  'roles.empty_content',
].map((probe) => ({ probe, stops: 'accepted', runaway: 'accepted', because: 'llama-server accepts the field or message form with HTTP 200', holds: () => true }));

/** Instruction following: the gibberish models follow nothing, so these can never be decided. */
const WEAK: Row[] = [
  ['roles.system', (f: Facts) => !f.followsRuleInUser, 'the model does not follow the PINEAPPLE rule even in a user message'],
  ['roles.developer', (f: Facts) => !f.followsRuleInUser, 'as roles.system'],
  ['roles.system_parts', (f: Facts) => !f.followsRuleInUser, 'as roles.system'],
  ['roles.history', (f: Facts) => !f.recallsPlainWords, 'the model recalls nothing even from one plain message'],
  ['roles.content_parts', (f: Facts) => !f.recallsPlainWords, 'the model does not repeat the two words even when they come in one string'],
  ['roles.tool_result', (f: Facts) => !f.recallsPlainWords, 'the model repeats nothing it is given'],
].map(([probe, check, because]) => ({ probe: probe as string, stops: 'inconclusive', runaway: 'inconclusive', because: because as string, holds: both(check as (f: Facts) => boolean) }));

/** Reasoning: the tiny models have no reasoning template (`chat_format` "Content-only"), so no probe of the area has anything to read. */
const REASONING: Row[] = ['reasoning.field', 'reasoning.stream', 'reasoning.usage', 'reasoning.effort', 'reasoning.echo'].map((probe) => ({
  probe,
  stops: 'inconclusive',
  runaway: 'inconclusive',
  because: 'no answer carries reasoning (no reasoning field, no <think> tags, no reasoning_tokens): reasoning.field says so, the others skip the model',
  holds: both((f) => !f.showsReasoning),
}));

export const ENDPOINT_TRUTH: Record<'stops' | 'runaway', Record<string, Verdict>> = {
  // Served without a key: anyone may call it, and there is no key to send without "Bearer ".
  stops: { 'models.list': 'pass', 'auth.missing_key': 'warn', 'auth.bad_key': 'warn', 'auth.no_bearer': 'inconclusive', 'errors.unknown_model': 'fail', 'errors.malformed_json': 'fail' },
  // Served with --api-key: a 401 in the OpenAI envelope, but a key without "Bearer " is taken as well.
  runaway: { 'models.list': 'pass', 'auth.missing_key': 'pass', 'auth.bad_key': 'pass', 'auth.no_bearer': 'warn', 'errors.unknown_model': 'fail', 'errors.malformed_json': 'fail' },
};

export const ENDPOINT_EVIDENCE: Row[] = [
  { probe: 'auth', stops: 'warn', runaway: 'pass', because: 'open without a key; 401 with one, though a key without "Bearer " passes', holds: (s, r) => s.noKeyStatus === 200 && r.noKeyStatus === 401 && r.noBearerStatus === 200 },
  { probe: 'errors.unknown_model', stops: 'fail', runaway: 'fail', because: 'any model name is answered by the loaded model (HTTP 200)', holds: both((f) => f.unknownModelStatus === 200) },
  { probe: 'errors.malformed_json', stops: 'fail', runaway: 'fail', because: 'a malformed JSON body gets HTTP 500', holds: both((f) => f.malformedStatus >= 500) },
];

export const TRUTH: Row[] = [
  {
    probe: 'streaming.integrity',
    stops: 'pass',
    runaway: 'pass',
    because: 'at temperature 0 the counting request streamed assembles into the very text it gets unstreamed: llama-server sends every piece once, in order',
    holds: both((f) => f.greedyStreamMatches),
  },
  { probe: 'errors.missing_messages', stops: 'pass', runaway: 'pass', because: 'HTTP 400 in the OpenAI envelope', holds: both((f) => f.missingMessagesStatus === 400) },
  { probe: 'errors.wrong_type', stops: 'pass', runaway: 'pass', because: 'HTTP 400 in the OpenAI envelope', holds: both((f) => f.wrongTypeStatus === 400) },
  {
    probe: 'errors.out_of_range',
    stops: 'warn',
    runaway: 'warn',
    because:
      'temperature 5 and top_p 2 are answered with HTTP 200 (llama-server checks no sampling range); max_tokens -5 and n 0 get a 400 naming the field in the message. The runaway model is not sent max_tokens -5 (it would be its only limit), so its cell rests on the other three values',
    holds: both((f) => f.outOfRange.temperature.status === 200 && f.outOfRange.top_p.status === 200 && f.outOfRange.n.status === 400 && f.outOfRange.n.named && f.outOfRange.max_tokens.status === 400 && f.outOfRange.max_tokens.named),
  },
  { probe: 'errors.invalid_role', stops: 'fail', runaway: 'fail', because: 'role "wizard" is accepted with HTTP 200', holds: both((f) => f.invalidRoleStatus === 200) },
  { probe: 'chat.schema', stops: 'warn', runaway: 'warn', because: 'choices carry no logprobs and messages no refusal (strict-tier fields)', holds: () => true },
  {
    probe: 'chat.finish_reason',
    stops: 'pass',
    runaway: 'fail',
    because: 'the stopping model ends turns on its own; the other never does, so its uncapped smoke call runs past --timeout',
    holds: (s, r) => s.endsOnItsOwn && !r.endsOnItsOwn,
  },
  ...WIRE,
  {
    probe: 'parameters.max_tokens',
    stops: 'honoured',
    runaway: 'honoured',
    because: 'max_tokens 5 gives 5 completion tokens and "length"; 48 gives 48',
    holds: both((f) => f.capped.tokens <= 5 && f.capped.finish === 'length' && f.uncappedTokens > 5),
  },
  {
    probe: 'parameters.max_completion_tokens',
    stops: 'honoured',
    runaway: 'honoured',
    because: 'as max_tokens',
    holds: both((f) => f.cappedCompletion.tokens <= 5 && f.cappedCompletion.finish === 'length'),
  },
  {
    probe: 'parameters.temperature',
    stops: 'honoured',
    runaway: 'honoured',
    because: 'temperature 0 repeats; at 1 three samples are three answers',
    holds: both((f) => f.greedyRepeats && f.distinctAtOne === 3),
  },
  { probe: 'parameters.top_p', stops: 'honoured', runaway: 'honoured', because: 'top_p 0.01 at temperature 1 repeats', holds: both((f) => f.topPRepeats && f.distinctAtOne === 3) },
  {
    probe: 'parameters.seed',
    // Requests in flight together are batched, and seeded sampling drifts with the batch: the seed narrows
    // the answers without always fixing them. One request at a time, it fixes them.
    stops: ['honoured', 'inconclusive'],
    runaway: 'honoured',
    because: 'a fixed seed at temperature 1 repeats when requests come one at a time; with others in flight it may drift',
    holds: both((f) => f.seedRepeats && f.distinctAtOne === 3),
  },
  { probe: 'parameters.stop', stops: 'honoured', runaway: 'honoured', because: 'the greedy answer ends just before a stop string taken from its middle', holds: both((f) => f.stopCutsBefore) },
  { probe: 'parameters.stop_many', stops: 'honoured', runaway: 'honoured', because: 'five stop strings are accepted and applied', holds: both((f) => f.fiveStopsStatus === 200 && f.stopCutsBefore) },
  // With one slot (-np 1) llama-server refuses it instead: HTTP 400 "Field 'n': Value must be between 1 <= value <= 1".
  { probe: 'parameters.n', stops: 'honoured', runaway: 'honoured', because: 'n: 2 gives two choices (four slots by default)', holds: both((f) => f.choicesWithN2 === 2) },
  { probe: 'parameters.logprobs', stops: 'honoured', runaway: 'honoured', because: 'logprobs.content has one entry per token', holds: both((f) => f.logprobEntries > 0) },
  ...ACCEPTED,
  {
    probe: 'parameters.response_format.json_object',
    // The grammar makes every answer a JSON object; whether the gibberish closes it within the limit is
    // up to the sampled tokens (the probe sends no temperature): honoured, or inconclusive when cut.
    stops: ['honoured', 'inconclusive'],
    runaway: ['honoured', 'inconclusive'],
    because: 'a grammar makes the answer a JSON object, closed within the limit or not',
    holds: both((f) => f.jsonModeStartsObject),
  },
  {
    probe: 'parameters.response_format.json_schema',
    stops: ['honoured', 'inconclusive'],
    runaway: ['honoured', 'inconclusive'],
    because: 'a grammar makes JSON that fits a schema of enums, with values no prompt names (or is cut by the limit in its whitespace)',
    holds: both((f) => f.schemaFits),
  },
  {
    probe: 'parameters.tools',
    stops: 'inconclusive',
    runaway: 'inconclusive',
    because: 'the tools reach the model (its prompt grows by their definitions) but it never calls, forced or not: a model that cannot call says nothing about tools',
    holds: both((f) => f.autoCalls === 0 && f.requiredCalls === 0 && f.toolsPromptGrowth > 20),
  },
  {
    probe: 'streaming.tool_calls',
    stops: 'inconclusive',
    runaway: 'inconclusive',
    because:
      'the model never calls a tool, streamed or not, so there is no streamed call to rebuild (forced by a prefill, llama-server streams calls in OpenAI\'s form: docs/real-server-evidence.md)',
    holds: both((f) => f.autoCalls === 0 && f.requiredCalls === 0),
  },
  {
    probe: 'parameters.tool_choice.required',
    // The grammar for "required" allows free text before the call and no end before it: the gibberish
    // never reaches the call, so every answer runs to the limit, which is ours.
    stops: 'inconclusive',
    runaway: 'inconclusive',
    because: 'no call within the limit, the answer cut by it: the grammar lets text come first, so the call may come later',
    holds: both((f) => f.requiredCalls === 0 && f.toolsPromptGrowth > 20),
  },
  {
    probe: 'parameters.tool_choice.named',
    // A tool_choice object is read as "auto": the stopping model may end without a call (ignored, the tools
    // reaching it) or run to the limit (inconclusive); the runaway model always runs to the limit.
    stops: ['ignored', 'inconclusive'],
    runaway: 'inconclusive',
    because: 'a named tool_choice falls back to "auto": no call to the named function, within the limit or cut by it',
    holds: both((f) => f.namedCalls === 0 && f.toolsPromptGrowth > 20),
  },
  { probe: 'parameters.tool_choice.none', stops: 'inconclusive', runaway: 'inconclusive', because: 'no call with "none", and none without it either', holds: both((f) => f.noneCalls === 0 && f.autoCalls === 0) },
  { probe: 'parameters.parallel_tool_calls', stops: 'inconclusive', runaway: 'inconclusive', because: 'the model makes no call at all', holds: both((f) => f.autoCalls === 0) },
  ...WEAK,
  ...REASONING,
  {
    probe: 'roles.image',
    stops: 'rejected',
    runaway: 'rejected',
    because: 'an image part gets HTTP 500 naming the missing vision projector (mmproj), every time, while the plain request works',
    holds: both((f) => f.imageStatuses.every((s) => s === 500) && /mmproj|image/i.test(f.imageMessage)),
  },
];
