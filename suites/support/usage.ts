import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, conformance, describeFailure, errored, fail, inconclusive, note, ourCut, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { errorIn2xx, readChoices } from '../../src/wire/completion.js';
import { readReasoning } from '../../src/wire/reasoning.js';
import { GREEDY_COUNT, INFLATED_RATIO } from './length.js';
import { user } from './prompts.js';
import { RULE_IN_USER } from './roles.js';
import { TOKENIZER_TABLE } from './tokenizer-table.js';
import { CHECK_TEXTS, COUNTED_TEXTS, COUNTING_TEXT, SERIES_COPIES, seriesText, type CountedText } from './usage-texts.js';

/**
 * What the endpoint counts (usage.*): the tokenizer its prompt counts follow, what it adds to a prompt,
 * how it counts an answer, and whether it hands earlier answers back. Every judgement is a pure function
 * of exchanges; the counts of the texts are the precomputed table's (suites/support/tokenizer-table.ts).
 */

export type Family = keyof typeof TOKENIZER_TABLE;
export const FAMILIES = Object.keys(TOKENIZER_TABLE) as Family[];

/** A family's line of the table (scripts/tokenizer-table.ts says what each number is). */
interface FamilyRow {
  label: string;
  digitGroup: number;
  counts: Readonly<Record<keyof typeof COUNTED_TEXTS, number>>;
  templates: readonly { name: string; user: number; system: number }[];
}
const row = (f: Family): FamilyRow => TOKENIZER_TABLE[f];
export const familyLabel = (f: Family): string => row(f).label;

/**
 * The family a model's name claims, where exactly one does (vendors' own names; distilled and fine-tuned
 * models keep their base's tokenizer and its name). Older tokenizers of the same vendors (Llama 2,
 * Gemma 2, Mistral 7B's SentencePiece) are not in the table and are claimed by nothing.
 */
const CLAIMS: readonly [RegExp, Family][] = [
  [/gpt-?4o|gpt-?4\.[15]|gpt-?5|gpt-oss|chatgpt|(^|[^a-z0-9])o[134]([^a-z0-9]|$)/i, 'o200k'],
  [/gpt-?4(?![o.\d])|gpt-?3\.5|gpt-?35/i, 'cl100k'],
  [/llama[-_ ]?3/i, 'llama3'],
  [/qwen|qwq/i, 'qwen2'],
  [/gemma[-_ ]?3/i, 'gemma3'],
  [/mistral[-_ ]?nemo|ministral|pixtral|mistral[-_ ]?small[-_ ]?(3|2[45])/i, 'mistral_nemo'],
];

export function claimedFamily(model: string): Family | undefined {
  const claims = CLAIMS.filter(([re]) => re.test(model)).map(([, f]) => f);
  return claims.length === 1 ? claims[0] : undefined;
}

/**
 * Tokens of a counting text ("1, 2, 3", or any prefix of "1, 2, …, 20") in a family whose numbers are cut
 * in groups of `group` digits: every comma and every space is a token of its own in the six families
 * (test/unit/tokenizer-table.test.ts checks every prefix against the tokenizers).
 */
export function countingTokens(text: string, group: number): number {
  let n = 0;
  for (const piece of text.match(/\d+|\D/g) ?? []) n += /\d/.test(piece) ? Math.ceil(piece.length / group) : 1;
  return n;
}

// ---------------------------------------------------------------------------------------------------
// The series

/**
 * The smoke prompt with the unit three times before it, a one-token answer (only prompt_tokens is read;
 * sent as written, with no room for reasoning): the series' one request.
 */
export const UNIT_THRICE = defineShared({
  key: 'usage.unit_thrice',
  cost: { requests: 1, maxTokens: 1 },
  make: (ctx) => ctx.chat({ messages: [user(seriesText(3))], max_tokens: 1 }, { exact: true }),
});


export type CheckText = (typeof CHECK_TEXTS)[number];

/**
 * TrueLLMs' slope, on a budget: the smoke prompt with the unit before it 0 times (the smoke call itself)
 * and 3 times (the series' one request); and two free points, requests of one user message and a known
 * text that the audit sends anyway (the instruction in a user message, the greedy counting request), which
 * the family the slope names must count exactly too.
 */
