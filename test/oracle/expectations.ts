import { DEFAULT_MAX_BODY_BYTES } from '../../src/http/client.js';
import type { Behaviour, Profile, ProfileModel, Quirks, ServerSettings, StreamQuirks } from '../../src/reference/profile.js';
import type { RoleKey } from '../../src/reference/roles.js';
import type { Verdict } from '../../src/results/model.js';
import { PROBES } from '../../suites/index.js';
import { LIMITS } from '../../suites/support/prompts.js';
import { claimedFamily, HIDDEN_MIN, MIN_COUNTED } from '../../suites/support/usage.js';

/**
 * The oracle's expectations, derived by rule from what each reference model declares (its features,
 * roles, quirks and failure, the server's settings) instead of kept by hand per cell. One rule per probe:
 * it says the verdict the declared behaviour must give, or `undefined` when it cannot say (a verdict that
 * hangs on what a fixed answer happens to contain, on a sampler's luck, on the key echoed into the text):
 * there, and only there, the profile declares the verdict in `expect`.
 * test/unit/oracle-rules.test.ts pins every rule on hand-made models, traps included; the oracle test
 * (test/e2e/oracle.test.ts) audits each profile and compares every cell with what this file derives.
 *
 * Adding a probe: write its rule here (the test that every probe has one fails until then), and its
 * cases in the unit test; declare a verdict in a profile only where the rule returns undefined.
 */

/** How a model treats a request parameter or a message feature. */
export type Kind = 'honour' | 'ignore' | 'reject' | 'error200';

const kindOf = (b: Behaviour | undefined): Kind => (b === undefined ? 'honour' : typeof b === 'string' ? b : 'reject' in b ? 'reject' : 'error200');

/** What one model of a profile declares, read as the rules need it. */
export interface Declared {
  server: ServerSettings;
  model: ProfileModel;
  q: Quirks;
  s: StreamQuirks;
  /** A request parameter (features); one not named is honoured. */
  param(key: string): Kind;
  /** A message feature (roles); one not named is honoured. */
  role(key: RoleKey): Kind;
}

export function declared(profile: Profile, model: ProfileModel): Declared {
  return {
    server: profile.server,
    model,
    q: model.quirks,
    s: model.quirks.stream,
    param: (key) => kindOf(model.features[key]),
    role: (key) => kindOf(model.roles[key]),
  };
}

/** A rule: the verdict the declared behaviour gives, or undefined when it cannot say. */
export type Rule<T = Declared> = (d: T) => Verdict | undefined;

// ---------------------------------------------------------------------------------------------------
// What a request meets before its feature is judged

/** A capability as the model declares it: a refusal is `rejected`, a 200 with an error body tells nothing. */
const capability = (k: Kind): Verdict => (k === 'honour' ? 'honoured' : k === 'ignore' ? 'ignored' : k === 'reject' ? 'rejected' : 'inconclusive');

/** A form whose effect is not looked for: accepted unless refused. */
const acceptance = (k: Kind): Verdict => (k === 'reject' ? 'rejected' : k === 'error200' ? 'inconclusive' : 'accepted');

/**
 * Why a plain (not streamed) answer cannot be read, if it cannot: an error body in a 200, a stream sent
 * though none was asked for, or a body padded past chatprobe's cap (reference/profile.ts, `paddedBody`).
 */
function unreadableAnswer(d: Declared): 'error-in-200' | 'streamed' | 'padded' | undefined {
  if (d.q.errorIn200) return 'error-in-200';
  if (d.q.streamByDefault) return 'streamed';
  // Past what chatprobe reads of a body (its own cap): not read whole.
  if (d.q.paddedBody >= DEFAULT_MAX_BODY_BYTES) return 'padded';
  return undefined;
}

/** A probe that reads the answer's text: what stands in its way, or undefined when nothing does. */
function textBlocked(d: Declared): Verdict | undefined {
  if (unreadableAnswer(d)) return 'inconclusive';
  // The answer goes to reasoning_content and the content is empty: no text to judge.
  if (d.q.emptyContent) return 'inconclusive';
  return undefined;
}

/** A probe that needs only the status and that an answer came: a stream nobody asked for is an answer. */
function statusBlocked(d: Declared): Verdict | undefined {
  const why = unreadableAnswer(d);
  return why === 'error-in-200' || why === 'padded' ? 'inconclusive' : undefined;
}

/**
 * A model that says the same text whatever it is asked (`fixedAnswer`): no instruction, sample or recall
 * shows an effect, and the controls show it follows none (inconclusive); what a limit, a stop string or a
 * format does to that text depends on the text, which no rule reads.
 */
const fixed = (d: Declared) => d.q.fixedAnswer !== undefined;

/**
 * Reasoning that takes the whole of the limit a request without one gets (`defaultLimit`): the smoke call
 * shows no answer and no room for reasoning is learnt (engine/room.ts), so which short answers are cut
 * depends on lengths no rule follows.
 */
const reasoningFillsDefault = (d: Declared) => d.q.reasoning !== undefined && d.q.defaultLimit !== undefined && d.q.reasoning.tokens >= d.q.defaultLimit;

/**
 * Reasoning as <think> text in the content on one side only (streamed or not): the stream's text and the
 * answer's differ by the thinking, and stop strings taken from one may fall in the other's thinking.
 */
function thinkOnOneSide(d: Declared): boolean {
  const r = d.q.reasoning;
  if (!r) return false;
  const streamed = r.streamPlace ?? (r.place === 'hidden' ? 'none' : r.place);
  return (r.place === 'think') !== (streamed === 'think');
}

/** The echoed key appended to every prose answer changes its length and ending. */
const echoedText = (d: Declared) => d.server.echoKey;

/**
 * A response cache (`cache`) hands a repeated request its first answer back, id and all: a sample set is one
 * sample, and a contrast's further answers are the same answer again, so neither shows an effect.
 */
