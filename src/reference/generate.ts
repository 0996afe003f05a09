import type { Quirks } from './profile.js';
import { CITIES, hash, instanceOf, messageText, respondTo, seededRandom, tokenizeAs, type Sampler } from './pseudo-model.js';

type Json = Record<string, unknown>;

/**
 * Unseeded sampling without luck: per model and prompt, the fractional parts of k·φ for k = 1, 2, 3 ….
 * Any few draws close in sequence land far apart, so samples at temperature 1 always vary, and tests
 * never depend on chance.
 */
export class Draws {
  private readonly counts = new Map<string, number>();

  next(key: string): number {
    const k = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, k);
    return (k * 0.6180339887498949) % 1;
  }
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

export interface GeneratedChoice {
  tokens: string[];
  /** Null when the answer is tool calls only. */
  content: string | null;
  toolCalls: ToolCall[];
  finish: string;
  logprobs: TokenLogprob[] | undefined;
  reasoning: string | undefined;
  /** Tokens of reasoning spent before the answer (a reasoning model's), counted in the completion. */
  reasoningTokens: number;
}

/** How many tokens a reasoning model thinks for at an effort; the answer's room is what the limit leaves. */
function reasoningTokens(quirks: Quirks, effort: unknown): number {
  const r = quirks.reasoning;
  if (!r) return 0;
  if (r.effort === 'ignore') return r.tokens;
  return effort === 'low' ? Math.max(2, Math.floor(r.tokens / 2)) : effort === 'high' ? r.tokens * 4 : r.tokens;
}

/**
 * What the pseudo-model answers to a request, with each honoured parameter applied for real: sampling
 * (temperature, top_p, seed), n, stop, the length limits, logprobs, the JSON response formats and tools.
 * `honoured` holds the request keys the profile honours; the others are dropped before this point.
 */
export function generate(body: Json, honoured: ReadonlySet<string>, quirks: Quirks, draws: Draws = new Draws()): GeneratedChoice[] {
  const has = (key: string) => honoured.has(key) && body[key] !== undefined && body[key] !== null;
  const messages = body.messages as { role?: unknown; content?: unknown }[];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const prompt = messageText(lastUser?.content);
  // The server's default temperature is 1, as OpenAI's is.
  const temperature = has('temperature') ? Number(body.temperature) : 1;
  const topP = has('top_p') ? Number(body.top_p) : 1;
  const sampler: Sampler = {
    greedy: (temperature === 0 && !quirks.randomAtZero) || topP < 0.1,
    random: has('seed') ? seededRandom(Number(body.seed)) : () => draws.next(`${String(body.model)}\u0000${prompt}`),
    favourite: quirks.favourite,
    weakRecall: quirks.weakRecall,
    salt: quirks.weights,
  };
  const n = has('n') && Number.isInteger(body.n) ? Math.max(1, Math.min(Number(body.n), 8)) : 1;
  const choices: GeneratedChoice[] = [];
  for (let i = 0; i < n; i++) choices.push(oneChoice(body, has, prompt, sampler, quirks, i));
  return choices;
}

function oneChoice(
  body: Json,
  has: (key: string) => boolean,
  prompt: string,
  sampler: Sampler,
  quirks: Quirks,
  index: number,
): GeneratedChoice {
  const thinking = reasoningTokens(quirks, has('reasoning_effort') ? body.reasoning_effort : undefined);
  const thought = thinking > 0 ? 'step '.repeat(thinking).trim() : undefined;
  const reasoning = thought ?? (has('reasoning_effort') ? `Thinking with ${String(body.reasoning_effort)} effort.` : undefined);
  // Once a tool has answered, the model answers in words.
  const answered = (body.messages as { role?: unknown }[]).at(-1)?.role === 'tool';
  const toolCalls = has('tools') && !answered ? callTools(body, has, prompt, index, quirks) : [];
  if (toolCalls.length > 0 && !quirks.toolCallsAsText) return { tokens: [], content: null, toolCalls, finish: 'tool_calls', logprobs: undefined, reasoning, reasoningTokens: thinking };
  let text = quirks.fixedAnswer ?? respondTo(body.messages as { role?: unknown; content?: unknown }[], sampler);
  if (quirks.chattyWithoutCall && has('tool_choice') && body.tool_choice === 'none' && /weather/i.test(prompt)) {
    text = 'The weather in Paris and in Tokyo depends on the season: Paris is mild in spring and grey in winter, Tokyo is humid in summer and dry in winter, and both see rain in autumn. '.repeat(3);
  }
  // A server without its tool-call parser hands the model's call text through as content.
  if (toolCalls.length > 0) text = toolCalls.map((c) => `<tool_call>\n{"name": "${c.function.name}", "arguments": ${c.function.arguments}}\n</tool_call>`).join('\n');
  const format = has('response_format') ? (body.response_format as { type?: unknown; json_schema?: { schema?: unknown } }) : undefined;
  const type = format?.type === 'json_schema' && quirks.jsonSchemaAsJsonMode ? 'json_object' : format?.type;
  if (type === 'json_object') text = JSON.stringify({ text });
  if (type === 'json_schema') text = JSON.stringify(instanceOf((format!.json_schema?.schema ?? {}) as never, '', prompt));
  // A model that never ends its turn goes on after its answer until a limit stops it.
  if (quirks.runaway) text += ' and so on'.repeat(400);
  let finish = 'stop';
  if (has('stop')) {
    const stops = (Array.isArray(body.stop) ? body.stop : [body.stop]).filter((s): s is string => typeof s === 'string' && s !== '');
    const found = stops.map((s) => ({ s, at: text.indexOf(s) })).filter((m) => m.at >= 0);
    const first = found.sort((a, b) => a.at - b.at)[0];
    if (first) text = text.slice(0, first.at + (quirks.keepStop ? first.s.length : 0));
  }
  let tokens = tokenizeAs(text, quirks.tokenizer);
  // A gateway's own cap replaces whatever limit the client sent.
  const limit = quirks.outputCap ?? (has('max_completion_tokens') ? body.max_completion_tokens : has('max_tokens') ? body.max_tokens : quirks.defaultLimit);
  // The reasoning comes first and counts against the limit: what is left is the answer's room.
  let spent = thinking;
  let said = reasoning;
  if (typeof limit === 'number' && thinking > 0 && thinking >= limit) {
    spent = Math.max(0, limit);
    said = 'step '.repeat(spent).trim();
  }
  const room = typeof limit === 'number' ? limit - spent : undefined;
  if (room !== undefined && tokens.length > room) {
    tokens = tokens.slice(0, Math.max(0, room));
    finish = 'length';
  }
  const logprobs = has('logprobs') && body.logprobs === true ? logprobsOf(tokens, Number(body.top_logprobs ?? 0), quirks) : undefined;
  return { tokens, content: tokens.join(''), toolCalls: [], finish, logprobs, reasoning: said, reasoningTokens: spent };
}

