/**
 * The direct evidence of the truth table: what the real server does, asked as plainly as possible with
 * fetch, without any of chatprobe's code (streams are read by ./stream.ts). docs/real-server-evidence.md
 * records the same requests.
 *
 * Every fact that rests on something not happening (no call, no reasoning, no instruction followed, no
 * usage sent) carries its control: the request was answered. A server that answers nothing, or answers
 * every request with an error inside a 200, establishes no fact (llama-server.test.ts checks that on two
 * such servers).
 */
import { TOP_LOGPROBS, topDistance } from '../../src/results/identity.js';
import { ANCHOR, firstTop } from '../../suites/support/identity.js';
import { ask, calls, content, type Answer } from './llama.js';
import { askStream, readStream, type StreamFacts } from './stream.js';

const COUNT = 'Count from 1 to 20, separated by commas. Write nothing else.';
const COUNT_12 = 'Count from 1 to 12, separated by commas. Write nothing else.';
const NUMBER = 'Write a random six-digit number. Reply with the number only.';
/** chatprobe's smoke prompt: the plain request its chat.* probes read. */
const OK = 'Reply with the single word OK.';
const TWO_CITIES = 'What is the weather in Paris and in Tokyo right now? Call get_weather once for each city.';
const user = (c: unknown) => [{ role: 'user', content: c }];
const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const TIME = {
  type: 'function',
  function: { name: 'get_time', description: 'Current time in a time zone.', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } },
};
/** The usage probes' slope unit (suites/support/usage-texts.ts), written out again: the evidence uses none of chatprobe's code. */
export const UNIT_A = '3.14159265358979 ∑∫∂√∞≈\n';
/** roles.system's request, which usage.prompt_overhead reads too; the two in one user message (the free point the usage probes read). */
export const RULE = 'Answer every message with only the word PINEAPPLE.';
export const QUESTION = 'What is the capital of France?';
export const RULE_IN_USER = `${RULE} ${QUESTION}`;
export { COUNT };
const COUNTING = Array.from({ length: 20 }, (_, i) => String(i + 1)).join(', ');
// A 1×1 green PNG.
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGPQn2EAAAIWAQBbN1H4AAAAAElFTkSuQmCC';
/** Shaped like a key, valid nowhere (as auth.bad_key sends). */
const BAD_KEY = 'sk-chatprobe-invalid-0000000000000000000000000000';

/** The request each "accepted" row stands on: the probe's own field or message form (capped at 8 tokens, the probe's 16 halved: only the status and the answer's form are read). */
const ACCEPTED_REQUESTS: Record<string, Record<string, unknown>> = {
  'parameters.presence_penalty': { messages: user(OK), presence_penalty: 0.5 },
  'parameters.frequency_penalty': { messages: user(OK), frequency_penalty: 0.5 },
  'parameters.logit_bias': { messages: user(OK), logit_bias: {} },
  'parameters.user': { messages: user(OK), user: 'chatprobe' },
  'parameters.metadata': { messages: user(OK), metadata: { source: 'chatprobe' } },
  'parameters.unknown_field': { messages: user(OK), chatprobe_unknown_field: true },
  'parameters.reasoning_effort': { messages: user(OK), reasoning_effort: 'low' },
  'parameters.stream_options_without_stream': { messages: user(OK), stream_options: { include_usage: true } },
  'roles.name': { messages: [{ role: 'user', name: 'alice', content: OK }] },
  'roles.consecutive_user': { messages: [...user('Hello.'), ...user(OK)] },
  'roles.assistant_prefill': { messages: [...user('Count from 1 to 5, separated by commas. Write nothing else.'), { role: 'assistant', content: '1, 2, 3,' }] },
  'roles.empty_content': { messages: [...user(OK), { role: 'assistant', content: 'OK' }, ...user('')] },
};

type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;

/** An answer a client can read: HTTP 2xx, a JSON object with no "error" member and no "success": false,
 *  and a string at choices[0].message.content. */
