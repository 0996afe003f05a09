import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, SMOKE_PROMPT, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, ignored, inconclusive, refusal, warn } from '../../src/engine/verdicts.js';
import { jsonOf, readChoices } from '../../src/wire/completion.js';
import { isObject } from '../../src/wire/json.js';
import { lazyValidator } from '../../src/wire/validate.js';
import type { Finding } from '../../src/results/model.js';
import { contentOf } from './params.js';
import { contrasted, moreOf, type Contrast } from './contrast.js';
import { sendAlike, type Repeatable } from './repeat.js';
import { LIMITS, TIME_TOOL, TOOL_NAMES, TWO_CITIES_PROMPT, user, WEATHER_TOOL } from './prompts.js';

/** A Map, not an object: a call named "constructor" must not find Object's. */
const validators = new Map([
  ['get_weather', lazyValidator(WEATHER_TOOL.function.parameters)],
  ['get_time', lazyValidator(TIME_TOOL.function.parameters)],
]);

export interface ToolCallView {
  name: string | undefined;
  /** Why the call is not a usable call: arguments that are not JSON or do not fit the tool's schema. */
  problem: string | undefined;
}

/** The tool calls of the first choice, each checked against its tool's parameter schema. */
export function toolCallsOf(x: Exchange): { calls: ToolCallView[]; finishReason: unknown } {
  const choice = readChoices(x.json)[0];
  const calls = (choice?.toolCalls ?? []).map((raw): ToolCallView => {
    const fn = isObject(raw) && isObject(raw.function) ? raw.function : {};
    const name = typeof fn.name === 'string' ? fn.name : undefined;
    if (typeof fn.arguments !== 'string') return { name, problem: 'arguments are not a JSON string' };
    let args: unknown;
    try {
      args = JSON.parse(fn.arguments);
    } catch {
      return { name, problem: `arguments are not JSON: ${JSON.stringify(fn.arguments.slice(0, 40))}` };
    }
    const validate = name ? validators.get(name) : undefined;
    if (!validate) return { name, problem: `no such tool: ${JSON.stringify(name)}` };
    const checked = validate(args);
    if (!checked.ok) return { name, problem: `arguments do not fit the schema: ${checked.errors.map((e) => `${e.instancePath || 'args'} ${e.message}`).join('; ')}` };
    return { name, problem: undefined };
  });
  return { calls, finishReason: choice?.finishReason };
}

const callCount = (x: Exchange) => (x.ok && !answerProblem(x, 'ended') ? toolCallsOf(x).calls.length : 0);

/**
 * The names a JSON value calls, in the shapes models write calls in when no parser takes them out: a call,
 * a list of calls, or `{"tool_calls": […]}`, looked for a few levels down (a model's answer can be a
 * 100,000-deep array: no recursion follows it down).
 */
function namesCalled(v: unknown, depth = 0): string[] {
  if (depth > 4) return [];
  if (Array.isArray(v)) return v.slice(0, 64).flatMap((x) => namesCalled(x, depth + 1));
  if (!isObject(v)) return [];
  if (Array.isArray(v.tool_calls)) return namesCalled(v.tool_calls, depth + 1);
  const fn = isObject(v.function) ? v.function : v;
  const name = typeof fn.name === 'string' ? fn.name : undefined;
  return name && (TOOL_NAMES as readonly string[]).includes(name) && ('arguments' in fn || 'parameters' in fn) ? [name] : [];
}

/**
 * A tool call written as text in `content` (verdict contract, rule 9): Hermes/Qwen `<tool_call>` tags,
 * Llama `<function=…>` and `<|python_tag|>`, Mistral `[TOOL_CALLS]`, or a JSON object (fenced or not)
 * naming one of our functions. The model called; the server did not parse the call out.
 */
export function textToolCall(content: string): string | undefined {
  const tagged = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/.exec(content);
  if (tagged) return `a <tool_call> tag${namesCalled(jsonOf(tagged[1]!)).length ? ` calling ${namesCalled(jsonOf(tagged[1]!)).join(', ')}` : ''}`;
  const fn = /<function=(\w+)>/.exec(content);
  if (fn && (TOOL_NAMES as readonly string[]).includes(fn[1]!)) return `a <function=${fn[1]}> tag`;
  if (/<\|python_tag\|>|\[TOOL_CALLS\]/.test(content)) return 'a tool-call marker (<|python_tag|> or [TOOL_CALLS])';
  const body = /```(?:json)?\s*([\s\S]*?)```/.exec(content)?.[1] ?? content;
  const names = namesCalled(jsonOf(body.trim()));
  return names.length > 0 ? `a JSON object calling ${names.join(', ')}` : undefined;
}