const cached = (d: Declared) => d.q.cache;

// ---------------------------------------------------------------------------------------------------
// Refusals of invalid requests

type Conformance = 'pass' | 'warn' | 'fail';

/** The graver of two conformance verdicts. */
const worst = (a: Conformance, b: Conformance): Conformance => (a === 'fail' || b === 'fail' ? 'fail' : a === 'warn' || b === 'warn' ? 'warn' : 'pass');

/** How an invalid request's refusal reads, by the shape the server refuses in. */
function refusalVerdict(server: ServerSettings): Conformance | 'inconclusive' {
  if (server.errorPadding >= DEFAULT_MAX_BODY_BYTES) return 'inconclusive'; // a refusal larger than chatprobe reads: not read whole
  switch (server.errorStyle) {
    case 'openai':
      return 'pass';
    case 'fastapi':
    case 'top-level':
      return 'warn'; // JSON, but not the OpenAI envelope
    case 'new-api':
      return 'fail'; // a 500 for a client error
    case 'html':
    case 'text':
      return 'fail'; // not JSON
  }
}

const invalidRequest: Rule = (d) => (d.server.validation === 'lenient' ? undefined : refusalVerdict(d.server));

const outOfRange: Rule = (d) => {
  const refused = refusalVerdict(d.server);
  let v: Verdict | undefined;
  switch (d.q.outOfRange) {
    case 'refuse':
      v = refused;
      break;
    case 'unnamed': // refused without naming the parameter
      v = refused === 'inconclusive' ? refused : worst(refused, 'warn');
      break;
    case 'clamp': // answered in silence
    case 'llama-cpp': // temperature and top_p unchecked
      v = 'warn';
      break;
    case 'crash': // a 500 text page
      v = 'fail';
      break;
  }
  // max_tokens: -5 is not sent to a model that never stops (it would run to --timeout): one value untested.
  if (d.q.runaway && v === 'pass') return 'inconclusive';
  return v;
};

// ---------------------------------------------------------------------------------------------------
// The plain answer

const chatAnswer =
  (rest: Rule): Rule =>
  (d) => {
    switch (unreadableAnswer(d)) {
      case 'padded':
        return 'inconclusive';
      case 'error-in-200':
      case 'streamed':
        return 'fail';
      default:
        return rest(d);
    }
  };

const chatBasic: Rule = chatAnswer((d) => (d.q.emptyContent || reasoningFillsDefault(d) ? 'warn' : 'pass'));

// No choices[].index is a lenient-tier fault; no usage, refusal or logprobs strict-tier only.
const chatSchema: Rule = chatAnswer((d) => (d.q.omitChoiceIndex ? 'fail' : d.q.omitStrictFields || d.q.omitUsage ? 'warn' : 'pass'));

const STANDARD_FINISH = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'];
const finishReasonVerdict = (reason: string | null | undefined): Conformance =>
  reason === undefined ? 'pass' : reason === null || reason === '' ? 'fail' : STANDARD_FINISH.includes(reason) ? 'pass' : 'warn';

const chatFinishReason: Rule = chatAnswer((d) => {
  if (d.q.runaway) {
    // No answer without a limit; or one the server's own limit cuts ("length" unasked).
    return d.q.outputCap === undefined && d.q.defaultLimit === undefined ? 'fail' : worst('warn', finishReasonVerdict(d.q.finishReason));
  }
  if (reasoningFillsDefault(d)) return worst('warn', finishReasonVerdict(d.q.finishReason)); // cut by the server's own limit
  return finishReasonVerdict(d.q.finishReason);
});

const chatUsage: Rule = (d) => {
  switch (unreadableAnswer(d)) {
    case 'padded':
      return 'inconclusive';
    case 'error-in-200':
    case 'streamed':
      return 'warn'; // no usage read
  }
  if (d.q.omitUsage) return 'warn';
  if (d.q.usageTotalOff !== 0) return 'fail';
  if (d.q.fixedPromptTokens !== undefined) return undefined;
  return 'pass';
};

const chatModelEcho: Rule = chatAnswer((d) => (d.q.echoModel === undefined || d.q.echoModel === d.model.id ? 'pass' : d.q.echoModel === '' ? 'fail' : 'warn'));

const chatErrorIn2xx: Rule = (d) => {
  switch (unreadableAnswer(d)) {
    case 'error-in-200':
      return 'fail';
    case 'streamed':
    case 'padded':
      return 'inconclusive';
  }
  return 'pass';
};

// ---------------------------------------------------------------------------------------------------
// Streams. Most streaming probes read one plain stream (counting, max_tokens 48); usage and integrity
// read the greedy counting stream with include_usage; tool_calls a stream of tool calls (no content).

/** What keeps a stream of content from being judged at all, if anything. */
function streamUnusable(d: Declared, needChunks = true): Verdict | undefined {
  // No bytes after a few chunks, or comments forever: the client's --timeout ends it.
  if (d.s.stallAfter !== undefined || d.s.endless) return 'error';
  // One JSON body: no event stream to read (streaming.content_type and streaming.basic judge that).
  if (d.s.ignoreStreamFlag) return 'inconclusive';
  // Events joined by single newlines parse as no JSON chunk (streaming.framing judges that).
  if (needChunks && d.s.singleNewline) return 'inconclusive';
  return undefined;
}

/** The stream breaks off before it ends: an error event, or a close. */
const breaksOff = (d: Declared) => d.s.errorAfter !== undefined || d.s.closeAfter !== undefined;

/** Neither a finish_reason nor [DONE] ends the stream. */
const neverEnds = (d: Declared) => breaksOff(d) || (d.s.noFinish && !d.s.done);

