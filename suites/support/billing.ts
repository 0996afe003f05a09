import { defineShared, SMOKE_PROMPT, type ChatBody, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { conformance, describeFailure, errored, fail, inconclusive, note, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { METERED_KEY, type MeteredCall, type MeteredLabel, type MeteredSet } from '../../src/billing/set.js';
import { billingView } from '../../src/billing/view.js';
import { CALIBRATION_MS, fmt, memoryOf, MeterWatch, spanFor } from '../../src/billing/watch.js';
import { attribution, latenessOf, watchedMs } from '../../src/billing/settle.js';
import { pricedAsOther } from '../../src/billing/priced-as.js';
import { listedCost, priceCall, tolerance as within } from '../../src/billing/prices.js';
import { BILLING_COUNT_TO, countingPrompt } from './prompts.js';
import { readChoices } from '../../src/wire/completion.js';
import { countedAnswer, countedPrompt, counterOf, END_SLACK, familyLabel, USAGE_SERIES, type TokenCounter } from './usage.js';

/**
 * The known set: each call with an explicit limit. `plain` asks for more than its limit allows, so the
 * limit ends it; `stream` is the same request streamed with usage asked for; `short` asks for one word
 * under a limit four times larger (billed by the limit, it would cost more than `plain`); `failed` carries
 * a role no server accepts.
 */
export const BILLING_LIMITS = { plain: 16, short: 64, failed: 16 } as const;
const PLAIN: ChatBody = { messages: [{ role: 'user', content: countingPrompt(BILLING_COUNT_TO) }], max_tokens: BILLING_LIMITS.plain, temperature: 0 };
const SHORT: ChatBody = { messages: [{ role: 'user', content: SMOKE_PROMPT }], max_tokens: BILLING_LIMITS.short, temperature: 0 };
const FAILED: ChatBody = { messages: [{ role: 'chatprobe-invalid-role', content: SMOKE_PROMPT }], max_tokens: BILLING_LIMITS.failed };

const STREAM: ChatBody = { ...PLAIN, stream_options: { include_usage: true } };

const CALLS: readonly { label: MeteredLabel; body: ChatBody; stream?: true }[] = [
  { label: 'plain', body: PLAIN },
  { label: 'stream', body: STREAM, stream: true },
  { label: 'short', body: SHORT },
  { label: 'failed', body: FAILED },
];

/**
 * The set, sent serially with the balance read before and after each call. Only ever made by the billing
 * probes, which run alone, when nothing else is in flight (`schedule: 'alone'`, engine/schedule.ts).
 */
export const METERED_SET = defineShared<MeteredSet>({
  key: METERED_KEY,
  cost: { requests: CALLS.length, maxTokens: BILLING_LIMITS.plain * 2 + BILLING_LIMITS.short + BILLING_LIMITS.failed },
  // The model's row keeps the set's numbers (report.json models[].billing, the matrix's billing table).
  summary: (set) => ({ billing: billingView(set) }),
  async make(ctx: ProbeContext): Promise<MeteredSet> {
    const m = ctx.meter;
    if (!m) throw new Error('the billing set is made only by a probe that declares a meter, once a balance route answered');
    const memory = memoryOf(m);
    const set: MeteredSet = { meter: { kind: m.kind, route: m.route, unit: m.unit, step: m.step }, calls: [], windowMs: CALIBRATION_MS, model: ctx.model };
    if (ctx.options.prices) set.prices = ctx.options.prices;
    if (memory.lateMs !== undefined) set.knownLateMs = memory.lateMs;
    if (memory.settled) set.afterSettled = true;
    // Settled again only once this set's control read agrees.
    memory.settled = false;
    // What is learnt of the meter's lateness is the run's, for the next model's set too.
    const learn = (ms: number | undefined) => {
      if (ms !== undefined) memory.lateMs = Math.max(memory.lateMs ?? 0, ms);
    };
    // The tokenizer the usage series named, where the usage probes made it (nothing is sent for it here).
    const series = await ctx.made?.(USAGE_SERIES);
    const counter = series ? counterOf(series) : undefined;
    if (counter) set.countedBy = `${familyLabel(counter.family)} (usage.tokenizer's exact fit), the prompt with ${counter.template}`;
    const w = new MeterWatch(m);
    const start = await w.quiet({ knownLateMs: memory.lateMs, settled: set.afterSettled === true });
    if ('problem' in start) return { ...set, unmeasurable: start.problem };
    set.quiet = start.movedAtMs === undefined ? { ms: start.ms } : { ms: start.ms, movedAtMs: start.movedAtMs };
    learn(start.movedAtMs);
    let before = start.used;
    for (const call of CALLS) {
      const sentAt = w.now;
      // Sent once, and with the limits as written: the bill is compared with them (no room for reasoning).
      const x = call.stream ? await ctx.stream(call.body, { once: true, exact: true }) : await ctx.chat(call.body, { once: true, exact: true });
      const answeredAt = w.answered(x);
      const after = await w.watch(call.label, before, { knownLateMs: memory.lateMs, late: (memory.lateMs ?? 0) > 0, calibrate: call.label === 'plain' && !set.afterSettled, first: call.label === 'plain' });
      if ('problem' in after) return { ...set, unmeasurable: after.problem };
      const c: MeteredCall = { label: call.label, x, limit: call.body.max_tokens as number, deducted: after.used - before, sentAt, untilAt: after.untilAt };
      // The plain call and the stream send a known text (usage-texts.ts billingPrompt), and ask for one.
      const counted = counter && (call.label === 'plain' || call.label === 'stream') ? countedCall(counter, x) : undefined;
      if (counted) c.counted = counted;
      if (answeredAt !== sentAt) c.answeredAt = answeredAt;
      if (after.lagMs !== undefined) c.lagMs = after.lagMs;
      if (after.atOnce) c.atOnce = true;
      // A charge shown at the first read was shown at once: that read's own time is no lateness.
      learn(after.atOnce ? 0 : after.lagMs);
      set.calls.push(c);
      before = after.used;
      if (call.label === 'plain' && c.lagMs === undefined) {
        // Nothing moved for CALIBRATION_MS after it: no charge of the run is pending either.
        memory.settled = true;
        return { ...set, unbilled: `the balance did not move within ${(CALIBRATION_MS / 1000).toFixed(1)} s of the plain call (${usageText(x)}): a free model, or a gateway that bills later than that; the other calls were not sent` };
      }
      if (c.deducted < 0) return { ...set, unmeasurable: `the amount used went down by ${fmt(-c.deducted)} ${m.unit} after the ${call.label} call: a refund of an earlier charge, so deductions cannot be given to calls` };
    }
    set.windowMs = spanFor(latenessOf(set));
    // The control: a charge that arrives after its call seemed settled would have been given to the next call.
    const lastCall = set.calls.at(-1)!;
    const stillSince = lastCall.lagMs === undefined ? lastCall.sentAt : (lastCall.answeredAt ?? lastCall.sentAt) + lastCall.lagMs;
    const control = await w.control(before, set.windowMs, stillSince);
    if ('problem' in control) {
      // The meter is later than this set learnt: the next set knows it (its quiet check and windows wait that long).
      learn(w.now - (lastCall.answeredAt ?? lastCall.sentAt));
      return { ...set, unmeasurable: control.problem };
    }
    set.controlAt = control.at;
    memory.settled = true;
    return set;
  },
});

export { fmt };

/**
 * A counting call's tokens as the counter's family counts them: the prompt sent (the table's count, under
 * the template the smoke call showed) and the answer's text, where it is the start of "1, 2, …" and nothing
 * was reasoned (what reasoning costs, no text shows); undefined otherwise.
 */
function countedCall(counter: TokenCounter, x: Exchange): { prompt: number; completion: number } | undefined {
  if (!x.ok) return undefined;
  const streamed = (x as Partial<StreamExchange>).assembled?.choices.get(0);
  const choice = streamed ?? readChoices(x.json)[0];
  if (!choice || choice.reasoning) return undefined;
  const completion = countedAnswer(counter, choice.content ?? '', BILLING_COUNT_TO);
  return completion === undefined ? undefined : { prompt: countedPrompt(counter, 'billingPrompt'), completion };
}

interface Usage {
  prompt: number;
  completion: number;
}

function usageOf(x: Exchange): Usage | undefined {
  return x.usage ? { prompt: x.usage.promptTokens, completion: x.usage.completionTokens } : undefined;
}

function usageText(x: Exchange): string {
  const u = usageOf(x);
  return u ? `usage ${u.prompt} prompt + ${u.completion} completion tokens` : 'no usage reported';
}

/** One call in words: what it was, what came back, what it cost. */
export function describeMetered(c: MeteredCall, unit: string): string {
  const answer = c.x.ok ? `HTTP ${c.x.status}` : describeFailure(c.x);
  return `${c.label}: ${answer}, ${usageText(c.x)}, billed ${fmt(c.deducted)} ${unit}`;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * How the set was watched, said in the cell where the meter showed any lateness: how long the balance was
 * watched before the calls (and how late the audit's own charges were still landing), and how late this
 * meter showed charges (the spans every call was given).
 */
function settlementNote(set: MeteredSet): Finding[] {
  const late = latenessOf(set);
  if (late === 0 || !set.quiet || set.calls.length === 0) return [];
  const landed = set.quiet.movedAtMs === undefined ? '' : ` (a charge of the audit's earlier calls landed ${secs(set.quiet.movedAtMs)} into it)`;
  const known = set.knownLateMs ? `, ${secs(set.knownLateMs)} in this run before this model` : '';
  // What was measured: each call from its answer to the read its deduction was counted to (the last call's: the control read).
  const watched = Math.min(...set.calls.map((_, i) => watchedMs(set, i)));
  return [
    note(
      'settlement',
      `the balance was watched ${secs(set.quiet.ms)} with nothing sent before the calls${landed}; this meter showed charges up to ${secs(late)} after their call${known}, and each call was watched at least ${secs(watched)} after its answer`,
    ),
  ];
}

/** The verdict when the set cannot say anything about `needs`, else undefined. */
function unmeasured(set: MeteredSet, needs: readonly MeteredLabel[]): ProbeVerdict | undefined {
  if (set.unmeasurable) return inconclusive(set.unmeasurable);
  const plain = set.calls.find((c) => c.label === 'plain');
  if (plain && !plain.x.ok) {
    const what = `the plain call failed (${describeFailure(plain.x)}), so nothing billed can be compared with it`;
    return plain.x.cause ? errored(plain.x.cause, plain.x, what) : inconclusive(what);
  }
  if (set.unbilled) return inconclusive(set.unbilled);
  for (const label of needs) {
    const c = set.calls.find((x) => x.label === label);
    if (!c) return inconclusive(`the ${label} call was not sent`);
    if (label !== 'failed' && !c.x.ok) {
      const what = `the ${label} call failed (${describeFailure(c.x)})`;
      return c.x.cause ? errored(c.x.cause, c.x, what) : inconclusive(what);
    }
  }
  // A deduction is weighed only when it can be given to its call: never a verdict on a late charge.
  const unattributed = attribution(set);
  for (const label of needs) {
    const why = unattributed.get(label);
    if (why) return { ...inconclusive(why), findings: settlementNote(set) };
  }
  return undefined;
}

const call = (set: MeteredSet, label: MeteredLabel): MeteredCall => set.calls.find((c) => c.label === label)!;

/** How far a deduction may stray from an exact figure: the meter's step, and 2% for rounding in the gateway's prices. */
function tolerance(set: MeteredSet, ...amounts: number[]): number {
  return within(set.meter.step, ...amounts);
}

/**
 * The range `b`'s deduction may take given `a`'s, when a deduction is a fixed fee plus a price per prompt
 * token plus a price per completion token, none negative: the ratio of the deductions lies between the
 * smallest and the largest of 1 (the fee), the ratio of prompt tokens and the ratio of completion tokens.
 */
export function deductionRange(a: Usage, b: Usage): [number, number] {
  const ratios = [1];
  if (a.prompt > 0) ratios.push(b.prompt / a.prompt);
  if (a.completion > 0) ratios.push(b.completion / a.completion);
  return [Math.min(...ratios), Math.max(...ratios)];
}

/**
 * The calls `labels` beside the price list (--prices), when one was given: each deduction against what the
 * list says the model asked costs for the tokens the endpoint reported. More than the list says fails,
 * less warns (the list may be out of date, or a discount applies); a deduction that is what another model
 * of the list costs names it (a call billed, perhaps served, as another model).
 */
function priceFindings(set: MeteredSet, labels: readonly MeteredLabel[]): Finding[] {
  const list = set.prices;
  if (!list || set.model === undefined) return [];
  const unit = set.meter.unit;
  const out: Finding[] = [];
  const matched: string[] = [];
  const other = pricedAsOther(set);
  const counted: Finding[] = [];
  for (const label of labels) {
    const c = call(set, label);
    const p = priceCall(list, set.model, c, set.meter);
    if (!p) continue;
    if ('missing' in p) return [note('unpriced', `${p.missing}: no deduction was set beside a price`)];
    const u = usageOf(c.x)!;
    const beyond = beyondCount(set, c, u);
    if (beyond) counted.push(beyond);
    const said = `the ${label} call was billed ${fmt(c.deducted)} ${unit}, and the price list (${list.from}) says ${fmt(p.expected)} for ${set.model} at ${u.prompt} prompt + ${u.completion} completion tokens`;
    if (p.matches) {
      matched.push(`${label} ${fmt(c.deducted)}`);
      continue;
    }
    const over = c.deducted > p.expected;
    if (other !== undefined) {
      out.push((over ? fail : warn)('priced_as_other', `${said}: what ${other} costs there, as every billed call of the set was (billed as another model${over ? ', dearer' : ', cheaper'})`));
    } else if (over && list.models[set.model]?.outputGuessed && u.completion > 0) {
      // The control: the list's own completion price. Without one the output was priced at a guessed ratio of 1.
      out.push(warn('billed_above_price', `${said}: billed more than the list says, but the list gives no completion ratio for ${set.model} (taken as 1; new-api's built-in ratio for it may be higher)`));
    } else if (over) {
      out.push(fail('billed_above_price', `${said}: billed more than the list says`));
    } else {
      out.push(warn('billed_below_price', `${said}: billed less than the list says (an old list, a discount, or usage the gateway counts otherwise)`));
    }
  }
  if (out.length === 0 && counted.length === 0 && matched.length > 0) out.push(note('listed_price', `billed as the price list (${list.from}) says for ${set.model} (${matched.join(', ')} ${unit})`));
  return [...out, ...counted];
}

/**
 * A call billed more than the price list says for the tokens the named tokenizer counts of it (the prompt
 * sent, the answer's text, END_SLACK tokens more for an end of turn): a gateway that reports inflated usage
 * and bills by it (its deduction matches the list for the usage it reports), or one that reports honest
 * usage and charges for more. The control is the tokenizer: usage.tokenizer named it from an exact fit, and
 * it counts the audit's other prompts exactly.
 */
function beyondCount(set: MeteredSet, c: MeteredCall, u: Usage): Finding | undefined {
  const list = set.prices!;
  const own = list.models[set.model!];
  if (!own || !c.counted) return undefined;
  const n = c.counted;
  const most = listedCost(list, own, { prompt: n.prompt, completion: n.completion + END_SLACK }, set.meter.unit);
  if (most === undefined || c.deducted <= most + within(set.meter.step, most, c.deducted)) return undefined;
  const unit = set.meter.unit;
  const said = `the ${c.label} call was billed ${fmt(c.deducted)} ${unit}, and the price list (${list.from}) says at most ${fmt(most)} for the tokens ${set.countedBy} counts: ${n.prompt} prompt (the prompt sent) + ${n.completion} completion (the answer's text), ${END_SLACK} more for an end of turn`;
  const inflated = u.prompt > n.prompt || u.completion > n.completion + END_SLACK;
  const why = inflated
    ? `usage reports ${u.prompt} + ${u.completion}, more than the tokenizer counts, and the bill follows it: usage inflated, or a prompt added unseen (usage.prompt_overhead and usage.completion say which)`
    : `usage reports ${u.prompt} + ${u.completion}, what the tokenizer counts, yet the bill is more: charged for tokens the usage does not show`;
  return fail('billed_above_count', `${said}; ${why}`);
}

/** billing.failed_call: a refused request costs nothing. */
export function judgeFailedCall(set: MeteredSet): ProbeVerdict {
  const no = unmeasured(set, ['failed']);
  if (no) return no;
  const failed = call(set, 'failed');
  const unit = set.meter.unit;
  if (failed.x.ok) return inconclusive(`the request with an invalid role was answered (HTTP ${failed.x.status}), so no refused call was seen: ${describeMetered(failed, unit)}`);
  if (failed.x.cause && failed.x.status === undefined) return errored(failed.x.cause, failed.x, `the request meant to be refused got no answer: ${describeFailure(failed.x)}`);
  // A refused call's zero proves something only where a call of this model was seen billed, and that
  // charge is its own (a free model bills nothing either way).
  const unattributed = attribution(set);
  const billed = set.calls.find((c) => c.label !== 'failed' && c.deducted > 0 && !unattributed.has(c.label));
  if (!billed) return { ...inconclusive(`no call of this model was seen billed with a charge that is its own, so a refused call's zero proves nothing: ${set.calls.map((c) => describeMetered(c, unit)).join('; ')}`), findings: settlementNote(set) };
  const seen = `${describeMetered(failed, unit)}; ${describeMetered(billed, unit)}`;
  if (failed.deducted > 0) {
    return conformance([fail('failed_call_billed', `a refused request was billed: ${seen}`), ...settlementNote(set)], '');
  }
  return conformance([note('deductions', seen), ...settlementNote(set)], `refused (${describeFailure(failed.x)}) and not billed; the ${billed.label} call was billed ${fmt(billed.deducted)} ${unit}`);
}

/** billing.stream: a streamed request is billed as the same request unstreamed. */
export function judgeStreamBilling(set: MeteredSet): ProbeVerdict {
  const no = unmeasured(set, ['plain', 'stream']);
  if (no) return no;
  const plain = call(set, 'plain');
  const stream = call(set, 'stream');
  const unit = set.meter.unit;
  const seen = `${describeMetered(stream, unit)}; ${describeMetered(plain, unit)}`;
  const also = [...priceFindings(set, ['stream']), ...settlementNote(set)];
  const chunks = (stream.x as StreamExchange).assembled?.chunkCount ?? 0;
  if (stream.deducted === 0 && chunks > 0) {
    return conformance([fail('stream_unbilled', `the stream was answered (${chunks} chunks) and billed nothing: ${seen}`), ...also], '');
  }
  const p = usageOf(plain.x);
  const s = usageOf(stream.x);
  const tol = tolerance(set, plain.deducted, stream.deducted);
  if (!p) return inconclusive(`the plain call reported no usage, so the two deductions cannot be weighed: ${seen}`);
  if (!s) {
    // The plain call used its whole limit; the stream, the same request, can have used no more.
    if (readChoices(plain.x.json)[0]?.finishReason === 'length' && stream.deducted > plain.deducted + tol) {
      return conformance([fail('stream_billed_more', `the stream reported no usage and was billed more than the same request unstreamed, which used its whole limit: ${seen}`), ...also], '');
    }
    return inconclusive(`the stream reported no usage (asked with stream_options.include_usage), so its deduction cannot be weighed: ${seen}`);
  }
  const [lo, hi] = deductionRange(p, s);
  if (stream.deducted > hi * plain.deducted + tol) return conformance([fail('stream_billed_more', `the stream was billed more than its usage allows beside the same request unstreamed: ${seen}`), ...also], '');
  if (stream.deducted < lo * plain.deducted - tol) return conformance([fail('stream_billed_less', `the stream was billed less than its usage requires beside the same request unstreamed: ${seen}`), ...also], '');
  return conformance(
    [note('deductions', seen), ...also],
    `billed ${fmt(stream.deducted)} ${unit} streamed and ${fmt(plain.deducted)} ${unit} unstreamed, as their usage (${s.prompt}+${s.completion} and ${p.prompt}+${p.completion} tokens) allows`,
  );
}

/**
 * Calls whose usage reports more completion tokens than their limit allows. The deductions may follow that
 * usage exactly (what billing.usage weighs them against), yet the client is billed past the limit it set:
 * usage that over-counts (a relay inflating every count: parameters.max_tokens weighs the count against the
 * text) or a limit not kept. A warning either way; which of the two it is, the length probes tell.
 */
function overLimit(set: MeteredSet): Finding[] {
  const over = set.calls.filter((c) => c.label !== 'failed' && c.x.ok && c.x.usage && c.x.usage.completionTokens > c.limit);
  if (over.length === 0) return [];
  const listed = over.map((c) => `${c.label}: ${c.x.usage!.completionTokens} under a limit of ${c.limit}`).join('; ');
  return [warn('usage_over_limit', `usage reports more completion tokens than the limit allows (${listed}), and the deductions follow it: billed past the limit asked for, by usage that over-counts (see parameters.max_tokens) or a limit not kept`)];
}

/** billing.usage: deductions follow the reported usage, not the limit asked for (and, with --prices, the listed price). */
export function judgeFollowsUsage(set: MeteredSet): ProbeVerdict {
  const no = unmeasured(set, ['plain', 'short']);
  if (no) return no;
  const plain = call(set, 'plain');
  const short = call(set, 'short');
  const unit = set.meter.unit;
  const seen = `${describeMetered(short, unit)} (limit ${short.limit}); ${describeMetered(plain, unit)} (limit ${plain.limit})`;
  const p = usageOf(plain.x);
  const s = usageOf(short.x);
  if (!p || !s) return inconclusive(`usage was not reported, so deductions cannot be weighed against it: ${seen}`);
  const also = [...priceFindings(set, ['plain', 'short']), ...settlementNote(set)];
  const tol = tolerance(set, plain.deducted, short.deducted);
  const [lo, hi] = deductionRange(p, s);
  if (short.deducted > hi * plain.deducted + tol) {
    const byLimit = s.completion < short.limit / 2 ? ` (billed as if by its limit of ${short.limit} rather than the ${s.completion} tokens it used?)` : '';
    return conformance([fail('billed_beyond_usage', `a call that used fewer tokens was billed more than its usage allows${byLimit}: ${seen}`), ...also], '');
  }
  if (short.deducted < lo * plain.deducted - tol) return conformance([fail('billed_below_usage', `a call was billed less than its usage requires: ${seen}`), ...also], '');
  // Billing by the limit and by usage agree when the call used most of its limit: that cannot be told apart.
  if (s.completion >= short.limit / 2) {
    const priced = also.filter((f) => f.severity !== 'info');
    if (priced.length > 0) return conformance(also, '');
    return inconclusive(`the short call used ${s.completion} of its ${short.limit} tokens, so billing by the limit cannot be told from billing by usage: ${seen}`);
  }
  const findings: Finding[] = [...overLimit(set), note('deductions', seen), ...also];
  if (Math.abs(short.deducted - plain.deducted) <= tol && Math.abs(s.completion - p.completion) + Math.abs(s.prompt - p.prompt) > 4) {
    findings.push(note('per_call', `the same deduction for ${p.prompt}+${p.completion} and ${s.prompt}+${s.completion} tokens: billed per call, not per token`));
  }
  const rate = (d: number, u: Usage) => fmt(d / Math.max(1, u.prompt + u.completion));
  return conformance(findings, `billed ${fmt(short.deducted)} ${unit} for ${s.prompt}+${s.completion} tokens and ${fmt(plain.deducted)} ${unit} for ${p.prompt}+${p.completion} (${rate(short.deducted, s)} and ${rate(plain.deducted, p)} per token), as usage allows`);
}