/** Tools ignored by the API because the call came back as text. */
function callAsText(x: Exchange, what: string): ProbeVerdict | undefined {
  const text = textToolCall(contentOf(x));
  if (!text) return undefined;
  return {
    ...ignored(`expected ${what} in message.tool_calls, got ${text} in message.content`),
    findings: [warn('tool_call_as_text', "tool calls come back as text in the content: the server's tool-call parser is off (llama.cpp without --jinja, vLLM without --enable-auto-tool-choice and a --tool-call-parser, a chat template without tool support)")],
  };
}

export function describeCalls(calls: readonly ToolCallView[], finishReason: unknown): string {
  const list = calls.length === 0 ? 'no tool call' : calls.map((c) => `${c.name ?? '?'}(${c.problem ? `invalid: ${c.problem}` : 'valid'})`).join(', ');
  return `${list}, finish_reason ${JSON.stringify(finishReason ?? null)}`;
}

function describe(x: Exchange): string {
  const problem = answerProblem(x, 'choice');
  if (problem) return problem;
  const { calls, finishReason } = toolCallsOf(x);
  return describeCalls(calls, finishReason);
}

/** Two cities and the weather tool, no tool_choice: parameters.tools judges it; tool_choice "none" and
 *  parallel_tool_calls compare with it (the model calls here without them). */
const WEATHER_BODY = { messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], max_tokens: LIMITS.tools };
export const WEATHER_CALL = defineShared({
  key: 'chat.weather_tool',
  // resends: sent again without the gate's settings where they are refused here (contrast.ts chatAlike).
  cost: { requests: 1, maxTokens: LIMITS.tools, resends: 1 },
  // At temperature 0 where that repeats and a contrast reads it (repeat.ts), as every tool request a contrast compares.
  make: async (ctx) => sendAlike(ctx, WEATHER_BODY),
});
/** More answers to it, while a contrast with it is undecided (contrast.ts). */
export const MORE_WEATHER = moreOf(WEATHER_CALL, WEATHER_BODY, LIMITS.tools);

/** A prompt that needs no tool, with both tools and no tool_choice: forcing a call proves nothing if the
 *  model calls a tool here anyway (some small models call whatever tool they are given). Its prompt count,
 *  against the smoke call's (the same prompt without tools), shows whether the tools reach the model. */
const UNNEEDED_BODY = { messages: [user(SMOKE_PROMPT)], tools: [WEATHER_TOOL, TIME_TOOL], max_tokens: LIMITS.tools };
export const TOOLS_UNNEEDED = defineShared({
  key: 'chat.tools_unneeded',
  cost: { requests: 1, maxTokens: LIMITS.tools, resends: 1 },
  make: async (ctx) => sendAlike(ctx, UNNEEDED_BODY),
});
/** More answers to it, while a contrast with it is undecided (contrast.ts). */
export const MORE_UNNEEDED = moreOf(TOOLS_UNNEEDED, UNNEEDED_BODY, LIMITS.tools);

/** The prompt that needs no tool, with tool_choice "required": tool_choice.required judges it, and
 *  parameters.tools and tool_choice.named read it as the proof that a call can be forced here. */
export const FORCED_BODY = { ...UNNEEDED_BODY, tool_choice: 'required' };
export const FORCED_CALL = defineShared({
  key: 'chat.tool_required',
  cost: { requests: 1, maxTokens: LIMITS.tools, resends: 1 },
  make: async (ctx) => sendAlike(ctx, FORCED_BODY),
});

/**
 * Whether the tools reach the model, from the server's own prompt counts: the same prompt with two tool
 * definitions costs tens of prompt tokens more when the template renders them. `dropped` needs the counts
 * equal while they do follow the prompt elsewhere (the two-cities request counts differently).
 */
