import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ChatBody, type ProbeContext, type ProbeVerdict, type SharedExchange } from '../../src/engine/probe.js';
import { honoured, inconclusive } from '../../src/engine/verdicts.js';
import { ALPHA, pct } from './sampling.js';
import { isObject } from '../../src/wire/json.js';

/**
 * Contrasts (verdict contract, rules 1 and 6): an effect seen with a parameter and not without it (a JSON
 * object in JSON mode where the plain prompt gets prose; no tool call under tool_choice "none" where the
 * model otherwise calls) is chance when the model shows the effect at random, as one at its default
 * temperature may: a prompt that allows JSON gets JSON half the time; a weak model calls a tool half the
 * time. Had the parameter done nothing, every answer, with it or without, shows the effect with one
 * probability p, and `s` answers with it all showing the effect beside `b` without it all lacking it have
 * probability pˢ(1−p)ᵇ, at most sˢbᵇ/(s+b)^(s+b) whatever p is: 25% for one answer each. Honoured needs
 * that bound under ALPHA: answers are added, one side then the other, up to 2 with the parameter and 3
 * without it (3.5%). Any answer on the wrong side decides at once, as the probe's judgement says. Where
 * temperature 0 is shown to repeat (repeat.ts), both sides are sent at temperature 0 and one answer each
 * decides: there is no draw for chance to act on.
 */
export const CONTRAST_MOST = { with: 2, without: 3 } as const;

/** Settings under which the model gives one answer to one request, and the evidence (repeat.ts decides). */
export interface Repeatable {
  /** What every request of a contrast carries, both sides alike. */
  settings: Record<string, unknown>;
  /** The settings in words: "at temperature 0". */
  sent: string;
  /** The evidence, in the words a verdict quotes. */
  why: string;
}

export type ContrastSide = 'with' | 'without';
export type Contrast = { verdict: ProbeVerdict } | { more: ContrastSide };

/** The most a parameter that does nothing shows `s` answers with it on its side and `b` without on theirs. */
export function contrastChance(s: number, b: number): number {
  return (s ** s * b ** b) / (s + b) ** (s + b);
}

/**
 * Answers that are separate samples: one the server handed back again, id and all (a response cache in
 * front of the model, as LiteLLM, Portkey and Cloudflare's gateways keep), is the same sample twice.
 * Answers without an id count each.
 */
export function distinctSamples(xs: readonly Exchange[]): number {
  const ids = new Set<string>();
  let anonymous = 0;
  for (const x of xs) {
    const id = isObject(x.json) && typeof x.json.id === 'string' && x.json.id !== '' ? x.json.id : undefined;
    if (id === undefined) anonymous++;
    else ids.add(id);
  }
  return ids.size + anonymous;
}

/**
 * With every answer so far on its side of the contrast: honoured once chance is ruled out (`observed`
 * says what was seen), or one more answer, the side without the parameter first. Chance is counted over
 * separate samples (distinctSamples); answers are sent up to CONTRAST_MOST on each side, however many of
 * them repeat.
 */
export function contrasted(withX: readonly Exchange[], withoutX: readonly Exchange[], observed: string, repeat?: Repeatable): Contrast {
  if (repeat && withX.length > 0 && withoutX.length > 0) {
    return { verdict: honoured(`${observed}; one answer a side, both sent ${repeat.sent}, where ${repeat.why}: had the parameter done nothing, the model would have answered the same with it as without it`) };
  }
  const s = distinctSamples(withX);
  const b = distinctSamples(withoutX);
  const p = contrastChance(s, b);
  if (p < ALPHA) {
    return { verdict: honoured(`${observed}; every answer on its side, ${s} with it and ${b} without: a model showing the effect at random does that at most ${pct(p)} of the time`) };
  }
  const withN = withX.length;
  const withoutN = withoutX.length;
  if (withoutN <= withN && withoutN < CONTRAST_MOST.without) return { more: 'without' };
  if (withN < CONTRAST_MOST.with) return { more: 'with' };
  if (withoutN < CONTRAST_MOST.without) return { more: 'without' };
  const repeats = s < withN || b < withoutN ? `; answers came back again, id and all (a response cache?), so ${withN + withoutN} answers are ${s + b} samples` : '';
  return { verdict: inconclusive(`${observed}; but ${s} sample(s) with it and ${b} without could be chance (up to ${pct(p)})${repeats}`) };
}

/**
 * Further answers to the request of a shared exchange (the side without the parameter), sent on demand and
 * shared by every probe that compares with it, so two probes reading the same control pay for it once.
 */