const streamingBasic: Rule = (d) => {
  if (d.s.ignoreStreamFlag) return 'fail';
  const unusable = streamUnusable(d, false);
  if (unusable) return unusable;
  if (d.s.singleNewline) return 'fail'; // no JSON chunk
  if (d.q.emptyContent) return 'fail'; // no content in the deltas
  if (reasoningFillsDefault(d)) return undefined;
  return neverEnds(d) ? 'fail' : 'pass';
};

const streamingContentType: Rule = (d) => {
  if (d.s.ignoreStreamFlag) return 'fail';
  return d.s.contentType.startsWith('text/event-stream') ? 'pass' : 'warn';
};

const streamingFraming: Rule = (d) => {
  const unusable = streamUnusable(d, false);
  if (unusable) return unusable;
  if (d.s.singleNewline) return 'fail';
  if (d.s.errorAfter !== undefined && d.s.errorDepth > 0) return 'inconclusive'; // an event too deep for chatprobe to parse
  return d.s.eventLines ? 'warn' : 'pass';
};

const streamingDone: Rule = (d) => streamUnusable(d) ?? (!d.s.done || breaksOff(d) ? 'fail' : d.s.afterDone ? 'warn' : 'pass');

const streamingChunkSchema: Rule = (d) =>
  streamUnusable(d) ?? (d.s.chunkObject !== 'chat.completion.chunk' ? 'fail' : d.s.intermediateFinish === 'omit' ? 'warn' : 'pass');

const streamingRoleFirst: Rule = (d) => streamUnusable(d) ?? ({ first: 'pass', every: 'warn', never: 'warn', wrong: 'fail' } as const)[d.s.role];

const streamingFinishOnce: Rule = (d) => {
  const unusable = streamUnusable(d);
  if (unusable) return unusable;
  if (d.s.noFinish || breaksOff(d) || d.s.finishTwice) return 'fail';
  return worst(finishReasonVerdict(d.q.finishReason), d.s.intermediateFinish === 'null' ? 'pass' : 'warn');
};

/** stream_options refused as a parameter: the usage stream is refused whole. */
const usageStreamRefused = (d: Declared) => d.param('stream_options') === 'reject';

const streamingUsage: Rule = (d) => {
  if (usageStreamRefused(d)) return 'fail';
  const unusable = streamUnusable(d);
  if (unusable) return unusable;
  if (breaksOff(d)) return 'fail'; // no usage chunk before the break
  const shape = ({ requested: 'pass', always: 'pass', every: 'warn', 'last-content': 'warn', 'in-repeat': 'fail', never: 'fail' } as const)[d.s.usage];
  return worst(shape, d.q.usageTotalOff !== 0 ? 'fail' : 'pass');
};

const streamingUnrequestedUsage: Rule = (d) => streamUnusable(d) ?? (d.s.usage === 'always' ? 'fail' : d.s.usage === 'every' ? 'warn' : 'pass');

const streamingNoStreamField: Rule = (d) => (d.q.streamByDefault ? 'fail' : unreadableAnswer(d) === 'padded' ? 'inconclusive' : 'pass');

const streamingErrorInBand: Rule = (d) => {
  const unusable = streamUnusable(d);
  if (unusable) return unusable;
  if (d.s.errorAfter !== undefined && d.s.errorDepth > 0) return 'inconclusive';
  return neverEnds(d) ? 'fail' : 'pass';
};

/** Content chunks the plain stream carries before it breaks off: fewer than five time nothing. */
const streamingBuffered: Rule = (d) => {
  const unusable = streamUnusable(d);
  if (unusable) return unusable;
  const broken = Math.min(d.s.errorAfter ?? Infinity, d.s.closeAfter ?? Infinity);
  if (broken < 5 || d.q.emptyContent) return 'inconclusive';
  if (fixed(d) || reasoningFillsDefault(d)) return undefined;
  if (d.s.bufferMs > 0) return 'fail';
  // Chunks closer than a client can tell apart from a burst: the probe's own control stands it down.
  return d.model.chunkDelayMs >= 5 ? 'pass' : undefined;
};

const streamingToolCalls: Rule = (d) => {
  // The tool calls come before any content: a stall after content chunks never comes.
  if (d.s.endless) return 'error';
  if (d.s.ignoreStreamFlag || d.s.singleNewline) return 'inconclusive';
  if (d.param('tools') !== 'honour' || d.q.callsOnlyWhenForced) return 'inconclusive'; // no call to stream
  if (d.q.toolCallsAsText) return 'fail';
  const how = ({ openai: 'pass', 'one-chunk': 'pass', 'split-name': 'warn', 'no-index': 'fail', 'index-zero': 'fail', 'empty-id': 'fail', 'bad-args': 'fail', dropped: 'fail', 'repeat-args': 'fail' } as const)[d.s.toolCalls];
  return worst(how, d.s.noFinish ? 'warn' : 'pass'); // no finish_reason "tool_calls"
};

const streamingIntegrity: Rule = (d) => {
  if (usageStreamRefused(d)) return 'inconclusive';
  const unusable = streamUnusable(d);
  if (unusable) return unusable;
  if (unreadableAnswer(d) || d.q.emptyContent) return 'inconclusive'; // no answer unstreamed to compare with
  if (neverEnds(d)) return 'inconclusive'; // not a whole answer
  if (reasoningFillsDefault(d)) return undefined;
  if (thinkOnOneSide(d)) return 'inconclusive'; // the two texts differ by the thinking, which no repeat explains
  // A piece sent twice or two swapped; a usage chunk that repeats the last piece.
  return d.s.race !== 'none' || d.s.usage === 'in-repeat' ? 'fail' : 'pass';
};

// ---------------------------------------------------------------------------------------------------
// Parameters

