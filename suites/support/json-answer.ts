import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, ignored, inconclusive, refusal, warn } from '../../src/engine/verdicts.js';
import { jsonOf, readChoices } from '../../src/wire/completion.js';
import { lazyValidator } from '../../src/wire/validate.js';
import { contentOf, quote } from './params.js';
import { contrasted, moreOf, type Contrast } from './contrast.js';
import { sendAlike, type Repeatable } from './repeat.js';
import { LIMITS, PROSE_PROMPT, SKY_SCHEMA, user } from './prompts.js';

const validateSky = lazyValidator(SKY_SCHEMA);

/**
 * How an answer's content relates to JSON: bare JSON, JSON in a Markdown fence, or prose. A leading
 * `<think>…</think>` block is a reasoning model's thinking left in the content (reasoning.field warns about
 * it), not the answer: the JSON after it is what the format shaped.
 */
export function readJson(raw: string): { kind: 'json'; value: unknown } | { kind: 'fenced' | 'prose' } {
  // Also everything up to a </think> whose opening tag the chat template wrote (DeepSeek-R1).
  const content = raw.replace(/^\s*<think>[\s\S]*?<\/think>|^(?![\s\S]*<think>)[\s\S]*?<\/think>/i, '');
  const value = jsonOf(content.trim());
  if (value !== undefined) return { kind: 'json', value };
  return /```(?:json)?\s*[[{][\s\S]*```/i.test(content) ? { kind: 'fenced' } : { kind: 'prose' };
}

const isJsonObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `value` does not fit SKY_SCHEMA, or undefined when it does. */
export function schemaProblem(value: unknown): string | undefined {
  const checked = validateSky(value);
  if (checked.ok) return undefined;
  return checked.errors.map((e) => `${e.instancePath || 'body'} ${e.message}`).slice(0, 3).join('; ');
}

const body = (extra: Record<string, unknown>) => ({ messages: [user(PROSE_PROMPT)], max_tokens: LIMITS.json, ...extra });

/** The prompt without response_format: if it already answers JSON, a format's effect cannot show. */
// Both at temperature 0 where that repeats and JSON mode's contrast reads them (repeat.ts).
export const PROSE_BASELINE = defineShared({ key: 'chat.prose', cost: { requests: 1, maxTokens: LIMITS.json, resends: 1 }, make: async (ctx) => sendAlike(ctx, body({})) });
/** More answers to it, while a JSON-mode contrast is undecided (contrast.ts). */
export const MORE_PROSE = moreOf(PROSE_BASELINE, body({}), LIMITS.json);
export const JSON_MODE_BODY = body({ response_format: { type: 'json_object' } });

/** The prompt in JSON mode: parameters.response_format.json_object judges it, and json_schema compares
 *  with it (a JSON-mode answer must not fit the schema, or fitting it proves nothing). */
export const JSON_MODE = defineShared({
  key: 'chat.json_mode',
  cost: { requests: 1, maxTokens: LIMITS.json, resends: 1 },
  make: async (ctx) => sendAlike(ctx, JSON_MODE_BODY),
});

export const JSON_SCHEMA_BODY = body({ response_format: { type: 'json_schema', json_schema: { name: 'sky_facts', strict: true, schema: SKY_SCHEMA } } });

/** The answer as JSON, or the verdict when it cannot be judged or is not JSON at all. */
function parsed(x: Exchange, control: Exchange, feature: string, expected: string): { value: unknown } | { verdict: ProbeVerdict } {
  if (!x.ok) return { verdict: refusal(x, control, feature, 'response_format') };
  const problem = answerProblem(x);
  if (problem) return { verdict: inconclusive(`${problem}: no answer to judge`) };
  const got = readJson(contentOf(x));
  if (got.kind === 'json') return { value: got.value };
  // Cut by the output limit, JSON may be unfinished: that says nothing about the format.
  if (readChoices(x.json)[0]?.finishReason === 'length') return { verdict: inconclusive(`expected ${expected}, got an answer cut by the output limit before it ended: ${quote(x)}`) };
  // Prose or fenced JSON is what breaks JSON.parse in every client: the key failure.
  return { verdict: ignored(`expected ${expected}, got ${got.kind === 'fenced' ? 'JSON inside a Markdown fence' : 'prose'}: ${quote(x)}`) };
}

/**
 * JSON mode (verdict contract, rules 1 and 6). Honoured: JSON objects where the same prompt without it
 * answers prose (the negative control: the prompt mentions JSON, as JSON mode requires, so a model may
 * answer JSON anyway), in enough answers that chance is ruled out (contrast.ts). Ignored: prose or fenced
 * JSON in any answer, which JSON mode rules out whatever the model.
 */
export function judgeJsonObject(xs: readonly Exchange[], proses: readonly Exchange[], control: Exchange, repeat?: Repeatable): Contrast {
  const expected = 'a bare JSON object';
  for (const x of xs) {
    const p = parsed(x, control, 'response_format json_object', expected);
    if ('verdict' in p) return { verdict: p.verdict };
    if (!isJsonObject(p.value)) return { verdict: ignored(`expected ${expected}, got JSON that is not an object: ${quote(x)}`) };
  }
  for (const prose of proses) {
    const plain = answerProblem(prose) ? undefined : readJson(contentOf(prose));
    if (!plain) return { verdict: inconclusive(`a JSON object, but the same prompt without response_format got no answer to compare with (${answerProblem(prose)})`) };
    if (plain.kind === 'json') return { verdict: inconclusive(`the answer is a JSON object, but so is ${proses.length > 1 ? 'an' : 'the'} answer without response_format (${quote(prose)})`) };
  }
  return contrasted(xs, proses, `expected ${expected} instead of prose; got ${quote(xs[0]!)}`, repeat);
}

/**
 * A strict JSON schema (verdict contract, rule 1). The schema asks for a key and an enum value no prompt
 * mentions, so only the schema can produce a fitting answer; the JSON-mode and plain answers to the same
 * prompt are the negative controls. Ignored: prose, or JSON that does not fit (the schema was dropped, or
 * downgraded to JSON mode, as some gateways do): strict mode rules both out whatever the model.
 */
export function judgeJsonSchema(x: Exchange, jsonMode: Exchange, prose: Exchange, control: Exchange): ProbeVerdict {
  const expected = 'JSON fitting the schema';
  const p = parsed(x, control, 'response_format json_schema', expected);
  if ('verdict' in p) return p.verdict;
  const problem = schemaProblem(p.value);
  if (problem) {
    if (readChoices(x.json)[0]?.finishReason === 'length') return inconclusive(`expected ${expected}, got an answer cut by the output limit: ${quote(x)}`);
    const v = ignored(`expected ${expected}, got JSON that does not fit (${problem}): ${quote(x)}`);
    if (isJsonObject(p.value)) v.findings = [warn('json_mode_only', 'the answer is a JSON object outside the schema: the schema was dropped, or response_format was downgraded to JSON mode')];
    return v;
  }
  for (const [name, other] of [['in JSON mode', jsonMode], ['without response_format', prose]] as const) {
    if (other.ok && !answerProblem(other)) {
      const got = readJson(contentOf(other));
      if (got.kind === 'json' && !schemaProblem(got.value)) return inconclusive(`the answer fits the schema, but so does the answer ${name} (${quote(other)})`);
    }
  }
  return honoured(`expected ${expected}, with a key and value no prompt names; got ${quote(x)}`);
}