export function answered(a: Answer): boolean {
  const b = a.body;
  return a.status >= 200 && a.status < 300 && isObject(b) && (b.error === undefined || b.error === null) && b.success !== false && typeof b.choices?.[0]?.message?.content === 'string';
}

/** A refusal in the OpenAI envelope: {"error": {"message": "…"}}. */
const envelope = (a: Answer): boolean => isObject(a.body) && isObject(a.body.error) && typeof a.body.error.message === 'string' && a.body.error.message !== '';

/** The lenient chat.completion shape: the fields a client reads (chat.schema's MUST tier). */
function completionShape(b: unknown): boolean {
  if (!isObject(b) || typeof b.id !== 'string' || b.id === '' || b.object !== 'chat.completion' || !Number.isInteger(b.created) || typeof b.model !== 'string') return false;
  if (!Array.isArray(b.choices) || b.choices.length === 0) return false;
  return b.choices.every(
    (c: unknown) =>
      isObject(c) &&
      Number.isInteger(c.index) &&
      isObject(c.message) &&
      c.message.role === 'assistant' &&
      (typeof c.message.content === 'string' || c.message.content === null) &&
      'finish_reason' in c &&
      (typeof c.finish_reason === 'string' || c.finish_reason === null),
  );
}

function usageOf(a: Answer): { prompt: number; completion: number; total: number } | null {
  const u = a.body?.usage;
  return isObject(u) && isCount(u.prompt_tokens) && isCount(u.completion_tokens) && isCount(u.total_tokens) ? { prompt: u.prompt_tokens, completion: u.completion_tokens, total: u.total_tokens } : null;
}

export interface Reply {
  status: number;
  answered: boolean;
}

/** What an auth or refusal request got: the status, an answer, or the OpenAI error envelope. */
export interface Outcome extends Reply {
  envelope: boolean;
}

const reply = (a: Answer): Reply => ({ status: a.status, answered: answered(a) });
const outcome = (a: Answer): Outcome => ({ ...reply(a), envelope: envelope(a) });