/** A parameter whose effect shows in the answer's text. */
const textParam =
  (key: string, rest: Rule = () => 'honoured'): Rule =>
  (d) => {
    const k = d.param(key);
    if (k === 'reject') return 'rejected';
    const blocked = textBlocked(d);
    if (blocked) return blocked;
    if (k === 'error200') return 'inconclusive';
    if (k === 'ignore') return 'ignored';
    if (reasoningFillsDefault(d)) return undefined;
    return rest(d);
  };

/** A limit: honoured when the answer is cut at it. A gateway's own cap drops the client's. */
const lengthLimit = (key: string): Rule => {
  const rule = textParam(key, (d) => (d.q.outputCap !== undefined ? 'ignored' : fixed(d) || echoedText(d) ? undefined : 'honoured'));
  return (d) => {
    // Read from the finish and the usage as well: an empty content with reasoning beside it still shows the cut.
    if (d.q.emptyContent && !unreadableAnswer(d)) return capability(d.param(key));
    return rule(d);
  };
};

/**
 * Sampling (temperature 0; top_p near 0 and a fixed seed, below): agreement among samples that chance
 * cannot explain. A sampler that favours one answer makes the verdict a matter of how the samples fall.
 */
const temperature: Rule = (d) => {
  const k = d.param('temperature');
  if (k === 'reject') return 'rejected';
  const blocked = textBlocked(d);
  if (blocked) return blocked;
  // Sampling at 0 anyway: whether the samples happen to agree decides.
  if (d.q.favourite !== undefined || d.q.randomAtZero || reasoningFillsDefault(d)) return undefined;
  // Never `ignored`: variety at 0 may be the model's own randomness as much as an ignored parameter.
  if (k !== 'honour' || fixed(d) || cached(d)) return 'inconclusive';
  // Backends of other weights in turn: the greedy samples differ by backend, no collapse to see.
  if (mixesWeights(d)) return 'inconclusive';
  return 'honoured';
};

/** A round robin over backends of other weights (`roundRobin`): greedy answers to an open prompt differ by backend. */
const mixesWeights = (d: Declared) => d.q.roundRobin !== undefined && new Set(d.q.roundRobin.map((b) => b.weights)).size > 1;

/**
 * The temperature the samples without the parameter are drawn at (1) refused: no variety to compare with.
 * Reasoning models refuse every temperature but 1 (`allow`), and that one is enough.
 */
function refusesTemperatureOne(d: Declared): boolean {
  const t = d.model.features.temperature;
  return typeof t === 'object' && 'reject' in t && !(t.reject.allow ?? []).includes(1);
}

/** `ignored` needs greedy decoding to repeat (the positive control): temperature 0 taken, and greedy. */
const collapse =
  (key: string): Rule =>
  (d) => {
    const k = d.param(key);
    if (k === 'reject') return 'rejected';
    const blocked = textBlocked(d);
    if (blocked) return blocked;
    if (k === 'error200' || refusesTemperatureOne(d)) return 'inconclusive';
    if (d.q.favourite !== undefined || reasoningFillsDefault(d)) return undefined;
    if (fixed(d) || cached(d)) return 'inconclusive'; // one answer to everything: no variety to collapse
    // Greedy answers differ by backend: no collapse to see. (The pseudo-model's seeded draws do not follow
    // its weights, so a seed still collapses them.)
    if (key !== 'seed' && mixesWeights(d)) return 'inconclusive';
    if (k === 'honour') return 'honoured';
    return d.param('temperature') === 'honour' && !d.q.randomAtZero ? 'ignored' : 'inconclusive';
  };

/** Stop strings: the answer ends before the first. Five of them: a server that takes four refuses. */
const stop =
  (strings: number): Rule =>
  (d) => {
    if (d.param('stop') !== 'reject' && d.server.stopLimit !== undefined && d.server.stopLimit < strings) return 'rejected';
    return textParam('stop', (x) => (fixed(x) || echoedText(x) || thinkOnOneSide(x) ? undefined : 'honoured'))(d);
  };

/** A parameter whose effect shows in the answer's form (choices, logprobs), not in its text. */
const formParam =
  (key: string): Rule =>
  (d) => {
    const k = d.param(key);
    if (k === 'reject') return 'rejected';
    if (unreadableAnswer(d)) return 'inconclusive';
    // Log probabilities of the content: none while reasoning fills the limit.
    if (key === 'logprobs' && k === 'honour' && reasoningFillsDefault(d)) return undefined;
    return capability(k);
  };

/** A JSON response format: the answer parses as JSON (of the schema). A cut or a tail after it is no evidence. */
const jsonFormat = (schema: boolean): Rule =>
  textParam('response_format', (d) => {
    if (fixed(d)) return undefined;
    // Cut before the JSON ends: by a gateway's cap under the probe's limit, or a model that never stops.
    if ((d.q.outputCap !== undefined && d.q.outputCap < LIMITS.json) || d.q.runaway) return 'inconclusive';
    if (schema && d.q.jsonSchemaAsJsonMode) return 'ignored';
    // json_object is a contrast with the prose answers; json_schema compares one answer with each control.
    if (!schema && cached(d)) return 'inconclusive';
    return 'honoured';
  });

/**
 * A parameter that steers tool calls (tool_choice, parallel_tool_calls): refused in its own name, or
 * needing calls the probe can read. Tools refused come first: the refusal names them, not the parameter.
 */
function toolParam(d: Declared, key: string): Verdict | undefined {
  const tools = d.param('tools');
  if (tools === 'reject') return 'inconclusive';
  if (d.param(key) === 'reject') return 'rejected';
  if (unreadableAnswer(d)) return 'inconclusive';
  if (tools !== 'honour') return 'inconclusive'; // tools dropped: no call to steer
  return undefined;
}