export class MoreAnswers {
  readonly answers: Exchange[] = [];
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ProbeContext,
    private readonly body: ChatBody,
  ) {}

  atLeast(n: number): Promise<Exchange[]> {
    this.pending = this.pending.then(async () => {
      while (this.answers.length < n) this.answers.push(await this.ctx.chat(this.body));
    });
    return this.pending.then(() => this.answers);
  }
}

/** A pool of further answers to `body`, the request `first` (a shared exchange) sends once. */
export function moreOf(first: SharedExchange<Exchange>, body: ChatBody, maxTokens: number): SharedExchange<MoreAnswers> {
  const most = CONTRAST_MOST.without - 1;
  // Sent only to a model whose decoding does not repeat (repeat.ts): beyond the plan, as the dry run says.
  return defineShared({
    key: `${first.key}.more`,
    cost: { requests: 0, maxTokens: 0, unrepeatable: { requests: most, maxTokens: most * maxTokens } },
    make: async (ctx) => new MoreAnswers(ctx, body),
  });
}

/** The answers a server gave to a request carrying a gate's settings (chatAlike), by the settings. */
const SENT_WITH = new WeakMap<Exchange, Record<string, unknown>>();

/** Whether `x` answered a request that carried `repeat`'s settings. */
export function sentAlike(x: Exchange, repeat: Repeatable | undefined): boolean {
  return repeat !== undefined && SENT_WITH.get(x) === repeat.settings;
}

/**
 * A contrast's request with the gate's settings (repeat.ts), where there is a gate. A server may refuse
 * the settings only together with the contrast's parameter, tools or response_format (temperature 0 with
 * tools routed to a backend that takes no 0, say): the same request without them is then sent again, as a
 * refusal of temperature 0 is elsewhere (the counting request), and the answer judged is that one, so a
 * refusal is the feature's only where the feature alone is refused. A 5xx or a transport failure is kept
 * as it came. The answer records whether it carried the settings (sentAlike): one without them is a draw
 * the gate says nothing of.
 */
export async function chatAlike(ctx: ProbeContext, body: ChatBody, repeat: Repeatable | undefined): Promise<Exchange> {
  if (!repeat) return ctx.chat(body);
  const x = await ctx.chat({ ...body, ...repeat.settings });
  if (x.ok) SENT_WITH.set(x, repeat.settings);
  if (x.ok || x.cause || x.status === undefined || x.status >= 500) return x;
  return ctx.chat(body);
}

/**
 * Runs a contrast: the first answer of each side in hand, `judge` reads every answer so far and decides, or
 * asks for one more, with the parameter (the probe's own request, sent again) or without it (the pool).
 * `repeat`, the gate, reaches the judgement only where both first answers carried its settings (sentAlike).
 * Where one did and the other was sent again without them, that one is no draw of the chance bound's (all
 * its answers must be sent alike): it is judged first as it stands (an answer on the wrong side decides
 * whatever the settings), and replaced by one sent without the settings before any more is asked.
 */
export async function decideContrast(
  ctx: ProbeContext,
  withParam: { first: Exchange; body: ChatBody },
  without: { first: Exchange; more: SharedExchange<MoreAnswers> },
  judge: (withX: readonly Exchange[], withoutX: readonly Exchange[], repeat?: Repeatable) => Contrast,
  repeat?: Repeatable,
): Promise<ProbeVerdict> {
  const alike = sentAlike(withParam.first, repeat) && sentAlike(without.first, repeat);
  const gate = alike ? repeat : undefined;
  // The pool's answers follow the first, or stand in for it where it carried the settings alone.
  const fromPool = !alike && sentAlike(without.first, repeat);
  let replace = !alike && (fromPool || sentAlike(withParam.first, repeat));
  const pooled = async (n: number) => {
    const pool = await ctx.shared(without.more);
    await pool.atLeast(fromPool ? n : n - 1);
    // Read again, so this probe's evidence holds the calls the pool made for it.
    await ctx.shared(without.more);
    return fromPool ? pool.answers.slice(0, n) : [without.first, ...pool.answers.slice(0, n - 1)];
  };
  const w = [withParam.first];
  let wo = [without.first];
  for (;;) {
    const d = judge(w, wo, gate);
    if ('verdict' in d) return d.verdict;
    if (replace) {
      replace = false;
      if (fromPool) wo = await pooled(1);
      else w[0] = await ctx.chat(withParam.body);
    } else if (d.more === 'with') {
      w.push(await ctx.chat(withParam.body));
    } else {
      wo = await pooled(wo.length + 1);
    }
  }
}
