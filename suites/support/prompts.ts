/**
 * Prompts the probes send. Each makes the behaviour under test visible in a word, a number or a shape,
 * never in answer quality. The reference server's pseudo-model follows these same plain instructions.
 */

/** A long, predictable answer: every number is at least one token, so the count bounds the tokens. */
export function countingPrompt(to: number): string {
  return `Count from 1 to ${to}, separated by commas. Write nothing else.`;
}

/** An open prompt: many right answers, so sampling shows as variety. */
export const RANDOM_WORD = 'Write one random English noun. Reply with that word only.';

/** Invites prose about exactly the facts SKY_SCHEMA asks for; names JSON only because OpenAI refuses
 *  json_object when no message mentions it. One prompt for both JSON probes, so one baseline serves both. */
export const PROSE_PROMPT =
  'In one short sentence, tell me what colour the sky is on a clear day and how many moons the Earth has. (If you reply in JSON, use the keys "colour" and "moons".)';

export const SKY_SCHEMA = {
  type: 'object',
  properties: { colour: { type: 'string' }, moons: { type: 'integer' } },
  required: ['colour', 'moons'],
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

export const WEATHER_PROMPT = 'What is the weather in Paris right now? Use the get_weather tool.';
export const TWO_CITIES_PROMPT = 'What is the weather in Paris and in Tokyo right now? Call get_weather once for each city.';

export const user = (content: unknown) => ({ role: 'user', content });

/** The integers in a text, in order. */
export function numbersIn(text: string): number[] {
  return (text.match(/\d+/g) ?? []).map(Number);
}