export function toolsReach(unneeded: Exchange, smoke: Exchange, weather: Exchange): 'reach' | 'dropped' | undefined {
  const withTools = unneeded.usage?.promptTokens;
  const without = smoke.usage?.promptTokens;
  if (withTools === undefined || without === undefined) return undefined;
  if (withTools - without >= 20) return 'reach';
  const other = weather.usage?.promptTokens;
  if (Math.abs(withTools - without) <= 2 && other !== undefined && other !== withTools) return 'dropped';
  return undefined;
}

/**
 * Why the tools are shown never to reach the model, or undefined: what parameters.tools calls ignored for
 * dropped tools (no call where the prompt needs one, none when forced either, and prompt counts that do
 * not grow by the two definitions while they follow the prompt elsewhere). Then no tool_choice or
 * parallel_tool_calls request can show anything (there is no call to force, prevent or limit) and no
 * streamed call can come: those probes skip their own requests and say so, reading parameters.tools'
 * exchanges as the reason.
 */
export function toolsNeverReach(weather: Exchange, forced: Exchange, unneeded: Exchange, control: Exchange): string | undefined {
  for (const x of [weather, forced, unneeded]) {
    if (!x.ok || answerProblem(x, 'ended') || callCount(x) > 0 || textToolCall(contentOf(x))) return undefined;
  }
  if (toolsReach(unneeded, control, weather) !== 'dropped') return undefined;
  return `the tools never reach the model (prompt_tokens ${control.usage?.promptTokens} without tools, ${unneeded.usage?.promptTokens} with two; no call where the prompt needs one, nor when forced: see parameters.tools)`;
}

/** The shared exchanges toolsNeverReach reads. */
export const REACH_SHARED = [WEATHER_CALL, FORCED_CALL, TOOLS_UNNEEDED] as const;

/**
 * toolsNeverReach from the shared exchanges (REACH_SHARED: declare them in the probe's cost), asked one
 * after another and only while they may still show the tools dropped: a call where the prompt needs one
 * settles it at once. One at a time, too, so a model that refuses max_tokens refuses it once, not in three
 * requests in flight together.
 */
export async function toolsDropped(ctx: ProbeContext): Promise<string | undefined> {
  const weather = await ctx.shared(WEATHER_CALL);
  if (!weather.ok || answerProblem(weather, 'ended') || callCount(weather) > 0 || textToolCall(contentOf(weather))) return undefined;
  const unneeded = await ctx.shared(TOOLS_UNNEEDED);
  if (toolsReach(unneeded, ctx.control(), weather) !== 'dropped') return undefined;
  return toolsNeverReach(weather, await ctx.shared(FORCED_CALL), unneeded, ctx.control());
}

/** What every tool judgement reads first: a refusal or an unreadable answer decides at once. */
function toolAnswer(x: Exchange, control: Exchange, feature: string, param: string): ProbeVerdict | { calls: ToolCallView[]; finishReason: unknown; seen: string } {
  if (!x.ok) return refusal(x, control, feature, param);
  // An answer that ended with nothing in it made no call: that is readable.
  const problem = answerProblem(x, 'ended');
  if (problem) return inconclusive(`${problem}: no answer to judge`);
  const { calls, finishReason } = toolCallsOf(x);
  return { calls, finishReason, seen: describeCalls(calls, finishReason) };
}

/**
 * parameters.tools: a valid call to the tool the prompt needs. Ignored needs the absence of a call and a
 * control that tells dropped tools from a model that chose not to call: a forced call that works (then
 * the model chose: inconclusive), or prompt counts that show the tools never reached the model.
 */
export function judgeTools(x: Exchange, forced: Exchange, unneeded: Exchange, control: Exchange): ProbeVerdict {
  const a = toolAnswer(x, control, 'tools', 'tools');
  if ('verdict' in a) return a;
  const { calls, finishReason, seen } = a;
  if (calls.length === 0) {
    const text = callAsText(x, 'a get_weather call');
    if (text) return text;
    if (callCount(forced) > 0) {
      return inconclusive(`expected a get_weather call, got ${seen}; yet tool_choice "required" makes a call, so the tools reach the model and it chose not to call`);
    }
    const reach = toolsReach(unneeded, control, x);
    const counts = `prompt_tokens ${control.usage?.promptTokens ?? '?'} without tools, ${unneeded.usage?.promptTokens ?? '?'} with two`;
    if (reach === 'dropped') return ignored(`expected a get_weather call, got ${seen}, and the tools never reached the model (${counts})`);
    const why = reach === 'reach' ? `the tools reach the model (${counts}) but it makes no call, even when forced` : 'nothing shows whether the tools reached the model';
    return inconclusive(`expected a get_weather call, got ${seen}: ${why}`);
  }
  const valid = calls.filter((c) => c.name === 'get_weather' && !c.problem);
  if (valid.length === 0) return inconclusive(`expected a valid get_weather call, got ${seen}: the tools reach the model, the call is not usable`);
  const findings: Finding[] = [];
  if (finishReason !== 'tool_calls') findings.push(warn('finish_reason', `finish_reason ${JSON.stringify(finishReason)} instead of "tool_calls"`));
  return { ...honoured(`expected a valid get_weather call; got ${seen}`), findings };
}