export interface Series {
  points: { k: number; x: Exchange }[];
  checks: { text: CheckText; x: Exchange }[];
}

/**
 * The series as one shared value of the model's (nothing sent of its own): what the usage probes read, and
 * what the billing probes read where it was made (ProbeDefinition.reads: they run once the smoke call and
 * the other shared exchanges are let go), to count their calls' tokens as the named family counts them.
 */
export const USAGE_SERIES = defineShared<Series>({
  key: 'usage.series',
  cost: { requests: 0, maxTokens: 0 },
  async make(ctx) {
    const [thrice, rule, greedy] = await Promise.all([ctx.shared(UNIT_THRICE), ctx.shared(RULE_IN_USER), ctx.shared(GREEDY_COUNT)]);
    return {
      points: [
        { k: 0, x: ctx.control() },
        { k: 3, x: thrice },
      ],
      checks: [
        { text: 'ruleInUser', x: rule },
        { text: 'countPrompt', x: greedy.x },
      ],
    };
  },
});

/** Everything the series reads: its request, and two one-message requests the audit sends anyway. */
export const SERIES_SHARED = [UNIT_THRICE, RULE_IN_USER, GREEDY_COUNT, USAGE_SERIES] as const;

export function seriesOf(ctx: ProbeContext): Promise<Series> {
  return ctx.shared(USAGE_SERIES);
}

/** Why an exchange gives no prompt count, as a verdict; undefined when it gives one. */
function noCount(x: Exchange, what: string): ProbeVerdict | undefined {
  if (!x.ok) {
    if (x.cause) return errored(x.cause, x, `expected ${what} to be answered with usage, got ${describeFailure(x)}`);
    return inconclusive(`${what} was refused (${describeFailure(x)}): no count to read`);
  }
  if (x.truncated) return inconclusive(`${what}: ${ourCut(x)}`);
  if (errorIn2xx(x.json)) {
    const problem = answerProblem(x, 'choice')!;
    return { ...inconclusive(`${what} got ${problem}: no count to read`), findings: [warn('error_in_2xx', `an error in a 2xx: ${problem}`)] };
  }
  const u = x.usage;
  if (!u) return inconclusive(`${what} was answered without usage: a server that reports no usage shows nothing of what it counts`);
  if (!Number.isInteger(u.promptTokens) || u.promptTokens < 0) return inconclusive(`${what} reported prompt_tokens ${u.promptTokens}, no count of tokens`);
  return undefined;
}

const CHECK_NAMES: Record<CheckText, string> = { ruleInUser: 'the instruction in a user message', countPrompt: 'the counting prompt' };

export interface Fit {
  /** prompt_tokens at each series point, by copies of the unit. */
  points: { k: number; prompt: number }[];
  /** prompt_tokens of each free point that has a count. */
  checks: { text: CheckText; prompt: number }[];
  /** Every copy of the unit adds the same whole number of tokens. */
  exact: boolean;
  intercept: number;
  /** The server's count of the unit: the growth per copy (not a whole number when the fit is not exact). */
  slope: number;
  /** The family whose count of the unit is the slope, when the fit is exact. */
  slopeFamily?: Family;
  /** The free points that family counts otherwise, in words. */
  offChecks: string[];
  /** The slope's family, when it counts every free point exactly too. */
  family?: Family;
}

/** The points in words: "prompt_tokens 36 and 108 for the unit × 0 and 3; 47 for the instruction in a user message; …". */
export function describePoints(fit: Pick<Fit, 'points' | 'checks'>): string {
  const series = `prompt_tokens ${fit.points.map((p) => p.prompt).join(' and ')} for the unit × ${fit.points.map((p) => p.k).join(' and ')}`;
  return [series, ...fit.checks.map((c) => `${c.prompt} for ${CHECK_NAMES[c.text]}`)].join('; ');
}