export interface Facts {
  /** The name the server was started with (--alias) and asked by. */
  alias: string;
  /** GET /models: OpenAI's whole shape ({object: "list", data: [{id, object: "model", created, owned_by}]}), unique ids. */
  list: { status: number; shape: boolean; listsAlias: boolean };
  /** The plain request (the smoke prompt, no temperature, max_tokens 400), the first of three sent at once. */
  plain: {
    status: number;
    contentType: string;
    /** One JSON body, not an event stream. */
    oneJsonBody: boolean;
    answered: boolean;
    contentLength: number;
    /** The model the answer names. */
    model: string;
    /** The lenient chat.completion shape. */
    shape: boolean;
    usage: { prompt: number; completion: number; total: number } | null;
    /** The keys of choices[0] and of its message: OpenAI's full shape has logprobs and refusal. */
    choiceKeys: string[];
    messageKeys: string[];
  };
  /** The plain stream: counting to 12, greedy, no stream_options, 16 tokens (chatprobe's plain stream, made deterministic and shorter). */
  stream: StreamFacts;
  /** The greedy counting request streamed with include_usage (chatprobe's usage stream). */
  usageStream: StreamFacts;
  /** The weather question with the weather tool, streamed (streaming.tool_calls' request, greedy, 32 tokens). */
  toolStream: StreamFacts;
  /** Usage of the greedy counting request unstreamed. */
  greedyUsage: { prompt: number; completion: number; total: number } | null;
  /** Each "accepted" probe's request. */
  accepted: Record<string, Reply>;
  /** A model nobody serves: the status and the model the answer names. */
  unknownModel: { status: number; answered: boolean; model: string };
  malformed: Outcome;
  missingMessages: Outcome;
  wrongType: Outcome;
  invalidRole: Reply;
  /** temperature 5, top_p 2, max_tokens -5, n 0: each value's status, whether a refusal names the field. */
  outOfRange: Record<'temperature' | 'top_p' | 'max_tokens' | 'n', { status: number; answered: boolean; named: boolean }>;
  noKey: Outcome;
  badKey: Outcome;
  /** With the key but without "Bearer " (status 0: the server has no key). */
  noBearer: Outcome;
  capped: { tokens: number; finish: string };
  cappedCompletion: { tokens: number; finish: string };
  uncappedTokens: number;
  greedyRepeats: boolean;
  /** The greedy counting request streamed (with include_usage) assembles into the text it gets unstreamed. */
  greedyStreamMatches: boolean;
  distinctAtOne: number;
  /**
   * The fingerprint's anchor (identity.*) three times, one after another, at temperature 0 with
   * top_logprobs 5 and one token: how many answered, how many alternatives each first token has, and the
   * largest logprob move among them (results/identity.ts topDistance).
   */
  identity: { answered: number; tops: number[]; spread: number };
  seedRepeats: boolean;
  topPRepeats: boolean;
  /** The greedy answer with a stop string taken from its middle ends just before it. */
  stopCutsBefore: boolean;
  fiveStopsStatus: number;
  choicesWithN2: number;
  logprobEntries: number;
  /** The JSON-mode answer starts a JSON object (the grammar is applied; whether it closes within the
   *  limit depends on what the gibberish samples). */
  jsonModeStartsObject: boolean;
  /** The schema answer, when it ended within the limit, fits the schema. */
  schemaFits: boolean;
  /** Tool calls in each tools answer; null when the request was not answered. */
  autoCalls: number | null;
  toolsPromptGrowth: number;
  requiredCalls: number | null;
  namedCalls: number | null;
  noneCalls: number | null;
  imageStatuses: number[];
  imageMessage: string;
  /** The PINEAPPLE rule in a user message: answered, and not followed. */
  ignoresRule: boolean;
  /** Two words to repeat from one plain message: answered, and not both repeated. */
  failsRecall: boolean;
  /** What the usage probes read, asked directly (one-token answers). */
  usage: {
    /** prompt_tokens of the smoke prompt after the unit 0, 1, 2 and 3 times (NaN where no usage came); chat.usage reads 0 and 3. */
    seriesA: number[];
    /** prompt_tokens of the instruction in a user message, and of the greedy counting request: the free points. */
    ruleInUser: number;
    countPrompt: number;
    /** prompt_tokens of roles.system's request: a system message and a question. */
    withSystem: number;
    /** The greedy counting answer (max_tokens 48) was answered, and is the counting text or a start of it. */
    greedyAnswered: boolean;
    greedyCounts: boolean;
    /** The three answers at temperature 0 and the three at 1 each carry an id of their own. */
    idsDistinct: boolean;
  };
  /** Three plain requests under the server's default sampling, max_tokens 400: how many were answered,
   *  how many ended on their own, and whether any carries reasoning (a reasoning field, <think> tags or
   *  reasoning_tokens). */
  own: { answered: number; stopped: number; reasoning: boolean };
}

