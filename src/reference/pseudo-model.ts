import { TOKENIZER_TABLE } from '../../suites/support/tokenizer-table.js';
import { COUNTED_TEXTS } from '../../suites/support/usage-texts.js';

/**
 * The reference server's pseudo-model. It follows the plain instructions the probes use, so a feature it
 * honours has a visible effect; it never pretends to be clever. Deterministic at temperature 0 (unless a
 * profile says otherwise), seeded randomness above it.
 */

/** Tokens carry their leading space, like BPE tokens, so joining them gives the text back. */
export function tokenize(text: string): string[] {
  return text.match(/\s*[A-Za-z0-9]+|\s*[^A-Za-z0-9\s]|\s+$/g) ?? [];
}

/** The tokenizer families of the usage probes' table, for a model that counts like one (Quirks.tokenizer). */
export type TokenizerFamily = keyof typeof TOKENIZER_TABLE;
export const TOKENIZER_FAMILIES = Object.keys(TOKENIZER_TABLE) as [TokenizerFamily, ...TokenizerFamily[]];

const familyPatterns = new Map<number, RegExp>();

/**
 * Tokens as a family cuts text, as far as the probes look: numbers in the family's digit groups (threes for
 * the GPT and Llama 3 families, ones for Qwen, Gemma 3 and Tekken), a space before a number a token of its
 * own, words with their leading space. Joining them gives the text back. Without a family: tokenize().
 */
export function tokenizeAs(text: string, family: TokenizerFamily | undefined): string[] {
  if (!family) return tokenize(text);
  const group = TOKENIZER_TABLE[family].digitGroup;
  let re = familyPatterns.get(group);
  if (!re) familyPatterns.set(group, (re = new RegExp(`\\d{1,${group}}|\\s*[A-Za-z]+|\\s*[^A-Za-z0-9\\s]|\\s+(?=\\d)|\\s+$`, 'g')));
  return text.match(re) ?? [];
}

/**
 * prompt_tokens as a model counting like `family` counts them: each of the usage probes' texts at the
 * table's count (so the series' slope and free points are the family's exactly), the rest cut by tokenizeAs; one user
 * message, or a system message and one user message, under the family's first known template, any other
 * conversation under the pseudo-model's (countPromptTokens).
 */
export function familyPromptTokens(messages: readonly { role?: unknown; content?: unknown }[], family: TokenizerFamily): number {
  const row = TOKENIZER_TABLE[family];
  const contentTokens = (text: string) => {
    let n = 0;
    let rest = text;
    for (const [name, known] of Object.entries(COUNTED_TEXTS) as [keyof typeof COUNTED_TEXTS, string][]) {
      const parts = rest.split(known);
      n += (parts.length - 1) * row.counts[name];
      rest = parts.join('');
    }
    return n + tokenizeAs(rest, family).length;
  };
  const text = messages.reduce((n, m) => n + contentTokens(messageText(m.content)), 0);
  const roles = messages.map((m) => m.role).join(',');
  const template = row.templates[0];
  if (roles === 'user') return template.user + text;
  if (roles === 'system,user') return template.system + text;
  return 3 + 4 * messages.length + text;
}

export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
      .join(' ');
  }
  return '';
}

/** Roughly what a chat template adds: a few tokens per message around its content. */
export function countPromptTokens(messages: readonly { content?: unknown }[]): number {
  let n = 3;
  for (const m of messages) n += 4 + tokenize(messageText(m.content)).length;
  return n;
}

/** mulberry32: small, seedable, good enough to make sampling visible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const NOUNS = [
  'apple', 'river', 'lantern', 'mountain', 'pencil', 'garden', 'violin', 'harbor', 'blanket', 'comet',
  'meadow', 'teapot', 'castle', 'feather', 'island', 'ladder', 'mirror', 'notebook', 'orchard', 'pillow',
  'rocket', 'saddle', 'thimble', 'umbrella', 'valley', 'window', 'anchor', 'bicycle', 'candle', 'dolphin',
  'engine', 'forest', 'glacier', 'hammer', 'jacket', 'kettle', 'lemon', 'magnet', 'needle', 'ocean',
];

export const CITIES = ['Paris', 'Tokyo', 'London', 'Berlin', 'Madrid', 'Rome'];

export interface Sampler {
  /** True when sampling collapses to the single most likely answer. */
  greedy: boolean;
  random: () => number;
  /** A peaked sampler: a draw below this gives the greedy answer. */
  favourite?: number | undefined;
  /** Recall tasks (code words, remembered words, tool results, colours) get a vague answer. */
  weakRecall?: boolean | undefined;
  /** The weights (Quirks.weights): an open prompt's greedy answer follows from them. */
  salt?: string | undefined;
}

/** The text the pseudo-model answers to a conversation: instructions in system or developer messages
 *  first, then tool results, then the last user message (continuing an assistant prefill). */