/**
 * The fit of prompt_tokens on the copies sent (TrueLLMs). Exact means every copy adds the same whole number
 * of tokens, as a tokenizer's count does (a copy is cut the same wherever it stands: the table's test checks
 * that in each family, under each known template), and that number is a family's count of the unit; the
 * family named must also count each free point exactly (its text's tokens beyond the smoke prompt's, the
 * template the same). A near fit is no fit: an estimate (characters / 4, a gateway's guess) or a count that
 * changes between requests is off by a token somewhere, and names nothing; so is one coincidence of a
 * tokenizer outside the table, which the free points' other texts do not repeat.
 */
export function fitSeries(series: Series): { fit: Fit } | { verdict: ProbeVerdict } {
  for (const k of SERIES_COPIES) {
    const p = series.points.find((q) => q.k === k);
    const what = k === 0 ? "the smoke call (the series' first point)" : `the series request with the unit × ${k}`;
    if (!p) return { verdict: inconclusive(`${what} was not sent`) };
    const why = noCount(p.x, what);
    if (why) return { verdict: why };
  }
  const prompt = (k: number) => series.points.find((q) => q.k === k)!.x.usage!.promptTokens;
  const intercept = prompt(0);
  const last = SERIES_COPIES[SERIES_COPIES.length - 1]!;
  const slope = (prompt(last) - intercept) / last;
  const points = SERIES_COPIES.map((k) => ({ k, prompt: prompt(k) }));
  const exact = Number.isInteger(slope) && points.every((p) => p.prompt === intercept + p.k * slope);
  // A free point without a count checks nothing; the series alone still names the family.
  const checks = series.checks.filter((c) => noCount(c.x, CHECK_NAMES[c.text]) === undefined).map((c) => ({ text: c.text, prompt: c.x.usage!.promptTokens }));
  const slopeFamily = exact ? FAMILIES.find((f) => row(f).counts.unitA === slope) : undefined;
  const offChecks = slopeFamily
    ? checks
        .filter((c) => c.prompt - intercept !== row(slopeFamily).counts[c.text] - row(slopeFamily).counts.smoke)
        .map((c) => `${CHECK_NAMES[c.text]} counts ${c.prompt - intercept} tokens beyond the smoke prompt, where ${familyLabel(slopeFamily)} counts ${row(slopeFamily).counts[c.text] - row(slopeFamily).counts.smoke}`)
    : [];
  const fit: Fit = { points, checks, exact, intercept, slope, offChecks };
  if (slopeFamily) fit.slopeFamily = slopeFamily;
  // Named only where a free point confirms it: the series alone is one number, which a tokenizer outside
  // the table may happen to share with a family of it.
  if (slopeFamily && offChecks.length === 0 && checks.length > 0) fit.family = slopeFamily;
  return { fit };
}

/** The unit's count in each family, in words: "o200k 17, cl100k 20, …". */
const familiesInWords = () => FAMILIES.map((f) => `${f} ${row(f).counts.unitA}`).join(', ');

/** Why no family can be named from this fit, or undefined when one is. */
export function unnamed(fit: Fit): string | undefined {
  const seen = describePoints(fit);
  if (!fit.exact) {
    const last = fit.points[fit.points.length - 1]!;
    return `${seen}: ${last.k} copies add ${last.prompt - fit.intercept} tokens, not the same whole number for each, and a near fit is no fit: the count is no tokenizer's exact count (an estimate, or a count that changes between requests)`;
  }
  if (fit.slope <= 0) return `${seen}: prompt_tokens do not grow with the prompt, so they count nothing of it`;
  if (!fit.slopeFamily) return `${seen}: an exact fit, the unit counted as ${fit.slope} tokens, which no tokenizer of the table counts so (${familiesInWords()}): a tokenizer outside the table`;
  if (!fit.family && fit.offChecks.length === 0) return `${seen}: the unit counted as ${familyLabel(fit.slopeFamily)} counts it (${fit.slope}), but no other prompt of the audit had a count to confirm it (one number a tokenizer outside the table may share)`;
  if (!fit.family) return `${seen}: the unit counted as ${familyLabel(fit.slopeFamily)} counts it (${fit.slope}), but ${fit.offChecks.join(', and ')}: the counts are not that family's`;
  return undefined;
}

