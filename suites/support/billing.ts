import { defineShared, SMOKE_PROMPT, type ChatBody, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { conformance, describeFailure, errored, fail, inconclusive, note, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { billingView, METERED_KEY, type MeteredCall, type MeteredLabel, type MeteredSet } from '../../src/billing/set.js';
import type { Meter } from '../../src/billing/meter.js';
import { countingPrompt } from './prompts.js';
import { readChoices } from '../../src/wire/completion.js';

/**
 * The known set: each call with an explicit limit. `plain` asks for more than its limit allows, so the
 * limit ends it; `stream` is the same request streamed with usage asked for; `short` asks for one word
 * under a limit four times larger (billed by the limit, it would cost more than `plain`); `failed` carries
 * a role no server accepts.
 */
export const BILLING_LIMITS = { plain: 16, short: 64, failed: 16 } as const;
const PLAIN: ChatBody = { messages: [{ role: 'user', content: countingPrompt(50) }], max_tokens: BILLING_LIMITS.plain, temperature: 0 };
const SHORT: ChatBody = { messages: [{ role: 'user', content: SMOKE_PROMPT }], max_tokens: BILLING_LIMITS.short, temperature: 0 };
const FAILED: ChatBody = { messages: [{ role: 'chatprobe-invalid-role', content: SMOKE_PROMPT }], max_tokens: BILLING_LIMITS.failed };

/**
 * How the meter is watched after a call: read at once, then after each of these pauses in turn (0.1 s,
 * doubling to 6.4 s: 12.7 s in all) until it moves. The first call calibrates: a gateway that bills in batches shows the
 * deduction seconds later, and every later call is watched four times that long before a zero is believed.
 */
export const READ_PAUSES_MS: readonly number[] = [0, 100, 200, 400, 800, 1600, 3200, 6400];
export const CALIBRATION_MS = READ_PAUSES_MS.reduce((a, b) => a + b, 0);
/** The shortest watch after a call once the meter is known to be quick, and the quiet check's pause. */
export const MIN_WINDOW_MS = 300;
/** Reads that must agree before a moved balance counts as settled. */
const SETTLE_TRIES = 4;

type Settled = { used: number; lagMs?: number } | { problem: string };

async function read(m: Meter): Promise<number | { problem: string }> {
  const r = await m.read();
  return 'used' in r ? r.used : { problem: `the balance could not be read (${m.route}: ${r.failed})` };
}

/** Watches the meter after a call for up to `windowMs`: the settled amount used, and when it moved. */
async function settle(m: Meter, before: number, windowMs: number): Promise<Settled> {
  let waited = 0;
  for (const pause of READ_PAUSES_MS) {
    if (waited + pause > windowMs) break;
    await m.wait(pause);
    waited += pause;
    let now = await read(m);
    if (typeof now !== 'number') return now;
    if (now === before) continue;
    // Moved: wait until it holds still (new-api charges an estimate first and corrects it after).
    const lagMs = waited;
    for (let i = 0; i < SETTLE_TRIES; i++) {
      await m.wait(Math.min(2000, Math.max(100, lagMs)));
      const again = await read(m);
      if (typeof again !== 'number') return again;
      if (again === now) return { used: now, lagMs };
      now = again;
    }
    return { problem: `the balance kept moving after a call (${SETTLE_TRIES} reads in a row differed)` };
  }
  return { used: before };
}

/** Whether the balance holds still with nothing sent: else other traffic shares it, or it is still settling. */
async function quiet(m: Meter): Promise<{ used: number } | { problem: string }> {
  const first = await read(m);
  if (typeof first !== 'number') return first;
  let last = first;
  for (let waited = 0; waited < CALIBRATION_MS; waited += 1000) {
    await m.wait(waited === 0 ? MIN_WINDOW_MS : 1000);
    const now = await read(m);
    if (typeof now !== 'number') return now;
    if (now === last) return { used: now };
    last = now;
  }
  return {
    problem: `the balance moved by ${fmt(last - first)} ${m.unit} in ${(CALIBRATION_MS / 1000).toFixed(1)} s while chatprobe sent nothing: other traffic shares this key (or account), or earlier calls are still being billed; no deduction could be given to a call`,
  };
}

const CALLS: readonly { label: MeteredLabel; body: ChatBody; stream?: true }[] = [
  { label: 'plain', body: PLAIN },
  { label: 'stream', body: { ...PLAIN, stream_options: { include_usage: true } }, stream: true },
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
    const set: MeteredSet = { meter: { kind: m.kind, route: m.route, unit: m.unit, step: m.step }, calls: [], windowMs: CALIBRATION_MS };
    const start = await quiet(m);
    if ('problem' in start) return { ...set, unmeasurable: start.problem };
    let before = start.used;
    for (const call of CALLS) {
      // Sent once, and with the limits as written: the bill is compared with them (no room for reasoning).
      const x = call.stream ? await ctx.stream(call.body, { once: true, exact: true }) : await ctx.chat(call.body, { once: true, exact: true });
      const after = await settle(m, before, set.windowMs);
      if ('problem' in after) return { ...set, unmeasurable: after.problem };
      const c: MeteredCall = { label: call.label, x, limit: call.body.max_tokens as number, deducted: after.used - before };
      if (after.lagMs !== undefined) c.lagMs = after.lagMs;
      set.calls.push(c);
      before = after.used;
      if (call.label === 'plain') {
        if (c.lagMs === undefined) {
          return { ...set, unbilled: `the balance did not move within ${(CALIBRATION_MS / 1000).toFixed(1)} s of the plain call (${usageText(x)}): a free model, or a gateway that bills later than that; the other calls were not sent` };
        }
        set.windowMs = Math.min(CALIBRATION_MS, Math.max(MIN_WINDOW_MS, 4 * c.lagMs));
      }
      if (c.deducted < 0) return { ...set, unmeasurable: `the amount used went down by ${fmt(-c.deducted)} ${m.unit} after the ${call.label} call: a refund of an earlier charge, so deductions cannot be given to calls` };
    }
    // The control: a charge that arrives after its call seemed settled would have been given to the next call.
    await m.wait(set.windowMs);
    const last = await read(m);
    if (typeof last !== 'number') return { ...set, unmeasurable: last.problem };
    if (last !== before) {
      return { ...set, unmeasurable: `the balance moved by ${fmt(last - before)} ${m.unit} ${(set.windowMs / 1000).toFixed(1)} s after the last call had settled: charges arrive late, so deductions cannot be given to calls` };
    }
    return set;
  },
});

