import { SMOKE_PROMPT } from '../../src/engine/probe.js';
import { BILLING_COUNT_TO, COUNT_TO, countingPrompt } from './prompts.js';
import { PINEAPPLE_RULE, UNRELATED_QUESTION } from './roles.js';

/**
 * The texts the usage probes send and count. Their counts in each tokenizer family are precomputed by
 * scripts/tokenizer-table.ts into suites/support/tokenizer-table.ts (the tokenizers themselves are
 * devDependencies of hundreds of MB: they never ship), and test/unit/tokenizer-table.test.ts recomputes
 * the table from the tokenizers, so a change here without a new table fails.
 */

/**
 * The unit of the tokenizer slope (TrueLLMs): sent k times before the smoke prompt, the growth of
 * prompt_tokens per copy is the server's count of it. Chosen so that the six families each count it
 * differently: digits, which the GPT and Llama 3 families cut in threes and Qwen, Gemma 3 and Mistral's
 * Tekken one by one, and maths symbols, which their vocabularies cover unevenly (17, 20, 19, 24, 23 and 29
 * tokens). It ends in a newline, so a copy is cut into tokens the same wherever it stands (the table's test
 * checks the count is exactly linear in every family, under every known template, up to four copies).
 */
export const UNIT_A = '3.14159265358979 ∑∫∂√∞≈\n';

/**
 * The copies of the unit the series reads: 0 is the smoke call, 3 the series' one request. No request
 * of its own: a model's budget (80 requests, billing included) has no room for more, and the two free points
 * (CHECK_TEXTS) check the family the slope names on other texts, which a third copy of the same unit would not.
 */
export const SERIES_COPIES = [0, 3] as const;

/** A series point: `k` copies of the unit before the smoke prompt (0 copies is the smoke prompt itself). */
export const seriesText = (k: number): string => `${UNIT_A.repeat(k)}${SMOKE_PROMPT}`;

/** The counting answer the greedy counting request asks for: "1, 2, …, 20". */
export const COUNTING_TEXT = Array.from({ length: COUNT_TO }, (_, i) => String(i + 1)).join(', ');

/**
 * Every text whose count the table keeps, by name. Besides the unit and the smoke prompt: the one user
 * message of two requests the audit sends anyway (the instruction in a user message, which the role probes
 * read; the greedy counting request), each a free point the family named by the slope must count exactly
 * too; and roles.system's system message and question, the request that tells an injected prompt from a
 * template's. A longer text before the texts inside it: the reference server counts them in this order.
 */
export const COUNTED_TEXTS = {
  unitA: UNIT_A,
  /** The one user message of the smoke call (the k = 0 point). */
  smoke: SMOKE_PROMPT,
  /** The instruction in a user message (roles' RULE_IN_USER). */
  ruleInUser: `${PINEAPPLE_RULE} ${UNRELATED_QUESTION}`,
  /** The greedy counting request's prompt (length.ts GREEDY_COUNT). */
  countPrompt: countingPrompt(COUNT_TO),
  /** The billing probes' plain and stream calls' prompt (billing.ts), counted as the family the series names counts it. */
  billingPrompt: countingPrompt(BILLING_COUNT_TO),
  /** roles.system's system message and its user message. */
  rule: PINEAPPLE_RULE,
  question: UNRELATED_QUESTION,
} as const;

export type CountedText = keyof typeof COUNTED_TEXTS;

/** The texts of the free points, each one user message: checked against the family the slope names. */
export const CHECK_TEXTS = ['ruleInUser', 'countPrompt'] as const satisfies readonly CountedText[];