/**
 * usage.tokenizer: the family that counts like the server, named only from an exact fit whose slope is
 * that family's count of the unit and whose free points it counts exactly; a model whose name claims
 * another family gets `tokenizer_mismatch` (warn): another model answers under the name, or a gateway
 * counts the prompt itself with its own tokenizer. Anything less is inconclusive, saying why.
 */
export function judgeTokenizer(model: string, series: Series): ProbeVerdict {
  const r = fitSeries(series);
  if ('verdict' in r) return r.verdict;
  const { fit } = r;
  const why = unnamed(fit);
  const claim = claimedFamily(model);
  const expected = 'expected prompt_tokens to grow by the same whole count for every copy of the unit, the count of a known tokenizer that counts the other texts exactly too';
  if (why) return inconclusive(`${expected}; got ${why}${claim ? ` (the name claims ${familyLabel(claim)}: the unit ${row(claim).counts.unitA})` : ''}`);
  const f = fit.family!;
  const checked = fit.checks.length > 0 ? `, and ${fit.checks.map((c) => CHECK_NAMES[c.text]).join(' and ')} as it counts them` : '';
  const seen = `${describePoints(fit)}: exact, the unit ${fit.slope} tokens a copy, as ${familyLabel(f)} counts it${checked}`;
  const findings: Finding[] = [note('tokenizer', `counts like ${familyLabel(f)}: the unit ${fit.slope} tokens a copy (${describePoints(fit)})`)];
  if (claim && claim !== f) {
    findings.push(
      warn(
        'tokenizer_mismatch',
        `the name claims ${familyLabel(claim)} (the unit ${row(claim).counts.unitA} tokens), but the endpoint counts like ${familyLabel(f)} (${fit.slope}): another model answers under this name, or a gateway counts the prompt itself with its own tokenizer (new-api and one-api count with tiktoken when the upstream reports no usage)`,
      ),
    );
  }
  return conformance(findings, `${seen}${claim ? ', the family the name claims' : ''}`);
}

// ---------------------------------------------------------------------------------------------------
// What the endpoint adds to a prompt

/**
 * An overhead this far above what the family's known templates add is a hidden prompt ("hundreds of
 * tokens"): chat templates add tens (Llama 3.1's dated system turn, the largest known, 35); a prompt a
 * relay injects runs to hundreds or thousands (one public audit saw "What is 1+1?" billed 4,186).
 */
export const HIDDEN_MIN = 100;
/** How far the excess must fall when the request brings its own system message to be a default prompt replaced. */
export const REPLACED_DROP = 50;

/** Every known template's overheads across the families, for a tokenizer the fit did not name. */
const ALL_TEMPLATES = FAMILIES.flatMap((f) => row(f).templates);
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * The most tokens a request of these texts can count under the known templates: the family's, or, without
 * one, any tokenizer's (none makes more tokens than the text has bytes) under the largest template known.
 * One token more for a BOS a server may add outside the template.
 */
function most(family: Family | undefined, texts: readonly (keyof typeof COUNTED_TEXTS)[], shape: 'user' | 'system'): number {
  if (family) return texts.reduce((n, t) => n + row(family).counts[t], 0) + Math.max(...row(family).templates.map((t) => t[shape])) + 1;
  return texts.reduce((n, t) => n + utf8(COUNTED_TEXTS[t]), 0) + Math.max(...ALL_TEMPLATES.map((t) => t[shape])) + 1;
}

/** The overhead of the smoke prompt against the family's known templates, in words, as a note. */
function templateNote(family: Family, smokePrompt: number): Finding {
  const overhead = smokePrompt - row(family).counts.smoke;
  const templates = row(family).templates;
  const known = templates.map((t) => `${t.name} ${t.user}`).join(', ');
  const same = templates.filter((t) => t.user === overhead || t.user + 1 === overhead).map((t) => (t.user === overhead ? t.name : `${t.name} with a BOS`));
  const lo = Math.min(...templates.map((t) => t.user));
  const hi = Math.max(...templates.map((t) => t.user));
  const said =
    same.length > 0
      ? `exactly what ${same.join(' or ')} adds`
      : overhead - hi >= HIDDEN_MIN
        ? `${overhead - hi} more than the family's known templates add (${known})`
        : overhead > hi
          ? `${overhead - hi} more than the family's known templates add (${known}): a template the table does not know, or an addition under ${HIDDEN_MIN} tokens, too small to tell from one`
          : overhead < lo
            ? `fewer than any known template of the family adds (${known}): the count leaves part of the prompt out`
            : `within what the family's known templates add (${known})`;
  return note('template', `${smokePrompt} prompt tokens for a message ${familyLabel(family)} counts as ${row(family).counts.smoke}: ${overhead} for the template, ${said}`);
}

