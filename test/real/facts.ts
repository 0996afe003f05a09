/**
 * The direct evidence of the truth table: what the real server does, asked as plainly as possible with
 * fetch, without any of chatprobe's code. docs/real-server-evidence.md records the same requests.
 */
import { ask, calls, content, streamedContent, type Answer } from './llama.js';

const COUNT = 'Count from 1 to 20, separated by commas. Write nothing else.';
const NUMBER = 'Write a random six-digit number. Reply with the number only.';
const OK = 'Reply with the single word OK.';
const user = (c: unknown) => [{ role: 'user', content: c }];
const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const TIME = {
  type: 'function',
  function: { name: 'get_time', description: 'Current time in a time zone.', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } },
};
// A 1×1 green PNG.
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGPQn2EAAAIWAQBbN1H4AAAAAElFTkSuQmCC';

export interface Facts {
  listsAlias: boolean;
  unknownModelStatus: number;
  malformedStatus: number;
  missingMessagesStatus: number;
  wrongTypeStatus: number;
  invalidRoleStatus: number;
  /** temperature 5, top_p 2, max_tokens -5, n 0: each value's status, and whether a refusal names the field. */
  outOfRange: Record<'temperature' | 'top_p' | 'max_tokens' | 'n', { status: number; named: boolean }>;
  noKeyStatus: number;
  /** With the key but without "Bearer ". */
  noBearerStatus: number;
  capped: { tokens: number; finish: string };
  cappedCompletion: { tokens: number; finish: string };
  uncappedTokens: number;
  greedyRepeats: boolean;
  /** The greedy counting request streamed (with include_usage) assembles into the text it gets unstreamed. */
  greedyStreamMatches: boolean;
  distinctAtOne: number;
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
  autoCalls: number;
  toolsPromptGrowth: number;
  requiredCalls: number;
  namedCalls: number;
  noneCalls: number;
  imageStatuses: number[];
  imageMessage: string;
  followsRuleInUser: boolean;
  recallsPlainWords: boolean;
  /** Under the server's default sampling, one of three answers ended on its own within 400 tokens. */
  endsOnItsOwn: boolean;
  /** Any of those answers carries reasoning: a reasoning field, <think> tags, or reasoning_tokens. */
  showsReasoning: boolean;
}

