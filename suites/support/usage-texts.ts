import { SMOKE_PROMPT } from '../../src/engine/probe.js';
import { COUNT_TO } from './prompts.js';
import { PINEAPPLE_RULE, UNRELATED_QUESTION } from './roles.js';

/**
 * The texts the usage probes send and count. Their counts in each tokenizer family are precomputed by
 * scripts/tokenizer-table.ts into suites/support/tokenizer-table.ts (the tokenizers themselves are
 * devDependencies of hundreds of MB: they never ship), and test/unit/tokenizer-table.test.ts recomputes
 * the table from the tokenizers, so a change here without a new table fails.
 */

/**
 * The units of the tokenizer slope (TrueLLMs): each is sent k times before the smoke prompt and the
 * growth of prompt_tokens per copy is the server's count of it. Chosen so that the six families count
 * each unit differently (each family's pair of counts differs from every other's in both): digits, which
 * the GPT and Llama 3 families cut in threes and Qwen, Gemma 3 and Mistral's Tekken one by one; maths
 * symbols, Hebrew and Greek, which their vocabularies cover unevenly. Every unit ends in a newline, so a
 * copy is cut into tokens the same wherever it stands (the table's script checks the count is exactly
 * linear in every family up to four copies); no combining marks, which servers' pre-tokenizers treat
 * unevenly.
 */
export const UNIT_A = '3.14159265358979 ∑∫∂√∞≈\n';
export const UNIT_B = 'עברית טקסט Ελληνικά γράμματα\n';

/** A series point: `a` copies of UNIT_A and `b` of UNIT_B before the smoke prompt (0, 0 is the smoke prompt itself). */
export const seriesText = (a: number, b: number): string => `${UNIT_A.repeat(a)}${UNIT_B.repeat(b)}${SMOKE_PROMPT}`;

/** The counting answer the greedy counting request asks for: "1, 2, …, 20". */
export const COUNTING_TEXT = Array.from({ length: COUNT_TO }, (_, i) => String(i + 1)).join(', ');

/** Every text whose count the table keeps, by name. */
export const COUNTED_TEXTS = {
  unitA: UNIT_A,
  unitB: UNIT_B,
  /** The one user message of the smoke call (the k = 0 point). */
  smoke: SMOKE_PROMPT,
  /** roles.system's system message and its user message: the request that tells an injected prompt from a template's. */
  rule: PINEAPPLE_RULE,
  question: UNRELATED_QUESTION,
} as const;

export type CountedText = keyof typeof COUNTED_TEXTS;