/** A number for people: no float noise (0.30000000000000004), no exponent for small dollar amounts. */
export function fmt(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toPrecision(6)));
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
  return undefined;
}

const call = (set: MeteredSet, label: MeteredLabel): MeteredCall => set.calls.find((c) => c.label === label)!;

/** How far a deduction may stray from an exact figure: the meter's step, and 2% for rounding in the gateway's prices. */
function tolerance(set: MeteredSet, ...amounts: number[]): number {
  return Math.max(set.meter.step, 0.02 * Math.max(...amounts.map(Math.abs)), 1e-12);
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

/** billing.failed_call: a refused request costs nothing. */
export function judgeFailedCall(set: MeteredSet): ProbeVerdict {
  const no = unmeasured(set, ['failed']);
  if (no) return no;
  const plain = call(set, 'plain');
  const failed = call(set, 'failed');
  const unit = set.meter.unit;
  if (failed.x.ok) return inconclusive(`the request with an invalid role was answered (HTTP ${failed.x.status}), so no refused call was seen: ${describeMetered(failed, unit)}`);
  if (failed.x.cause && failed.x.status === undefined) return errored(failed.x.cause, failed.x, `the request meant to be refused got no answer: ${describeFailure(failed.x)}`);
  const seen = `${describeMetered(failed, unit)}; ${describeMetered(plain, unit)}`;
  if (failed.deducted > 0) {
    return conformance([fail('failed_call_billed', `a refused request was billed: ${seen}`)], '');
  }
  return conformance([note('deductions', seen)], `refused (${describeFailure(failed.x)}) and not billed; the plain call was billed ${fmt(plain.deducted)} ${unit}`);
}

/** billing.stream: a streamed request is billed as the same request unstreamed. */
export function judgeStreamBilling(set: MeteredSet): ProbeVerdict {
  const no = unmeasured(set, ['stream']);
  if (no) return no;
  const plain = call(set, 'plain');
  const stream = call(set, 'stream');
  const unit = set.meter.unit;
  const seen = `${describeMetered(stream, unit)}; ${describeMetered(plain, unit)}`;
  const chunks = (stream.x as StreamExchange).assembled?.chunkCount ?? 0;
  if (stream.deducted === 0 && chunks > 0) {
    return conformance([fail('stream_unbilled', `the stream was answered (${chunks} chunks) and billed nothing: ${seen}`)], '');
  }
  const p = usageOf(plain.x);
  const s = usageOf(stream.x);
  const tol = tolerance(set, plain.deducted, stream.deducted);
  if (!p) return inconclusive(`the plain call reported no usage, so the two deductions cannot be weighed: ${seen}`);
  if (!s) {
    // The plain call used its whole limit; the stream, the same request, can have used no more.
    if (readChoices(plain.x.json)[0]?.finishReason === 'length' && stream.deducted > plain.deducted + tol) {
      return conformance([fail('stream_billed_more', `the stream reported no usage and was billed more than the same request unstreamed, which used its whole limit: ${seen}`)], '');
    }
    return inconclusive(`the stream reported no usage (asked with stream_options.include_usage), so its deduction cannot be weighed: ${seen}`);
  }
  const [lo, hi] = deductionRange(p, s);
  if (stream.deducted > hi * plain.deducted + tol) return conformance([fail('stream_billed_more', `the stream was billed more than its usage allows beside the same request unstreamed: ${seen}`)], '');
  if (stream.deducted < lo * plain.deducted - tol) return conformance([fail('stream_billed_less', `the stream was billed less than its usage requires beside the same request unstreamed: ${seen}`)], '');
  return conformance([note('deductions', seen)], `billed ${fmt(stream.deducted)} ${unit} streamed and ${fmt(plain.deducted)} ${unit} unstreamed, as their usage (${s.prompt}+${s.completion} and ${p.prompt}+${p.completion} tokens) allows`);
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

/** billing.usage: deductions follow the reported usage, not the limit asked for. */
export function judgeFollowsUsage(set: MeteredSet): ProbeVerdict {
  const no = unmeasured(set, ['short']);
  if (no) return no;
  const plain = call(set, 'plain');
  const short = call(set, 'short');
  const unit = set.meter.unit;
  const seen = `${describeMetered(short, unit)} (limit ${short.limit}); ${describeMetered(plain, unit)} (limit ${plain.limit})`;
  const p = usageOf(plain.x);
  const s = usageOf(short.x);
  if (!p || !s) return inconclusive(`usage was not reported, so deductions cannot be weighed against it: ${seen}`);
  const tol = tolerance(set, plain.deducted, short.deducted);
  const [lo, hi] = deductionRange(p, s);
  if (short.deducted > hi * plain.deducted + tol) {
    const byLimit = s.completion < short.limit / 2 ? ` (billed as if by its limit of ${short.limit} rather than the ${s.completion} tokens it used?)` : '';
    return conformance([fail('billed_beyond_usage', `a call that used fewer tokens was billed more than its usage allows${byLimit}: ${seen}`)], '');
  }
  if (short.deducted < lo * plain.deducted - tol) return conformance([fail('billed_below_usage', `a call was billed less than its usage requires: ${seen}`)], '');
  // Billing by the limit and by usage agree when the call used most of its limit: that cannot be told apart.
  if (s.completion >= short.limit / 2) return inconclusive(`the short call used ${s.completion} of its ${short.limit} tokens, so billing by the limit cannot be told from billing by usage: ${seen}`);
  const findings: Finding[] = [...overLimit(set), note('deductions', seen)];
  if (Math.abs(short.deducted - plain.deducted) <= tol && Math.abs(s.completion - p.completion) + Math.abs(s.prompt - p.prompt) > 4) {
    findings.push(note('per_call', `the same deduction for ${p.prompt}+${p.completion} and ${s.prompt}+${s.completion} tokens: billed per call, not per token`));
  }
  const rate = (d: number, u: Usage) => fmt(d / Math.max(1, u.prompt + u.completion));
  return conformance(findings, `billed ${fmt(short.deducted)} ${unit} for ${s.prompt}+${s.completion} tokens and ${fmt(plain.deducted)} ${unit} for ${p.prompt}+${p.completion} (${rate(short.deducted, s)} and ${rate(plain.deducted, p)} per token), as usage allows`);
}