export async function gatherFacts(base: string, alias: string, key?: string): Promise<Facts> {
  const chat = (body: Record<string, unknown>) => ask(base, { model: alias, ...body }, key ? { key } : {});
  const tokens = (a: Answer) => a.body?.usage?.completion_tokens as number;
  const finish = (a: Answer) => a.body?.choices?.[0]?.finish_reason as string;
  const list = await fetch(`${base}/models`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const listed = (await list.json()) as { data?: { id: string }[] };

  const uncapped = await chat({ messages: user(COUNT), temperature: 0, max_tokens: 48 });
  const greedy = content(uncapped);
  const greedyStream = await chat({ messages: user(COUNT), temperature: 0, max_tokens: 48, stream: true, stream_options: { include_usage: true } });
  const at = Math.floor(greedy.length * 0.5);
  const stop = greedy.slice(at, at + 4);
  const stopped = await chat({ messages: user(COUNT), temperature: 0, max_tokens: 48, stop: [stop] });

  // One after another: requests batched together on several slots make seeded sampling drift.
  const samples = async (extra: Record<string, unknown>) => {
    const out: Answer[] = [];
    for (let i = 0; i < 3; i++) out.push(await chat({ messages: user(NUMBER), max_tokens: 12, ...extra }));
    return out;
  };
  const same = (xs: Answer[]) => new Set(xs.map(content)).size === 1;
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

  const plain = await chat({ messages: user(OK), max_tokens: 16 });
  const withTools = await chat({ messages: user(OK), max_tokens: 16, tools: [WEATHER, TIME] });
  const auto = await chat({ messages: user('What is the weather in Paris? Use get_weather.'), max_tokens: 64, tools: [WEATHER] });
  const required = await chat({ messages: user(OK), max_tokens: 64, tools: [WEATHER, TIME], tool_choice: 'required' });
  const named = await chat({ messages: user(OK), max_tokens: 64, tools: [WEATHER, TIME], tool_choice: { type: 'function', function: { name: 'get_time' } } });
  const none = await chat({ messages: user('What is the weather in Paris? Use get_weather.'), max_tokens: 64, tools: [WEATHER], tool_choice: 'none' });

  const image = () => chat({ messages: user([{ type: 'text', text: 'What colour is this image?' }, { type: 'image_url', image_url: { url: PNG } }]), max_tokens: 16 });
  const images = [await image(), await image()];
  const rule = await chat({ messages: user('Answer every message with only the word PINEAPPLE. What is the capital of France?'), max_tokens: 16 });
  const recall = await chat({ messages: user('Remember the word MANGO. Remember the word KIWI. Reply with both remembered words, separated by a space.'), max_tokens: 16 });
  const own = await Promise.all([1, 2, 3].map(() => chat({ messages: user(OK), max_tokens: 400 })));

  return {
    listsAlias: (listed.data ?? []).some((m) => m.id === alias),
    unknownModelStatus: (await ask(base, { model: 'no-such-model', messages: user(OK), max_tokens: 8 }, key ? { key } : {})).status,
    malformedStatus: (await ask(base, undefined, { raw: `{"model": "${alias}", "max_tokens": 8, "messages": [`, ...(key ? { key } : {}) })).status,
    missingMessagesStatus: (await chat({ max_tokens: 8 })).status,
    wrongTypeStatus: (await chat({ messages: user(OK), max_tokens: 8, temperature: 'hot' })).status,
    invalidRoleStatus: (await chat({ messages: [{ role: 'wizard', content: OK }], max_tokens: 8 })).status,
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
          return [field, { status: a.status, named: String(a.body?.error?.message ?? '').includes(`'${field}'`) }] as const;
        }),
      ),
    ) as Facts['outOfRange'],
    noKeyStatus: (await ask(base, { model: alias, messages: user(OK), max_tokens: 8 })).status,
    noBearerStatus: key
      ? (await fetch(`${base}/chat/completions`, { method: 'POST', headers: { authorization: key, 'content-type': 'application/json' }, body: JSON.stringify({ model: alias, messages: user(OK), max_tokens: 8 }) })).status
      : 0,
    capped: await chat({ messages: user(COUNT), temperature: 0, max_tokens: 5 }).then((a) => ({ tokens: tokens(a), finish: finish(a) })),
    cappedCompletion: await chat({ messages: user(COUNT), temperature: 0, max_completion_tokens: 5 }).then((a) => ({ tokens: tokens(a), finish: finish(a) })),
    uncappedTokens: tokens(uncapped),
    greedyRepeats: same(t0),
    greedyStreamMatches: greedyStream.status === 200 && greedy !== '' && streamedContent(greedyStream) === greedy,
    distinctAtOne: new Set(t1.map(content)).size,
    seedRepeats: same(seeded),
    topPRepeats: same(topP),
    stopCutsBefore: stop.trim().length > 0 && greedy.indexOf(stop) === at && content(stopped).trimEnd() === greedy.slice(0, at).trimEnd(),
    fiveStopsStatus: (await chat({ messages: user(COUNT), max_tokens: 8, stop: [stop, 'a1', 'b2', 'c3', 'd4'] })).status,
    choicesWithN2: ((await chat({ messages: user(OK), max_tokens: 8, n: 2 })).body?.choices ?? []).length,
    logprobEntries: ((await chat({ messages: user(OK), max_tokens: 8, logprobs: true, top_logprobs: 2 })).body?.choices?.[0]?.logprobs?.content ?? []).length,
    jsonModeStartsObject: content(jsonMode).trimStart().startsWith('{'),
    schemaFits,
    autoCalls: calls(auto).length,
    toolsPromptGrowth: withTools.body.usage.prompt_tokens - plain.body.usage.prompt_tokens,
    requiredCalls: calls(required).length,
    namedCalls: calls(named).length,
    noneCalls: calls(none).length,
    imageStatuses: images.map((a) => a.status),
    imageMessage: images[0]!.body?.error?.message ?? images[0]!.text,
    followsRuleInUser: content(rule).toUpperCase().includes('PINEAPPLE'),
    recallsPlainWords: /MANGO/i.test(content(recall)) && /KIWI/i.test(content(recall)),
    endsOnItsOwn: own.some((a) => finish(a) === 'stop'),
    showsReasoning: own.some((a) => {
      const m = a.body?.choices?.[0]?.message ?? {};
      return Boolean(m.reasoning_content || m.reasoning || /<think>/.test(m.content ?? '') || a.body?.usage?.completion_tokens_details?.reasoning_tokens);
    }),
  };
}