const tools: Rule = (d) => {
  const k = d.param('tools');
  if (k === 'reject') return 'rejected';
  if (unreadableAnswer(d)) return 'inconclusive';
  if (k !== 'honour') return capability(k);
  if (d.q.toolCallsAsText) return 'ignored'; // calls as text in the content: no tool_calls
  if (d.q.callsOnlyWhenForced) return 'inconclusive'; // it calls nothing unasked: no effect either way
  return 'honoured';
};

/** tool_choice: a call as forced ("required", a named tool), or none ("none"). */
const toolChoice = (how: 'required' | 'none' | 'named'): Rule =>
  (d) => {
    const blocked = toolParam(d, 'tool_choice');
    if (blocked) return blocked;
    if (reasoningFillsDefault(d)) return undefined;
    const k = d.param('tool_choice');
    if (k !== 'honour') return capability(k);
    if (d.q.toolCallsAsText) return how === 'none' ? 'inconclusive' : 'ignored';
    // A model that calls every tool unasked shows no forcing; one that calls only when forced shows no "none".
    if (d.q.alwaysCallTools && how !== 'none') return 'inconclusive';
    if (d.q.callsOnlyWhenForced && how === 'none') return 'inconclusive';
    // Honoured is a contrast of answers with the parameter and without it: a cache makes them one each.
    return cached(d) ? 'inconclusive' : 'honoured';
  };

const parallelToolCalls: Rule = (d) => {
  const blocked = toolParam(d, 'parallel_tool_calls');
  if (blocked) return blocked;
  const k = d.param('parallel_tool_calls');
  if (d.q.toolCallsAsText || d.q.callsOnlyWhenForced) return 'inconclusive'; // no parallel calls to stop
  if (k === 'honour' && cached(d)) return 'inconclusive'; // a contrast, as tool_choice's
  return capability(k);
};

/** A parameter whose effect is not looked for: accepted or refused. */
const accepted =
  (key: string): Rule =>
  (d) =>
    d.param(key) === 'reject' ? 'rejected' : (statusBlocked(d) ?? acceptance(d.param(key)));

const unknownField: Rule = (d) => (d.server.unknownFields === 'forbid' ? 'rejected' : accepted('chatprobe_unknown_field')(d));

const streamOptionsWithoutStream: Rule = (d) => (d.server.streamOptionsNeedStream ? 'rejected' : accepted('stream_options')(d));

// ---------------------------------------------------------------------------------------------------
// Roles and message forms

/** A message form whose effect shows in the answer: an instruction followed, or content recalled. */
const roleForm =
  (kinds: (d: Declared) => Kind[], recall: boolean, extra?: (d: Declared) => Verdict | undefined): Rule =>
  (d) => {
    const ks = kinds(d);
    if (ks.includes('reject')) return 'rejected';
    const blocked = textBlocked(d);
    if (blocked) return blocked;
    const pre = extra?.(d);
    if (pre) return pre;
    if (ks.includes('error200')) return 'inconclusive';
    // Says the same whatever it is told, or recalls nothing: the plain control fails as well.
    if (fixed(d) || (recall && d.q.weakRecall)) return 'inconclusive';
    if (reasoningFillsDefault(d)) return undefined;
    return ks.includes('ignore') ? 'ignored' : 'honoured';
  };

const rolesSystem = roleForm((d) => [d.role('system')], false);
const rolesDeveloper = roleForm((d) => [d.role('developer')], false);
/** The instruction is in the system message's second text part: dropped with the parts after the first. */
const rolesSystemParts = roleForm((d) => [d.role('system'), d.role('content_parts')], false);
const rolesHistory = roleForm((d) => [d.role('history')], true);
const rolesContentParts = roleForm((d) => [d.role('content_parts')], true);
/** The image is the second part of the user message. */
const rolesImage = roleForm((d) => [d.role('content_parts'), d.role('image')], true);
/**
 * An assistant turn with a tool call, then the tool's result, with the tools sent. A server that drops
 * the history still hands the model the result, the last message: only a refusal of it counts. One that
 * drops the result but keeps the call and the tools leaves the model its own call unanswered: it calls
 * again, and a call has no words to judge.
 */
const rolesToolResult = roleForm(
  (d) => [d.role('history') === 'reject' ? 'reject' : 'honour', d.role('tool')],
  true,
  (d) => {
    const tools = d.param('tools');
    if (tools === 'reject' || tools === 'error200') return 'inconclusive'; // the control (the tools request) refused
    if (d.role('tool') === 'ignore' && d.role('history') !== 'ignore' && tools === 'honour') return 'inconclusive';
    return undefined;
  },
);

/** A message form whose effect is not looked for. */
const roleAccepted =
  (kinds: (d: Declared) => Kind[]): Rule =>
  (d) => {
    const ks = kinds(d);
    if (ks.includes('reject')) return 'rejected';
    return statusBlocked(d) ?? (ks.includes('error200') ? 'inconclusive' : 'accepted');
  };

// ---------------------------------------------------------------------------------------------------
// Reasoning

/** A reasoning probe: nothing to see on a model that does not reason. */
const reasoning =
  (rule: (r: NonNullable<Quirks['reasoning']>, d: Declared) => Verdict | undefined, emptyContent: Verdict = 'inconclusive'): Rule =>
  (d) => {
    if (unreadableAnswer(d)) return 'inconclusive';
    const r = d.q.reasoning;
    // The answer in reasoning_content and no content: it reads as reasoning without an answer.
    if (!r) return d.q.emptyContent ? emptyContent : 'inconclusive';
    return rule(r, d);
  };

const reasoningField = reasoning((r) => (r.place === 'think' ? 'warn' : 'pass'), 'warn');

const reasoningStream = reasoning((r, d) => {
  const unusable = streamUnusable(d);
  if (unusable) return unusable;
  // Hidden without streaming: whatever the stream shows is more, never less. Otherwise dropped or moved
  // by the stream warns.
  if (r.place === 'hidden') return 'pass';
  return (r.streamPlace ?? r.place) === r.place ? 'pass' : 'warn';
}, 'pass');