export function respondTo(messages: readonly { role?: unknown; content?: unknown }[], sampler: Sampler): string {
  const text = (m: { content?: unknown } | undefined) => messageText(m?.content);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  for (const m of [...messages.filter((x) => x.role === 'system' || x.role === 'developer'), ...(lastUser ? [lastUser] : [])]) {
    const only = /answer every message with only the word\s+"?([A-Za-z]+)/i.exec(text(m));
    if (only) return only[1]!;
  }
  const last = messages.at(-1);
  const prompt = text(lastUser);
  const recall = recallTask(messages, last, prompt);
  if (recall !== undefined) return sampler.weakRecall ? 'I am not sure.' : recall;
  const out = answer(prompt, sampler);
  // An assistant message last is a prefill: the answer continues it.
  const prefix = last?.role === 'assistant' ? text(last).trim() : '';
  return prefix && out.startsWith(prefix) ? out.slice(prefix.length) : out;
}

/** The answer to a task that needs something the conversation gave: a tool's result, a code word, words
 *  to remember, an image's colour; undefined for any other prompt. */
function recallTask(messages: readonly { role?: unknown; content?: unknown }[], last: { role?: unknown; content?: unknown } | undefined, prompt: string): string | undefined {
  const text = (m: { content?: unknown } | undefined) => messageText(m?.content);
  // A tool's JSON result, in the tool message or quoted by the user: its values, tersely.
  const result = last?.role === 'tool' ? text(last) : /tool returned\s+(\{[^}]*\})/i.exec(prompt)?.[1];
  if (result !== undefined) return `The tool says: ${valuesOf(result)}.`;
  if (/what code word did you give me/i.test(prompt)) {
    // The word as an earlier assistant turn gave it, or as the user quotes it back.
    for (const m of [...messages].reverse()) {
      const word = /code word is\s+([A-Z0-9-]+)/.exec(text(m));
      if (word && (m.role === 'assistant' || m === messages.at(-1))) return word[1]!;
    }
    return 'I have not given you a code word.';
  }
  if (/reply with both remembered words/i.test(prompt)) return [...prompt.matchAll(/remember the word (\w+)/gi)].map((w) => w[1]).join(' ');
  if (/what colou?r is this image/i.test(prompt)) {
    const colour = /\[image: (\w+)\]/.exec(prompt)?.[1] ?? /image[^.]* is solid (\w+)/i.exec(prompt)?.[1];
    return colour ? `${colour[0]!.toUpperCase()}${colour.slice(1)}.` : 'I do not see an image.';
  }
  return undefined;
}

function valuesOf(json: string): string {
  try {
    const v: unknown = JSON.parse(json);
    if (typeof v === 'object' && v !== null) return Object.values(v).join(', ');
  } catch {
    // not JSON: said as it is
  }
  return json;
}

/** The prompt an open answer is drawn from: with the weights' salt when the model has weights of its own. */
const salted = (prompt: string, sampler: Sampler): string => (sampler.salt === undefined ? prompt : `${sampler.salt}\u0000${prompt}`);

/** The text the pseudo-model answers to the last user message, before limits, stops and formats. */
export function answer(prompt: string, sampler: Sampler): string {
  const word = /reply with the single word\s+"?([A-Za-z0-9_-]+)"?/i.exec(prompt);
  if (word) return word[1]!;
  const count = /count from\s+(\d+)\s+to\s+(\d+)/i.exec(prompt);
  if (count) {
    const from = Number(count[1]);
    const to = Math.min(Number(count[2]), from + 500);
    const numbers: number[] = [];
    for (let i = from; i <= to; i++) numbers.push(i);
    return numbers.join(', ');
  }
  if (/random six-digit number/i.test(prompt)) {
    const r = sampler.greedy ? undefined : sampler.random();
    if (r === undefined || (sampler.favourite !== undefined && r < sampler.favourite)) return String(100000 + (hash(salted(prompt, sampler)) % 900000));
    return String(100000 + Math.floor(((r - (sampler.favourite ?? 0)) / (1 - (sampler.favourite ?? 0))) * 900000));
  }
  if (/random english noun/i.test(prompt)) {
    const i = sampler.greedy ? hash(salted(prompt, sampler)) % NOUNS.length : Math.floor(sampler.random() * NOUNS.length);
    return NOUNS[i]!;
  }
  if (/moons/i.test(prompt) && /sky/i.test(prompt)) return 'The sky is blue on a clear day, and the Earth has one moon.';
  if (/colour is the sky|what colour the sky/i.test(prompt)) return 'The sky is blue on a clear day.';
  if (/weather/i.test(prompt)) return 'I cannot look up the weather right now.';
  return 'This is the reference answer.';
}

type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[] };

/** An instance of a JSON Schema, using facts from the prompt where a property name asks for one. */
export function instanceOf(schema: Schema, key = '', prompt = ''): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = instanceOf(v, k, prompt);
      return out;
    }
    case 'array':
      return schema.items ? [instanceOf(schema.items, key, prompt)] : [];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      if (/colou?r/i.test(key)) return 'blue';
      if (/city/i.test(key)) return CITIES.find((c) => prompt.includes(c)) ?? 'Paris';
      if (/zone/i.test(key)) return 'UTC';
      return 'text';
  }
}
