import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Exchange } from '../../src/engine/exchange.js';
import { readChoices } from '../../src/spec/completion.js';
import { isObject } from '../../src/spec/stream.js';
import { defineShared, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { TIME_TOOL, user, WEATHER_PROMPT, WEATHER_TOOL } from './prompts.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validators: Record<string, ValidateFunction> = {
  get_weather: ajv.compile(WEATHER_TOOL.function.parameters),
  get_time: ajv.compile(TIME_TOOL.function.parameters),
};

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
    const validate = name ? validators[name] : undefined;
    if (!validate) return { name, problem: `no such tool: ${JSON.stringify(name)}` };
    if (!validate(args)) return { name, problem: `arguments do not fit the schema: ${validate.errors?.map((e) => `${e.instancePath || 'args'} ${e.message}`).join('; ')}` };
    return { name, problem: undefined };
  });
  return { calls, finishReason: choice?.finishReason };
}

export function describeCalls(calls: readonly ToolCallView[], finishReason: unknown): string {
  const list = calls.length === 0 ? 'no tool call' : calls.map((c) => `${c.name ?? '?'}(${c.problem ? `invalid: ${c.problem}` : 'valid'})`).join(', ');
  return `${list}, finish_reason ${JSON.stringify(finishReason ?? null)}`;
}

/** The weather prompt with the weather tool and no tool_choice: parameters.tools judges it, and
 *  tool_choice "none" needs it to show that the model would otherwise call the tool. */
export const WEATHER_CALL = defineShared({
  key: 'chat.weather_tool',
  cost: { requests: 1, maxTokens: 20 },
  make: (ctx) => ctx.chat({ messages: [user(WEATHER_PROMPT)], tools: [WEATHER_TOOL] }),
});

/** A prompt that needs no tool, with both tools and no tool_choice: forcing a call proves nothing if the
 *  model calls a tool here anyway (some small models call whatever tool they are given). */
export const TOOLS_UNNEEDED = defineShared({
  key: 'chat.tools_unneeded',
  cost: { requests: 1, maxTokens: 20 },
  make: (ctx) => ctx.chat({ messages: [user(SMOKE_PROMPT)], tools: [WEATHER_TOOL, TIME_TOOL] }),
});

/** The prompt that needs no tool, with tool_choice "required": tool_choice.required judges it, and
 *  parameters.tools reads it to tell tools dropped on the way from a model that chose not to call. */
export const FORCED_CALL = defineShared({
  key: 'chat.tool_required',
  cost: { requests: 1, maxTokens: 20 },
  make: (ctx) => ctx.chat({ messages: [user(SMOKE_PROMPT)], tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: 'required' }),
});