const reasoningUsage = reasoning((r) => ({ details: 'pass', none: 'warn', over: 'fail' } as const)[r.usage], 'warn');

const reasoningEffort = reasoning((r, d) => (d.param('reasoning_effort') === 'reject' ? 'rejected' : r.effort === 'honour' ? 'honoured' : 'inconclusive'));

const reasoningEcho = reasoning((r) => (r.echo === 'reject' ? 'rejected' : 'accepted'), 'accepted');

// ---------------------------------------------------------------------------------------------------
// Billing, read from the server's meter

/** No usage read from a plain answer: charges cannot be weighed against it. */
const usageUnread = (d: Declared) => unreadableAnswer(d) !== undefined || d.q.omitUsage;

const billing =
  (rule: (b: Quirks['billing'], d: Declared) => Verdict): Rule =>
  (d) => {
    const meter = d.server.meter;
    if (!meter) return undefined; // not run
    if (meter.lagReads > 0 || meter.drift > 0) return undefined; // how the reads fall decides
    // A meter that writes charges late (lateMs) changes no verdict: the quiet check waits for the audit's
    // charges still pending, and each call is watched long enough to see its own (suites/support/billing.ts).
    const b = d.q.billing;
    // Nothing is ever charged: no charge to check.
    if (b.prompt === 0 && b.completion === 0 && b.perCall === 0) return 'inconclusive';
    return rule(b, d);
  };

// ---------------------------------------------------------------------------------------------------
// Usage: what the endpoint counts (the series of prompts with repeated units, the greedy counting answer,
// the sampling sets)

/**
 * The series' slope names the family only where the model counts like one (`tokenizer`); the pseudo-model's
 * own count is a tokenizer outside the table. A name that claims another family warns.
 */
const usageTokenizer: Rule = (d) => {
  if (usageUnread(d) || d.q.fixedPromptTokens !== undefined) return 'inconclusive';
  if (!d.q.tokenizer) return 'inconclusive';
  const claim = claimedFamily(d.model.id);
  return claim !== undefined && claim !== d.q.tokenizer ? 'warn' : 'pass';
};

/**
 * Something added to every prompt and counted fails; a default system prompt that the request's own system
 * message replaces is a note, when that message reaches the model (a server that drops it keeps the default:
 * the same as injected; one that refuses it leaves no control). What the pseudo-model's template adds is
 * within what the known ones do; below twice HIDDEN_MIN added, the verdict hangs on the margins.
 */
const usageOverhead: Rule = (d) => {
  if (usageUnread(d)) return 'inconclusive';
  if (d.q.fixedPromptTokens !== undefined) return undefined;
  const hidden = d.q.hiddenPrompt ?? 0;
  const dflt = d.q.defaultPrompt ?? 0;
  if ((hidden > 0 && hidden < 2 * HIDDEN_MIN) || (dflt > 0 && dflt < 2 * HIDDEN_MIN)) return undefined;
  if (hidden > 0) return 'fail';
  if (dflt === 0) return 'pass';
  const system = d.role('system');
  return system === 'honour' ? 'pass' : system === 'ignore' ? 'fail' : 'inconclusive';
};

/**
 * The greedy counting answer against the family's count of its text: only where a family is named, and the
 * answer is the counting text (no fixed answer, no key echoed into it, no reasoning in the content).
 */
const usageCompletion: Rule = (d) => {
  if (usageUnread(d) || !d.q.tokenizer || d.q.fixedPromptTokens !== undefined) return 'inconclusive';
  if (textBlocked(d) || fixed(d) || echoedText(d) || d.q.reasoning?.place === 'think') return 'inconclusive';
  // A gateway cap under the counting answer's first dozen tokens leaves too little to count.
  if (d.q.outputCap !== undefined && d.q.outputCap < MIN_COUNTED) return 'inconclusive';
  if (d.q.reasoning?.usage === 'none') return 'inconclusive';
  if (d.q.reasoning?.usage === 'over') return 'warn';
  return d.q.usageInflate !== undefined && d.q.usageInflate > 1 ? 'warn' : 'pass';
};

/** The sampling sets at temperature 1 (and 0): a cache hands the same answer back, id and all. */
const usageCache: Rule = (d) => {
  if (unreadableAnswer(d) || refusesTemperatureOne(d) || d.param('temperature') === 'error200') return 'inconclusive';
  if (d.q.cache) return 'warn';
  // One answer to everything: no variety for ids to be told from.
  if (fixed(d)) return 'inconclusive';
  if (d.q.favourite !== undefined || reasoningFillsDefault(d)) return undefined;
  return 'pass';
};

// ---------------------------------------------------------------------------------------------------
// Identity: the fingerprint's prompts at temperature 0, the anchor repeated (suites/support/identity.ts)

/**
 * The fingerprint gets no answer at all: an answer no probe reads, temperature 0 refused or failed in a
 * 200 (the fingerprint stops, or every request fails), the output limit failing in a 200, or reasoning
 * that leaves no room to learn (hidden and not counted).
 */
function fingerprintUnanswered(d: Declared): boolean {
  if (unreadableAnswer(d) || d.q.emptyContent) return true;
  const t = d.model.features.temperature;
  if (typeof t === 'object' && 'reject' in t && !(t.reject.allow ?? []).includes(0)) return true;
  if (d.param('temperature') === 'error200' || d.param('max_tokens') === 'error200') return true;
  if (d.q.reasoning?.place === 'hidden' && d.q.reasoning.usage === 'none') return true;
  // Reasoning that fills the limit of a request without one: no room learnt, and one or eight tokens are all reasoning.
  return reasoningFillsDefault(d);
}