/**
 * usage.prompt_overhead: the smoke prompt's count against the text and the family's known chat templates
 * (the series' intercept, or with no family named, any tokenizer's most under the largest template known).
 * An excess of HIDDEN_MIN tokens or more is something added to the prompt. The control is roles.system's
 * request, which brings a system message of its own: an excess that stays there too is a prompt injected
 * into every request (`hidden_prompt`, fail, with its size); one that falls by REPLACED_DROP or more is a
 * default system prompt the client's replaces (the model's template, as Mistral Small 3's, or the
 * gateway's): a note. Without that control a large excess is inconclusive.
 */
export function judgeOverhead(series: Series, withSystem: Exchange): ProbeVerdict {
  const smoke = series.points.find((p) => p.k === 0)?.x;
  const noSmoke = smoke ? noCount(smoke, 'the smoke call') : inconclusive('no smoke call to read');
  if (noSmoke) return noSmoke;
  const r = fitSeries(series);
  // Counts that do not grow with the prompt count nothing of it: their size says nothing of a hidden prompt.
  if ('fit' in r && r.fit.exact && r.fit.slope <= 0) return inconclusive(`${unnamed(r.fit)}: no overhead to read from them`);
  const family = 'fit' in r ? r.fit.family : undefined;
  const basis = family
    ? `counted as ${familyLabel(family)} counts (the series' exact fit)`
    : `with no tokenizer named (${'verdict' in r ? r.verdict.observed : unnamed(r.fit)}), bounded by the bytes of the text under the largest template known`;
  const p = smoke!.usage!.promptTokens;
  const mostUser = most(family, ['smoke'], 'user');
  const mostSys = most(family, ['rule', 'question'], 'system');
  const excess = p - mostUser;
  const sys = noCount(withSystem, 'the request with a system message') === undefined ? withSystem.usage!.promptTokens : undefined;
  const excessSys = sys === undefined ? undefined : sys - mostSys;
  const findings: Finding[] = family ? [templateNote(family, p)] : [];
  const expected = `expected the prompt's count to be its text and the chat template's tokens, ${basis}`;
  const size = (e: number, prompt: number, texts: readonly (keyof typeof COUNTED_TEXTS)[], shape: 'user' | 'system') => {
    if (!family) return `at least ${e} tokens`;
    const text = texts.reduce((n, t) => n + row(family).counts[t], 0);
    const sizes = row(family).templates.map((t) => prompt - text - t[shape]);
    const lo = Math.min(...sizes);
    const hi = Math.max(...sizes);
    return lo === hi ? `${lo} tokens` : `${lo} to ${hi} tokens (by the template)`;
  };
  if (excessSys !== undefined && excessSys >= HIDDEN_MIN) {
    const where = excess >= HIDDEN_MIN ? 'to every request, with or without a system message of the client\'s' : 'to a request that brings its own system message (not to one without)';
    findings.push(
      fail(
        'hidden_prompt',
        `a hidden prompt of ${size(excessSys, sys!, ['rule', 'question'], 'system')} is added ${where}, and counted: ${p} prompt tokens for the smoke prompt, where its text and a known template make at most ${mostUser}; ${sys} for a system message and a question, at most ${mostSys}`,
      ),
    );
    return conformance(findings, '');
  }
  if (excess >= HIDDEN_MIN) {
    const seen = `${p} prompt tokens for the smoke prompt, where its text and a known template make at most ${mostUser} (${size(excess, p, ['smoke'], 'user')} added)`;
    if (excessSys === undefined) {
      return { ...inconclusive(`${expected}; got ${seen}, and the request with a system message of its own has no count (${noCount(withSystem, 'it')!.observed}): an injected prompt cannot be told from a default system prompt the client's would replace`), findings };
    }
    if (excessSys <= excess - REPLACED_DROP) {
      findings.push(
        note(
          'default_prompt',
          `a default system prompt of ${size(excess, p, ['smoke'], 'user')} is counted when the request has no system message, and gone when it brings one (${sys} prompt tokens for a system message and a question, where they and a known template make at most ${mostSys}): the chat template's own (Mistral Small 3 has one) or the gateway's, replaced by the client's`,
        ),
      );
      return conformance(findings, `${seen}: a default system prompt, replaced by a system message of the client's`);
    }
    return { ...inconclusive(`${expected}; got ${seen}, and ${sys} for a system message and a question, where they make at most ${mostSys}: neither clearly the same excess (injected) nor clearly gone (a default replaced)`), findings };
  }
  const sysSaid = sys === undefined ? '' : `; ${sys} for a system message and a question (at most ${mostSys})`;
  return conformance(findings, `${p} prompt tokens for the smoke prompt, where its text and a known template make at most ${mostUser}${sysSaid}: less than ${HIDDEN_MIN} over, so no hidden prompt`);
}