/**
 * tool_choice "required": a call for a prompt that needs none, where the model makes none without it
 * (the negative control). Ignored needs no call while the tools demonstrably reach the model: it calls
 * them when the prompt asks, or the prompt counts grow by the tool definitions (a server that enforces a
 * forced call gets one from any model, however weak: one that does not, forces nothing).
 */
export function judgeRequired(xs: readonly Exchange[], unneeded: readonly Exchange[], weather: Exchange, control: Exchange, repeat?: Repeatable): Contrast {
  for (const x of xs) {
    const a = toolAnswer(x, unneeded[0]!, 'tool_choice "required"', 'tool_choice');
    if ('verdict' in a) return { verdict: a };
    const { calls, finishReason, seen } = a;
    if (calls.length > 0) continue;
    const text = callAsText(x, 'a forced tool call');
    if (text) return { verdict: text };
    // llama.cpp's grammar for "required" lets text come before the call: cut by our limit, it may still come.
    if (finishReason === 'length') return { verdict: inconclusive(`expected a forced tool call, got ${seen}: cut by the output limit chatprobe sends, before any call could come`) };
    const reach = reaching(unneeded[0]!, control, weather);
    if (reach) return { verdict: ignored(`expected a forced tool call, got ${seen}, though ${reach}: the call is not forced`) };
    return { verdict: inconclusive(`expected a forced tool call, got ${seen}; nothing shows the tools reach the model (${describe(weather)} when the prompt asks), so tools may be dropped on the way`) };
  }
  const seen = describe(xs[0]!);
  for (const u of unneeded) {
    if (!u.ok || answerProblem(u, 'ended') || callCount(u) > 0) {
      return { verdict: inconclusive(`a tool call with tool_choice "required" (${seen}), but without it the model ${u.ok ? `answers ${describe(u)}` : `got ${answerProblem(u)}`}`) };
    }
  }
  return contrasted(xs, unneeded, `expected a tool call where the model otherwise makes none; got ${seen}`, repeat);
}

/** Why the tools are known to reach the model, or undefined: it calls them, or the prompt counts show them. */
function reaching(unneeded: Exchange, control: Exchange, weather: Exchange, forced?: Exchange): string | undefined {
  if (callCount(weather) > 0) return 'the model calls tools when the prompt asks';
  if (forced && callCount(forced) > 0) return 'tool_choice "required" makes a call here';
  if (toolsReach(unneeded, control, weather) === 'reach') {
    return `the tools reach the model (prompt_tokens ${control.usage?.promptTokens} without them, ${unneeded.usage?.promptTokens} with two)`;
  }
  return undefined;
}

/**
 * tool_choice naming get_time: a call to get_time only, where the model does not call it unforced (the
 * negative control). Ignored: a call to another function, or no call while the tools demonstrably reach
 * the model (see judgeRequired). llama.cpp releases that treat a named tool_choice as "auto" show here.
 */