interface ToolDef {
  function?: { name?: unknown; parameters?: unknown };
}

/** Which tools the pseudo-model calls: as tool_choice demands, else the tools the prompt asks for. */
function callTools(body: Json, has: (key: string) => boolean, prompt: string, index: number, quirks: Quirks): ToolCall[] {
  const tools = (Array.isArray(body.tools) ? body.tools : []) as ToolDef[];
  const named = (name: unknown) => tools.find((t) => t.function?.name === name);
  const choice = has('tool_choice') ? body.tool_choice : 'auto';
  if (choice === 'none') return [];
  if (quirks.callsOnlyWhenForced && (choice === 'auto' || choice === undefined)) return [];
  let chosen: ToolDef[];
  if (typeof choice === 'object' && choice !== null) {
    const t = named((choice as { function?: { name?: unknown } }).function?.name);
    chosen = t ? [t] : [];
  } else {
    const wanted = tools.filter((t) => typeof t.function?.name === 'string' && prompt.includes(t.function.name));
    chosen = wanted.length > 0 ? wanted : quirks.alwaysCallTools ? tools : choice === 'required' ? tools.slice(0, 1) : [];
  }
  const calls: ToolCall[] = [];
  for (const tool of chosen) {
    // One call per city the prompt names, in parallel, unless parallel_tool_calls: false is honoured.
    const cities = CITIES.filter((c) => prompt.includes(c));
    const targets = cities.length > 1 && tool.function?.name === 'get_weather' ? cities : [undefined];
    for (const city of targets) {
      const args = instanceOf((tool.function?.parameters ?? {}) as never, '', city ?? prompt);
      calls.push({
        id: `call_${(hash(`${prompt}${calls.length}${index}`) % 1e8).toString(36)}`,
        type: 'function',
        function: { name: String(tool.function?.name), arguments: JSON.stringify(args) },
      });
    }
  }
  const serial = has('parallel_tool_calls') && body.parallel_tool_calls === false;
  return serial ? calls.slice(0, 1) : calls;
}

function logprobsOf(tokens: string[], top: number, quirks: Pick<Quirks, 'weights' | 'quantized'>): TokenLogprob[] {
  const w = quirks.weights;
  // With weights: each token's logprob and its alternatives' gaps follow from the weights (and, for a
  // quantized twin, move by up to `quantized`, the same way every time); without: fixed steps.
  const move = (key: string) => (quirks.quantized ? (((hash(`q\u0000${key}`) % 2001) / 1000 - 1) * quirks.quantized) : 0);
  const shade = (key: string) => (w === undefined ? 0 : (hash(`${w}\u0000${key}`) % 1000) / 1000);
  return tokens.map((token, i) => {
    const base = w === undefined ? -Math.round((0.05 + (i % 5) * 0.1) * 1000) / 1000 : -(0.05 + 0.5 * shade(`${i}${token}`));
    const logprob = Math.min(0, base + move(`${i}${token}`));
    const alternatives = [{ token, logprob, bytes: [...Buffer.from(token)] }];
    for (let k = 1; k < top; k++) {
      const alt = `${token}${'_'.repeat(k)}`;
      const gap = w === undefined ? k : k * (0.8 + 0.4 * shade(`${i}${alt}`)) + move(`${i}${alt}`);
      alternatives.push({ token: alt, logprob: logprob - gap, bytes: [...Buffer.from(alt)] });
    }
    return { token, logprob, bytes: [...Buffer.from(token)], top_logprobs: alternatives.slice(0, Math.max(0, top)) };
  });
}