// ---------------------------------------------------------------------------------------------------
// How the endpoint counts an answer

/** The fewest tokens a counted answer needs: below it one token more (an end-of-turn token) is a large ratio. */
export const MIN_COUNTED = 12;
/** Tokens a server may count beyond the text: the end-of-turn token it generated, and one more it emits on the way. */
export const END_SLACK = 2;

/**
 * usage.completion: the completion tokens of the greedy counting answer against the text as the family the
 * series named counts it (a known text: "1, 2, …, 20" or the part of it a limit let through, each number
 * cut in the family's digit groups). Counted only when the answer is exactly that text: a model too weak
 * to echo it, or one that writes it otherwise, gives a text no table counts. Reasoning tokens, where
 * reported, are taken off; reasoning without them makes it inconclusive. Within END_SLACK above the
 * text's count: pass. INFLATED_RATIO or more: `usage_inflated` (warn), as the length probes' rule says it
 * (suites/support/length.ts). Anything else: `completion_count` (warn): the answer is counted otherwise
 * than the prompt.
 */
export function judgeCompletion(series: Series, answer: Exchange, control: Exchange): ProbeVerdict {
  const r = fitSeries(series);
  if ('verdict' in r) return inconclusive(`no tokenizer named to count the answer with: ${r.verdict.observed}`);
  const why = unnamed(r.fit);
  if (why) return inconclusive(`no tokenizer named to count the answer with: ${why}`);
  const family = r.fit.family!;
  const problem = answerProblem(answer, 'choice');
  if (problem) {
    const v = inconclusive(`${problem}: no answer to count`);
    if (answer.ok && errorIn2xx(answer.json)) v.findings = [warn('error_in_2xx', `an error in a 2xx: ${problem}`)];
    return v;
  }
  const u = answer.usage;
  if (!u) return inconclusive('the counting answer was given without usage: no count to check');
  const text = readChoices(answer.json)[0]?.content ?? '';
  if (text === '' || !COUNTING_TEXT.startsWith(text)) {
    return inconclusive(`expected the counting text "1, 2, …" to count, got ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)}: a model too weak to write it, or one that writes it otherwise, gives a text whose tokens are not known`);
  }
  const expected = countingTokens(text, row(family).digitGroup);
  if (expected < MIN_COUNTED) return inconclusive(`the counting answer is ${expected} tokens long: too short for its count to show a ratio`);
  const reasoning = readReasoning(answer.json);
  const smokeReasons = readReasoning(control.json).place !== undefined;
  if ((reasoning.place !== undefined || smokeReasons) && reasoning.reasoningTokens === undefined) {
    return inconclusive(`the model reasons (${reasoning.place ? `this answer's ${reasoning.place}` : 'its plain answer shows it'}), and the usage does not report its reasoning tokens apart: what the count holds beyond the text cannot be told`);
  }
  const thought = reasoning.reasoningTokens ?? 0;
  const reported = u.completionTokens - thought;
  const said = `${u.completionTokens} completion tokens${thought > 0 ? ` (${thought} of them reasoning)` : ''} for ${text.length < COUNTING_TEXT.length ? 'the start of the counting text' : 'the counting text'}, which ${familyLabel(family)} counts as ${expected}`;
  const ratio = reported / expected;
  if (reported >= expected && reported <= expected + END_SLACK) {
    // Cut at our limit, the answer's count is the limit too: what a gateway that reports the limit asked for
    // would say as well, so such a pass speaks for this answer only (the inflated counts below still show).
    const cut = readChoices(answer.json)[0]?.finishReason === 'length' ? ' (the answer cut at our output limit, where a gateway reporting the limit asked for says the same)' : '';
    return conformance([note('completion', `${said}: ratio ${ratio.toFixed(2)}${cut}`)], `${said}: the answer counted as the prompt's tokenizer counts it${cut}`);
  }
  if (ratio >= INFLATED_RATIO) {
    return conformance(
      [warn('usage_inflated', `usage reports ${ratio.toFixed(1)}× the completion tokens of the text (${said}): a billing fault (a client billed by this usage pays for tokens it never got)`)],
      '',
    );
  }
  return conformance(
    [warn('completion_count', `${said}: ratio ${ratio.toFixed(2)}, counted otherwise than the tokenizer that counts the prompt (another tokenizer for the answer, a gateway's recount, or tokens the answer does not show)`)],
    '',
  );
}

// ---------------------------------------------------------------------------------------------------
// Answers handed back again

/** What a sample shows of itself: its id and its answer (the content, or the reasoning when the content is empty). */
function sampleOf(x: Exchange): { id: string | undefined; text: string } {
  const c = readChoices(x.json)[0];
  const id = typeof (x.json as { id?: unknown } | undefined)?.id === 'string' ? ((x.json as { id: string }).id || undefined) : undefined;
  return { id, text: c?.content || c?.reasoning || '' };
}

/**
 * usage.cache: repeated identical requests answered anew. A replay is two answers to the same request with
 * the same id and the same text: the id of a completion is made per answer, and an answer handed back
 * again keeps it (`cached_replay`, warn: sampling, seeds and a billing that counts calls all see one answer
 * twice). The control: a request of another text gets another id (a server that gives every answer the
 * same id says nothing through ids). The answers at temperature 1 all alike, each with its own id, are
 * inconclusive: a cache that renews ids cannot be told from a model or server that does not sample there.
 */
export function judgeCache(t1: readonly Exchange[], t0: readonly Exchange[], others: readonly Exchange[]): ProbeVerdict {
  const readable = (xs: readonly Exchange[]) => xs.filter((x) => x.ok && !answerProblem(x, 'ended'));
  const bad = [...t1, ...t0].find((x) => x.ok && answerProblem(x, 'ended'));
  if (bad) {
    const problem = answerProblem(bad, 'ended')!;
    const v = inconclusive(`${problem}: every sample must be a readable answer`);
    if (errorIn2xx(bad.json)) v.findings = [warn('error_in_2xx', `an error in a 2xx: ${problem}`)];
    return v;
  }
  const hot = readable(t1);
  const cold = readable(t0);
  if (hot.length < 2) {
    const failed = t1.find((x) => !x.ok);
    return inconclusive(`fewer than two answers to the same request at temperature 1${failed ? ` (${describeFailure(failed)})` : ''}: nothing to compare`);
  }
  const otherIds = new Set(others.filter((x) => x.ok).map((x) => sampleOf(x).id).filter((id): id is string => id !== undefined));
  const sets = [
    { name: 'answers at temperature 1', xs: hot },
    { name: 'answers at temperature 0', xs: cold },
  ];
  const replays: string[] = [];
  let hotReplay = false;
  let sharedId = false;
  /** The texts each id came with, over both sets: an id with two texts is not made per answer. */
  const textsOf = new Map<string, Set<string>>();
  for (const s of sets) {
    // Answers by id and text: a group of more than one is one answer handed back again.
    const groups = new Map<string, number>();
    for (const x of s.xs) {
      const { id, text } = sampleOf(x);
      if (id === undefined) continue;
      if (otherIds.has(id)) sharedId = true;
      textsOf.set(id, (textsOf.get(id) ?? new Set()).add(text));
      const key = JSON.stringify([id, text]);
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    for (const [key, n] of groups) {
      if (n < 2) continue;
      const [id, text] = JSON.parse(key) as [string, string];
      if (s.xs === hot) hotReplay = true;
      replays.push(`${n} of the ${s.xs.length} ${s.name} are ${JSON.stringify(id)}, ${JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text)}`);
    }
  }
  if ([...textsOf.values()].some((t) => t.size > 1)) sharedId = true;
  const texts = new Set(hot.map((x) => sampleOf(x).text));
  const counted = `${hot.length} identical requests at temperature 1${cold.length > 0 ? ` and ${cold.length} at 0` : ''}`;
  if (sharedId) {
    return inconclusive(`${counted}: an id also given to a request of another text, so ids are not made per answer and say nothing of a replay${texts.size === 1 ? '; and every answer at temperature 1 is the same' : ''}`);
  }
  // At temperature 0 an honest server repeats its text, and an id made from the time or drawn from a small
  // range (Ollama's) can repeat beside it: a replay counts only where sampling should differ.
  if (replays.length > 0 && !hotReplay) {
    return inconclusive(`${counted}: the same id and text only among the answers at temperature 0 (${replays.join('; ')}), where a greedy server repeats its text and ids made from the time can repeat too: no replay where sampling should differ`);
  }
  if (replays.length > 0) {
    return conformance(
      [warn('cached_replay', `identical requests got an earlier answer back, id and text the same (${replays.join('; ')}): a response cache answers repeated requests, so sampling and seeds show nothing there, and a replay may be billed as a call`)],
      '',
    );
  }
  if (texts.size === 1) {
    return inconclusive(`${counted}: every answer at temperature 1 is ${JSON.stringify([...texts][0])}, each with its own id: a cache that gives new ids cannot be told from a model or server that does not sample`);
  }
  return conformance([], `${counted}: each answer its own id, ${texts.size} distinct answers at temperature 1: nothing handed back again`);
}

// ---------------------------------------------------------------------------------------------------
// Tokens as the named family counts them, for the billing probes

/**
 * How the family the series named counts a request of one user message: the text's tokens (the table's)
 * and the template's, as the smoke call showed it when that is a known template of the family (with or
 * without a BOS), else the largest known and a BOS: the most an honest count can be.
 */
export interface TokenCounter {
  family: Family;
  /** Template tokens added to a one-user-message request. */
  overhead: number;
  /** Where `overhead` comes from, in words. */
  template: string;
}

/** The counter of the family the series names from an exact fit, or undefined when it names none. */
export function counterOf(series: Series): TokenCounter | undefined {
  const r = fitSeries(series);
  if ('verdict' in r || !r.fit.family) return undefined;
  const f = r.fit.family;
  const seen = r.fit.intercept - row(f).counts.smoke;
  const known = row(f).templates.find((t) => t.user === seen || t.user + 1 === seen);
  if (known) return { family: f, overhead: seen, template: `${known.name}'s template${known.user === seen ? '' : ' with a BOS'} (${seen}, as the smoke call showed)` };
  const most = Math.max(...row(f).templates.map((t) => t.user)) + 1;
  return { family: f, overhead: most, template: `at most ${most} for a known template of the family and a BOS (the smoke call showed ${seen})` };
}

/** The counting text "1, 2, …, to". */
export const countingText = (to: number): string => Array.from({ length: to }, (_, i) => String(i + 1)).join(', ');

/** Tokens of a counted text's prompt (one user message) as the counter's family counts them. */
export function countedPrompt(c: TokenCounter, text: CountedText): number {
  return row(c.family).counts[text] + c.overhead;
}

/** Tokens of an answer that is the start of "1, 2, …, to" as the counter's family counts it; undefined for any other text. */
export function countedAnswer(c: TokenCounter, text: string, to: number): number | undefined {
  if (text === '' || !countingText(to).startsWith(text)) return undefined;
  return countingTokens(text, row(c.family).digitGroup);
}