export function judgeNamed(xs: readonly Exchange[], unneeded: readonly Exchange[], forced: Exchange, weather: Exchange, control: Exchange, repeat?: Repeatable): Contrast {
  for (const x of xs) {
    const a = toolAnswer(x, unneeded[0]!, 'tool_choice naming get_time', 'tool_choice');
    if ('verdict' in a) return { verdict: a };
    const { calls, finishReason, seen } = a;
    const named = calls.filter((c) => c.name === 'get_time');
    if (calls.length > 0 && named.length !== calls.length) return { verdict: ignored(`expected a call to get_time only, got ${seen}: the call is not restricted to the named function`) };
    if (calls.length > 0) continue;
    const text = callAsText(x, 'a call to get_time');
    if (text) return { verdict: text };
    if (finishReason === 'length') return { verdict: inconclusive(`expected a call to get_time, got ${seen}: cut by the output limit chatprobe sends, before any call could come`) };
    const reach = reaching(unneeded[0]!, control, weather, forced);
    if (reach) return { verdict: ignored(`expected a call to get_time, got ${seen}, though ${reach}: the call is not forced`) };
    return { verdict: inconclusive(`expected a call to get_time, got ${seen}; nothing shows the tools reach the model (${describe(forced)} when forced), so tools may be dropped on the way`) };
  }
  const seen = describe(xs[0]!);
  for (const u of unneeded) {
    if (!u.ok || answerProblem(u, 'ended') || toolCallsOf(u).calls.some((c) => c.name === 'get_time')) {
      return { verdict: inconclusive(`a call to get_time (${seen}), but without tool_choice the model ${u.ok ? `answers ${describe(u)}` : `got ${answerProblem(u)}`}`) };
    }
  }
  return contrasted(xs, unneeded, `expected a call to get_time where the model otherwise makes none; got ${seen}`, repeat);
}

/**
 * tool_choice "none": no call where the model otherwise calls (the two-cities request, the control). An
 * answer cut by our limit before any call could still have called after its text, unless the model's calls
 * begin its answers: every answer without tool_choice calls, with no text before the call (llama.cpp with a
 * Qwen or Llama template writes the call first). Then an answer that has begun as text has already done
 * what no answer without the parameter does, whatever would have followed the cut.
 */
export function judgeNone(xs: readonly Exchange[], weather: readonly Exchange[], repeat?: Repeatable): Contrast {
  const callsLead = weather.every((w) => callCount(w) > 0 && !/\S/.test(contentOf(w)));
  for (const x of xs) {
    const a = toolAnswer(x, weather[0]!, 'tool_choice "none"', 'tool_choice');
    if ('verdict' in a) return { verdict: a };
    if (a.calls.length > 0) return { verdict: ignored(`expected no tool call, got ${a.seen}`) };
    // Cut by our limit with no call yet: a call could have come after the text.
    if (a.finishReason === 'length' && !(callsLead && /\S/.test(contentOf(x)))) {
      const lead = callsLead ? '' : ' (it would not, were every answer without tool_choice a call with no text before it)';
      return { verdict: inconclusive(`expected no tool call, got ${a.seen}: cut by the output limit chatprobe sends, so a call may still have come${lead}`) };
    }
  }
  for (const w of weather) {
    if (callCount(w) === 0) {
      const why = w === weather[0] ? 'nothing to prevent' : 'the model calls it only sometimes without it';
      return { verdict: inconclusive(`no tool call with tool_choice "none", but none without it either (${describe(w)}): ${why}`) };
    }
  }
  const cut = xs.some((x) => toolCallsOf(x).finishReason === 'length') ? ' (cut by the output limit chatprobe sends after text began, where every answer without it begins with its call)' : '';
  return contrasted(xs, weather, `expected no tool call where the model otherwise calls the tool; got ${describe(xs[0]!)}${cut}`, repeat);
}

/** parallel_tool_calls: false: one call where the same request without it makes several (the control). */
export function judgeParallel(xs: readonly Exchange[], weather: readonly Exchange[], repeat?: Repeatable): Contrast {
  for (const x of xs) {
    const a = toolAnswer(x, weather[0]!, 'parallel_tool_calls: false', 'parallel_tool_calls');
    if ('verdict' in a) return { verdict: a };
    if (a.calls.length > 1) return { verdict: ignored(`expected one tool call, got ${a.seen}`) };
    const seen = `with parallel_tool_calls false: ${a.seen}; without: ${describe(weather[0]!)}`;
    if (a.calls.length !== 1) return { verdict: inconclusive(`expected one call where the model otherwise makes several; got ${seen}`) };
  }
  for (const w of weather) {
    if (callCount(w) <= 1) return { verdict: inconclusive(`expected one call where the model otherwise makes several; got one with parallel_tool_calls false, and without it: ${describe(w)}`) };
  }
  return contrasted(xs, weather, `expected one call instead of several; got with parallel_tool_calls false: ${describe(xs[0]!)}; without: ${describe(weather[0]!)}`, repeat);
}