/** Answers that vary at temperature 0: the server samples anyway (or ignores temperature), and no cache repeats it. */
const samplesAtZero = (d: Declared) => (d.q.randomAtZero || d.param('temperature') === 'ignore') && !cached(d);

/** Logprobs read: honoured (a refusal or a failure in a 200 leaves the answers only). */
const fingerprintLogprobs = (d: Declared) => d.param('logprobs') === 'honour';

/**
 * What the mixed-channel test sees of a round robin (`roundRobin`): with logprobs, two groups (other weights,
 * or a quantized twin, apart past the floor); answers only, two answers only for other weights, and a mix
 * only when each backend names itself (`systemFingerprint`).
 */
function roundRobinSeen(d: Declared): 'mixed' | 'answers-split' | 'config' | 'alike' | undefined {
  const rr = d.q.roundRobin;
  if (!rr) return undefined;
  const otherWeights = new Set(rr.map((b) => b.weights)).size > 1;
  const otherLogprobs = new Set(rr.map((b) => `${b.weights}\u0000${b.quantized ?? 0}`)).size > 1;
  // What each backend says in system_fingerprint: its own, or one named after its weights.
  const marks = new Set(rr.map((b) => b.fingerprint ?? (d.q.systemFingerprint ? b.weights : undefined)));
  const otherMarks = marks.size > 1 && !marks.has(undefined);
  if (fingerprintLogprobs(d) ? otherLogprobs : otherWeights) {
    if (fingerprintLogprobs(d)) return 'mixed';
    // Answers only: two answers are a mix where each backend names itself apart.
    return otherMarks ? 'mixed' : 'answers-split';
  }
  return otherMarks ? 'config' : 'alike';
}

const identityFingerprint: Rule = (d) => {
  if (fingerprintUnanswered(d)) return 'inconclusive';
  const rr = roundRobinSeen(d);
  if (rr === 'mixed') return 'inconclusive'; // two groups: identity.mixed_backends's finding, no one spread
  if (rr === 'answers-split' || samplesAtZero(d)) return 'warn'; // its own spread leaves comparisons no power
  return 'pass';
};

const identityMixedBackends: Rule = (d) => {
  if (fingerprintUnanswered(d)) return 'inconclusive';
  const rr = roundRobinSeen(d);
  if (rr === 'mixed') return 'fail';
  // Two answers with nothing else to split them by: a mix, or a server that samples.
  if (rr === 'answers-split' || samplesAtZero(d)) return 'inconclusive';
  return rr === 'config' ? 'warn' : 'pass';
};

// ---------------------------------------------------------------------------------------------------

/** The rule of every model-scope probe, by id. */
export const MODEL_RULES: Record<string, Rule> = {
  'errors.missing_messages': (d) => refusalVerdict(d.server),
  'errors.wrong_type': invalidRequest,
  'errors.out_of_range': outOfRange,
  'errors.invalid_role': invalidRequest,
  'chat.basic': chatBasic,
  'chat.schema': chatSchema,
  'chat.finish_reason': chatFinishReason,
  'chat.usage': chatUsage,
  'chat.model_echo': chatModelEcho,
  'chat.error_in_2xx': chatErrorIn2xx,
  'streaming.basic': streamingBasic,
  'streaming.content_type': streamingContentType,
  'streaming.framing': streamingFraming,
  'streaming.done': streamingDone,
  'streaming.chunk_schema': streamingChunkSchema,
  'streaming.role_first': streamingRoleFirst,
  'streaming.finish_once': streamingFinishOnce,
  'streaming.usage': streamingUsage,
  'streaming.unrequested_usage': streamingUnrequestedUsage,
  'streaming.no_stream_field': streamingNoStreamField,
  'streaming.error_in_band': streamingErrorInBand,
  'streaming.buffered': streamingBuffered,
  'streaming.tool_calls': streamingToolCalls,
  'streaming.integrity': streamingIntegrity,
  'parameters.max_tokens': lengthLimit('max_tokens'),
  'parameters.max_completion_tokens': lengthLimit('max_completion_tokens'),
  'parameters.temperature': temperature,
  'parameters.top_p': collapse('top_p'),
  'parameters.seed': collapse('seed'),
  'parameters.stop': stop(1),
  'parameters.stop_many': stop(5),
  'parameters.n': formParam('n'),
  'parameters.presence_penalty': accepted('presence_penalty'),
  'parameters.frequency_penalty': accepted('frequency_penalty'),
  'parameters.logprobs': formParam('logprobs'),
  'parameters.logit_bias': accepted('logit_bias'),
  'parameters.response_format.json_object': jsonFormat(false),
  'parameters.response_format.json_schema': jsonFormat(true),
  'parameters.tools': tools,
  'parameters.tool_choice.required': toolChoice('required'),
  'parameters.tool_choice.none': toolChoice('none'),
  'parameters.tool_choice.named': toolChoice('named'),
  'parameters.parallel_tool_calls': parallelToolCalls,
  'parameters.user': accepted('user'),
  'parameters.metadata': accepted('metadata'),
  'parameters.unknown_field': unknownField,
  'parameters.reasoning_effort': accepted('reasoning_effort'),
  'parameters.stream_options_without_stream': streamOptionsWithoutStream,
  'roles.system': rolesSystem,
  'roles.developer': rolesDeveloper,
  'roles.system_parts': rolesSystemParts,
  'roles.history': rolesHistory,
  'roles.content_parts': rolesContentParts,
  'roles.image': rolesImage,
  'roles.tool_result': rolesToolResult,
  'roles.name': roleAccepted((d) => [d.role('name')]),
  'roles.consecutive_user': roleAccepted((d) => [d.role('consecutive_user')]),
  'roles.assistant_prefill': roleAccepted((d) => [d.role('prefill')]),
  /** A user turn, an assistant turn, then an empty user message. */
  'roles.empty_content': roleAccepted((d) => [d.role('history'), d.role('empty_content')]),
  'reasoning.field': reasoningField,
  'reasoning.stream': reasoningStream,
  'reasoning.usage': reasoningUsage,
  'reasoning.effort': reasoningEffort,
  'reasoning.echo': reasoningEcho,
  'usage.tokenizer': usageTokenizer,
  'usage.prompt_overhead': usageOverhead,
  'usage.completion': usageCompletion,
  'usage.cache': usageCache,
  'identity.fingerprint': identityFingerprint,
  'identity.mixed_backends': identityMixedBackends,
  'billing.failed_call': billing((b) => (b.failures === 'bill' ? 'fail' : 'pass')),
  // Weighed against the plain call's usage, and the stream's (with include_usage).
  'billing.stream': billing((b, d) => (usageUnread(d) || usageStreamRefused(d) ? 'inconclusive' : b.stream === 'usage' ? 'pass' : 'fail')),
  'billing.usage': billing((b, d) => (usageUnread(d) ? 'inconclusive' : b.byLimit ? 'fail' : d.q.usageInflate !== undefined && d.q.usageInflate > 1 ? 'warn' : 'pass')),
};