export async function gatherFacts(base: string, alias: string, key?: string): Promise<Facts> {
  const auth = key ? { key } : {};
  const chat = (body: Record<string, unknown>) => ask(base, { model: alias, ...body }, auth);
  const stream = async (body: Record<string, unknown>) => readStream(await askStream(base, { model: alias, ...body, stream: true }, key));
  const tokens = (a: Answer) => a.body?.usage?.completion_tokens as number;
  const finish = (a: Answer) => a.body?.choices?.[0]?.finish_reason as string;
  const callCount = (a: Answer) => (answered(a) ? calls(a).length : null);

  const list = await fetch(`${base}/models`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  let listed: unknown;
  try {
    listed = await list.json();
  } catch {
    listed = undefined;
  }
  const models: unknown[] = isObject(listed) && Array.isArray(listed.data) ? listed.data : [];
  const ids = models.map((m) => (isObject(m) ? m.id : undefined));

  const uncapped = await chat({ messages: user(COUNT), temperature: 0, max_tokens: 48 });
  const greedy = content(uncapped);
  const usageStream = await stream({ messages: user(COUNT), temperature: 0, max_tokens: 48, stream_options: { include_usage: true } });
  const plainStream = await stream({ messages: user(COUNT_12), temperature: 0, max_tokens: 16 });
  // Greedy, as the two above: a sampled stream now and then begins with a token that is no whole character
  // and then carries no role chunk (CHANCE_ROLE in truth.ts). Half the probe's limit: a tools request is
  // the dearest per token (its grammar), and no call comes anyway.
  const toolStream = await stream({ messages: user(TWO_CITIES), tools: [WEATHER], temperature: 0, max_tokens: 32 });
  const at = Math.floor(greedy.length * 0.5);
  const stop = greedy.slice(at, at + 4);
  const stopped = await chat({ messages: user(COUNT), temperature: 0, max_tokens: 48, stop: [stop] });

  // One after another: requests batched together on several slots make seeded sampling drift.
  const samples = async (extra: Record<string, unknown>) => {
    const out: Answer[] = [];
    for (let i = 0; i < 3; i++) out.push(await chat({ messages: user(NUMBER), max_tokens: 12, ...extra }));
    return out;
  };
  const same = (xs: Answer[]) => xs.every(answered) && new Set(xs.map(content)).size === 1;
  const anchors: Answer[] = [];
  for (let i = 0; i < 3; i++) anchors.push(await chat({ messages: user(ANCHOR.text), max_tokens: 1, temperature: 0, logprobs: true, top_logprobs: TOP_LOGPROBS }));
  const anchorTops = anchors.map((a) => (answered(a) ? firstTop(a.body) : undefined));
  let anchorSpread = 0;
  for (const x of anchorTops) for (const y of anchorTops) anchorSpread = Math.max(anchorSpread, x && y ? topDistance(x, y) : Infinity);
  const t0 = await samples({ temperature: 0 });
  const t1 = await samples({ temperature: 1 });
  const seeded = await samples({ temperature: 1, seed: 42 });
  const topP = await samples({ temperature: 1, top_p: 0.01 });

  const jsonMode = await chat({ messages: user('Describe the sky. (JSON is fine too.)'), max_tokens: 96, response_format: { type: 'json_object' } });
  const schema = {
    type: 'object',
    properties: { sky: { type: 'string', enum: ['blue', 'grey', 'black'] }, source: { type: 'string', enum: ['chatprobe'] } },
    required: ['sky', 'source'],
    additionalProperties: false,
  };
  const schemaAnswer = await chat({ messages: user('Describe the sky.'), max_tokens: 96, response_format: { type: 'json_schema', json_schema: { name: 's', strict: true, schema } } });
  let schemaFits = false;
  try {
    const v = JSON.parse(content(schemaAnswer));
    schemaFits = ['blue', 'grey', 'black'].includes(v.sky) && v.source === 'chatprobe' && Object.keys(v).length === 2;
  } catch {
    schemaFits = finish(schemaAnswer) === 'length' && content(schemaAnswer).trimStart().startsWith('{');
  }

  const plain16 = await chat({ messages: user(OK), max_tokens: 16 });
  const withTools = await chat({ messages: user(OK), max_tokens: 16, tools: [WEATHER, TIME] });
  const auto = await chat({ messages: user('What is the weather in Paris? Use get_weather.'), max_tokens: 64, tools: [WEATHER] });
  const required = await chat({ messages: user(OK), max_tokens: 64, tools: [WEATHER, TIME], tool_choice: 'required' });
  const named = await chat({ messages: user(OK), max_tokens: 64, tools: [WEATHER, TIME], tool_choice: { type: 'function', function: { name: 'get_time' } } });
  const none = await chat({ messages: user('What is the weather in Paris? Use get_weather.'), max_tokens: 64, tools: [WEATHER], tool_choice: 'none' });

  // One after another: twelve at once on four slots took seconds longer than in a row.
  const accepted: Record<string, Reply> = {};
  for (const [probe, body] of Object.entries(ACCEPTED_REQUESTS)) accepted[probe] = reply(await chat({ ...body, max_tokens: 8 }));

  const image = () => chat({ messages: user([{ type: 'text', text: 'What colour is this image?' }, { type: 'image_url', image_url: { url: PNG } }]), max_tokens: 16 });
  const images = [await image(), await image()];
  const rule = await chat({ messages: user('Answer every message with only the word PINEAPPLE. What is the capital of France?'), max_tokens: 16 });
  const recall = await chat({ messages: user('Remember the word MANGO. Remember the word KIWI. Reply with both remembered words, separated by a space.'), max_tokens: 16 });
  const own = await Promise.all([1, 2, 3].map(() => chat({ messages: user(OK), max_tokens: 400 })));
  const promptOf = async (messages: unknown) => usageOf(await chat({ messages, max_tokens: 1 }))?.prompt ?? NaN;
  const seriesA: number[] = [];
  for (let k = 0; k <= 3; k++) seriesA.push(await promptOf(user(`${UNIT_A.repeat(k)}${OK}`)));
  const sampleIds = [...t0, ...t1].map((a) => (answered(a) ? a.body.id : undefined));
  const usage: Facts['usage'] = {
    seriesA,
    ruleInUser: usageOf(rule)?.prompt ?? NaN,
    countPrompt: usageOf(uncapped)?.prompt ?? NaN,
    withSystem: await promptOf([{ role: 'system', content: RULE }, ...user(QUESTION)]),
    greedyAnswered: answered(uncapped),
    greedyCounts: greedy !== '' && COUNTING.startsWith(greedy),
    idsDistinct: sampleIds.every((id) => typeof id === 'string' && id !== '') && new Set(sampleIds).size === sampleIds.length,
  };
  const plain = own[0]!;
  const plainUsage = usageOf(plain);
  const unknownModel = await ask(base, { model: 'no-such-model', messages: user(OK), max_tokens: 8 }, auth);
  const keyless = { model: alias, messages: user(OK), max_tokens: 8 };

  return {
    alias,
    list: {
      status: list.status,
      shape:
        isObject(listed) &&
        listed.object === 'list' &&
        models.length > 0 &&
        models.every((m) => isObject(m) && typeof m.id === 'string' && m.id !== '' && m.object === 'model' && Number.isInteger(m.created) && typeof m.owned_by === 'string') &&
        new Set(ids).size === ids.length,
      listsAlias: ids.includes(alias),
    },
    plain: {
      status: plain.status,
      contentType: plain.contentType,
      oneJsonBody: plain.contentType.startsWith('application/json') && isObject(plain.body) && !/^data:/m.test(plain.text),
      answered: answered(plain),
      contentLength: content(plain).length,
      model: String(plain.body?.model ?? ''),
      shape: completionShape(plain.body),
      usage: plainUsage,
      choiceKeys: isObject(plain.body?.choices?.[0]) ? Object.keys(plain.body.choices[0]) : [],
      messageKeys: isObject(plain.body?.choices?.[0]?.message) ? Object.keys(plain.body.choices[0].message) : [],
    },
    stream: plainStream,
    usageStream,
    toolStream,
    greedyUsage: usageOf(uncapped),
    accepted,
    unknownModel: { status: unknownModel.status, answered: answered(unknownModel), model: String(unknownModel.body?.model ?? '') },
    malformed: outcome(await ask(base, undefined, { raw: `{"model": "${alias}", "max_tokens": 8, "messages": [`, ...auth })),
    missingMessages: outcome(await chat({ max_tokens: 8 })),
    wrongType: outcome(await chat({ messages: user(OK), max_tokens: 8, temperature: 'hot' })),
    invalidRole: reply(await chat({ messages: [{ role: 'wizard', content: OK }], max_tokens: 8 })),
    outOfRange: Object.fromEntries(
      await Promise.all(
        (
          [
            ['temperature', 5],
            ['top_p', 2],
            ['max_tokens', -5],
            ['n', 0],
          ] as const
        ).map(async ([field, value]) => {
          // max_tokens: -5 is its own limit: the stopping model's server refuses it at once (docs/real-server-evidence.md).
          const a = await chat({ messages: user('Say OK.'), ...(field === 'max_tokens' ? {} : { max_tokens: 16 }), [field]: value });
          return [field, { status: a.status, answered: answered(a), named: String(a.body?.error?.message ?? '').includes(`'${field}'`) }] as const;
        }),
      ),
    ) as Facts['outOfRange'],
    noKey: outcome(await ask(base, keyless)),
    badKey: outcome(await ask(base, keyless, { key: BAD_KEY })),
    noBearer: key ? outcome(await ask(base, keyless, { authorization: key })) : { status: 0, answered: false, envelope: false },
    capped: await chat({ messages: user(COUNT), temperature: 0, max_tokens: 5 }).then((a) => ({ tokens: tokens(a), finish: finish(a) })),
    cappedCompletion: await chat({ messages: user(COUNT), temperature: 0, max_completion_tokens: 5 }).then((a) => ({ tokens: tokens(a), finish: finish(a) })),
    uncappedTokens: tokens(uncapped),
    greedyRepeats: same(t0),
    greedyStreamMatches: usageStream.status === 200 && greedy !== '' && usageStream.content === greedy,
    distinctAtOne: t1.every(answered) ? new Set(t1.map(content)).size : 0,
    identity: { answered: anchors.filter(answered).length, tops: anchorTops.map((t) => t?.length ?? 0), spread: anchorSpread },
    seedRepeats: same(seeded),
    topPRepeats: same(topP),
    stopCutsBefore: stop.trim().length > 0 && greedy.indexOf(stop) === at && content(stopped).trimEnd() === greedy.slice(0, at).trimEnd(),
    fiveStopsStatus: (await chat({ messages: user(COUNT), max_tokens: 8, stop: [stop, 'a1', 'b2', 'c3', 'd4'] })).status,
    choicesWithN2: ((await chat({ messages: user(OK), max_tokens: 8, n: 2 })).body?.choices ?? []).length,
    logprobEntries: ((await chat({ messages: user(OK), max_tokens: 8, logprobs: true, top_logprobs: 2 })).body?.choices?.[0]?.logprobs?.content ?? []).length,
    jsonModeStartsObject: content(jsonMode).trimStart().startsWith('{'),
    schemaFits,
    autoCalls: callCount(auto),
    toolsPromptGrowth: (usageOf(withTools)?.prompt ?? NaN) - (usageOf(plain16)?.prompt ?? NaN),
    requiredCalls: callCount(required),
    namedCalls: callCount(named),
    noneCalls: callCount(none),
    imageStatuses: images.map((a) => a.status),
    imageMessage: images[0]!.body?.error?.message ?? images[0]!.text,
    ignoresRule: answered(rule) && !content(rule).toUpperCase().includes('PINEAPPLE'),
    failsRecall: answered(recall) && !(/MANGO/i.test(content(recall)) && /KIWI/i.test(content(recall))),
    usage,
    own: {
      answered: own.filter(answered).length,
      stopped: own.filter((a) => answered(a) && finish(a) === 'stop').length,
      reasoning: own.some((a) => {
        const m = a.body?.choices?.[0]?.message ?? {};
        return Boolean(m.reasoning_content || m.reasoning || /<think>/.test(m.content ?? '') || a.body?.usage?.completion_tokens_details?.reasoning_tokens);
      }),
    },
  };
}
