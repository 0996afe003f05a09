export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Reads an OpenAI `usage` object when its three counts are numbers; anything else is not usage. */
export function readUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Record<string, unknown>;
  const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = u;
  if (typeof p !== 'number' || typeof c !== 'number' || typeof t !== 'number') return undefined;
  return { promptTokens: p, completionTokens: c, totalTokens: t };
}

/** Usage invariants from the chat basics: non-negative integers, total = prompt + completion. */
export function usageProblems(u: Usage): string[] {
  const problems: string[] = [];
  for (const [name, v] of [
    ['prompt_tokens', u.promptTokens],
    ['completion_tokens', u.completionTokens],
    ['total_tokens', u.totalTokens],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) problems.push(`${name} is ${v}, expected a non-negative integer`);
  }
  if (u.promptTokens === 0) problems.push('prompt_tokens is 0 for a non-empty prompt');
  if (u.totalTokens !== u.promptTokens + u.completionTokens) {
    problems.push(`total_tokens is ${u.totalTokens}, expected prompt + completion = ${u.promptTokens + u.completionTokens}`);
  }
  return problems;
}

export const STANDARD_FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;
