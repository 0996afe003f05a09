/**
 * Prompts the probes send. Each makes the behaviour under test visible in a word, a number or a shape,
 * never in answer quality, and never hints at what the feature under test enforces (verdict contract,
 * rule 1). The reference server's pseudo-model follows these same plain instructions.
 */

/**
 * Output limits, one per kind of answer: enough for what the prompt asks, small enough that a model that
 * never stops costs little (verdict contract, rule 7: every request carries one).
 */
export const LIMITS = {
  /**
   * A request that must be refused (errors.*): one token, for no text of an answer is read, only its
   * status, shape, choices and usage (a server that takes the request answers it all the same).
   */
  refused: 1,
  /** A word or two ("OK", "PINEAPPLE", a code word). */
  word: 16,
  /** Counting to 20: 20 numbers and 19 commas, 58 to 69 tokens in the tokenizers of the usage table, so the answer is cut here (the length probes judge it cut). */
  count: 48,
  /** One sample of the open prompt. */
  sample: 12,
  /** A small JSON object; room for the whitespace a grammar lets a weak model write. */
  json: 96,
  /** One or two tool calls with short arguments. */
  tools: 64,
} as const;

/** A long, predictable answer: every number is at least one token, so the count bounds the tokens. */
export function countingPrompt(to: number): string {
  return `Count from 1 to ${to}, separated by commas. Write nothing else.`;
}

/** The counting answer the length and stop probes read: long enough for a cut, short enough to be cheap. */
export const COUNT_TO = 20;

/** The count the billing probes' plain call asks for: more than its limit lets through, so the limit ends it. */
export const BILLING_COUNT_TO = 50;

/**
 * An open prompt with many right answers, so sampling shows as variety. A number rather than a noun:
 * models asked for "a random noun" at temperature 1 pick their favourite most of the time, and a peaked
 * distribution needs many samples before agreement means anything (parameters.temperature).
 */
export const RANDOM_NUMBER = 'Write a random six-digit number. Reply with the number only.';

/**
 * Invites prose about the sky. It names JSON only because OpenAI refuses json_object when no message
 * mentions it; it names none of SKY_SCHEMA's keys, so a JSON-mode answer cannot fit the schema by reading
 * the prompt. One prompt for both JSON probes and their baseline.
 */
export const PROSE_PROMPT = 'In one short sentence, tell me what colour the sky is on a clear day and how many moons the Earth has. (JSON is fine too.)';

/**
 * The schema of parameters.response_format.json_schema: a key (`source`) and an enum value ("chatprobe")
 * that no prompt mentions, so only the schema itself can produce them. Enums and a bounded integer keep
 * a grammar-constrained answer short.
 */
export const SKY_SCHEMA = {
  type: 'object',
  properties: {
    sky: { type: 'string', enum: ['blue', 'grey', 'black'] },
    moons: { type: 'integer', minimum: 0, maximum: 99 },
    source: { type: 'string', enum: ['chatprobe'] },
  },
  required: ['sky', 'moons', 'source'],
  additionalProperties: false,
} as const;

export const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
} as const;

export const TIME_TOOL = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'Current time in a time zone.',
    parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'], additionalProperties: false },
  },
} as const;

export const TOOL_NAMES = [WEATHER_TOOL.function.name, TIME_TOOL.function.name] as const;

/** Needs the weather tool twice: parameters.tools reads one valid call, parallel_tool_calls the second. */
export const TWO_CITIES_PROMPT = 'What is the weather in Paris and in Tokyo right now? Call get_weather once for each city.';

export const user = (content: unknown) => ({ role: 'user', content });

/** The integers in a text, in order. */
export function numbersIn(text: string): number[] {
  return (text.match(/\d+/g) ?? []).map(Number);
}