/** The rule of every endpoint-scope probe, by id: from the server's settings alone. */
export const ENDPOINT_RULES: Record<string, Rule<ServerSettings>> = {
  'models.list': (s) => (s.modelList.duplicateFirst ? 'fail' : s.modelList.omitCreated ? 'warn' : 'pass'),
  'auth.missing_key': (s) => authVerdict(s, 'warn'),
  'auth.bad_key': (s) => authVerdict(s, 'warn'),
  // Without a key required, a request without the Bearer scheme shows nothing about reading it.
  'auth.no_bearer': (s) => authVerdict(s, 'inconclusive'),
  'errors.unknown_model': (s) => {
    if (s.errorPadding >= DEFAULT_MAX_BODY_BYTES) return 'inconclusive';
    // A 503 "no channel", or another model answering: not a 404 naming the model.
    if (s.unknownModel !== 'openai') return 'fail';
    return s.errorStyle === 'new-api' ? 'pass' : refusalVerdict(s);
  },
  'errors.malformed_json': (s) => refusalVerdict(s),
};

function authVerdict(s: ServerSettings, open: Verdict): Verdict {
  if (s.errorPadding >= DEFAULT_MAX_BODY_BYTES) return 'inconclusive';
  return ({ required: 'pass', vllm: 'warn', broken: 'fail', none: open } as const)[s.auth];
}

/**
 * Whether the plain request (the smoke call) gets an answer: the control every refusal is weighed
 * against. A refusal where the plain request gets none either is no refusal of the feature.
 */
const controlAnswered = (d: Declared) => !d.q.errorIn200 && unreadableAnswer(d) !== 'padded' && !(d.q.streamByDefault && d.q.emptyContent);

/** What one probe's rule says for a model, or undefined. The row of a model that always fails errs. */
export function ruleVerdict(d: Declared, probe: string): Verdict | undefined {
  if (d.model.failure && d.model.failure.times === undefined) return 'error';
  const rule = MODEL_RULES[probe];
  if (!rule) throw new Error(`no oracle rule for probe ${probe} (test/oracle/expectations.ts)`);
  const v = rule(d);
  return v === 'rejected' && !controlAnswered(d) ? 'inconclusive' : v;
}

/** The model-scope probes the oracle runs on a profile: billing only where a balance route answers. */
export const modelProbesOf = (profile: Profile): string[] =>
  PROBES.filter((p) => p.scope !== 'target' && (p.area !== 'billing' || profile.server.meter !== undefined)).map((p) => p.id);

export const endpointProbes = (): string[] => PROBES.filter((p) => p.scope === 'target').map((p) => p.id);

/** A cell the rules leave open and the profile does not declare. */
export class Undecided extends Error {}

/**
 * Every cell the oracle compares for a profile: `model probe` → verdict (endpoint cells under `endpoint`
 * as the key's model part), each from its rule, or from the profile's `expect` where the rule cannot say.
 * Throws on a cell neither decides, and on a declared verdict where a rule already says one: overrides
 * exist only where rules cannot say.
 */
export function expectations(profile: Profile, endpoint: string): Record<string, Verdict> {
  const cells: Record<string, Verdict> = {};
  const problems: string[] = [];
  const decide = (cell: string, derived: Verdict | undefined, declaredV: Verdict | undefined) => {
    if (derived !== undefined && declaredV !== undefined) problems.push(`${cell}: declared ${declaredV}, but its rule already says ${derived}`);
    const v = derived ?? declaredV;
    if (v === undefined) problems.push(`${cell}: its rule cannot say, and the profile declares no verdict`);
    else cells[cell] = v;
  };
  const stray = (where: string, declaredHere: Record<string, Verdict>, probes: string[]) => {
    for (const probe of Object.keys(declaredHere)) if (!probes.includes(probe)) problems.push(`${where} ${probe}: declared, but no such probe runs here`);
  };
  stray(endpoint, profile.expect, endpointProbes());
  for (const probe of endpointProbes()) decide(`${endpoint} ${probe}`, ENDPOINT_RULES[probe]!(profile.server), profile.expect[probe]);
  for (const m of profile.models.filter((x) => x.listed)) {
    const d = declared(profile, m);
    stray(m.id, m.expect, modelProbesOf(profile));
    for (const probe of modelProbesOf(profile)) decide(`${m.id} ${probe}`, ruleVerdict(d, probe), m.expect[probe]);
  }
  if (problems.length > 0) throw new Undecided(`profile ${profile.name}:\n  ${problems.join('\n  ')}`);
  return cells;
}
