import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ChatBody, type ProbeContext, type ProbeDefinition, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, describeFailure, errored, honoured, ignored, inconclusive, refusal, unreadable } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { isObject } from '../../src/wire/json.js';
import { CONTRAST_MOST, contrasted } from './contrast.js';

/**
 * A declarative probe (a `.probe.json` file, src/config/probe-file.ts): a request with a feature, the same
 * request without it (the control), and what in the answer shows the feature's effect. It is a capability
 * probe under the same contract as chatprobe's own (docs/verdicts.md):
 * - honoured: the effect in the answer with the feature and not in the control's (rule 1); an effect the
 *   model writes (its text, its calls) is chance for a model that writes it at random, so it needs every
 *   answer on its side in up to 2 answers with the feature and 3 without (suites/support/contrast.ts);
 * - ignored: a readable answer with the feature and no effect; for an effect the model writes, only when
 *   the `positive` request (the effect asked for in plain words, without the feature) shows the model can
 *   write it (rule 2), and never from an answer cut by the output limit (rule 3);
 * - rejected: a refusal while the control got an answer (rules 8 and 10, engine/verdicts.ts `refusal`);
 * - inconclusive otherwise, saying why: an error body in a 200, no choice, our own cut, a control that
 *   shows the effect too or got no answer, answers that disagree.
 */

/** One step of a path into an answer: a key, or an index into a list. */
export type PathStep = string | number;

/** What one check of the effect asks of the value at its path. */
export type CheckTest = { exists: boolean } | { equals: unknown } | { matches: string };

export interface EffectCheck {
  /** The path as written in the file (`choices[0].message.safety`). */
  path: string;
  test: CheckTest;
}

export interface DeclarativeSpec {
  id: string;
  area: string;
  requirement: string;
  tier?: 'default' | 'extended';
  /** The feature as `observed` names it (`safe_mode: true`). */
  feature: string;
  /** The words a refusal of the feature would name (engine/verdicts.ts namesAny). */
  names: string[];
  request: ChatBody;
  control: ChatBody;
  /** For an effect the model writes: a request that asks for it in plain words, without the feature. */
  positive?: ChatBody;
  /** Who writes the effect: the server (a field, present or not) or the model (its text or calls). */
  writtenBy: 'server' | 'model';
  /** Every check must hold for an answer to show the effect. */
  effect: EffectCheck[];
}

/**
 * A string longer than this is not matched: the server chooses how long its text is, and a pattern the
 * user wrote may take time that grows fast with it. An effect that needs it is undecided, and says so.
 */
export const MATCH_MAX_CHARS = 100_000;

/**
 * Reads a path as the file writes it: keys joined by dots, `[n]` for a list's n-th item, `["odd key"]`
 * for a key with dots, brackets or spaces (a JSON string). Returns the steps, or what is wrong with it.
 */
export function parsePath(text: string): PathStep[] | string {
  const steps: PathStep[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '[') {
      const index = /^\[(\d+)\]/.exec(text.slice(i));
      if (index) {
        steps.push(Number(index[1]));
        i += index[0].length;
      } else {
        const quoted = /^\["(?:[^"\\]|\\.)*"\]/.exec(text.slice(i));
        if (!quoted) return `at character ${i + 1}: expected [n] or ["key"]`;
        steps.push(JSON.parse(quoted[0].slice(1, -1)) as string);
        i += quoted[0].length;
      }
    } else {
      if (steps.length > 0) {
        if (text[i] !== '.') return `at character ${i + 1}: expected . or [`;
        i++;
      }
      const key = /^[^.[\]"]+/.exec(text.slice(i));
      if (!key) return `at character ${i + 1}: expected a key`;
      steps.push(key[0]);
      i += key[0].length;
    }
  }
  return steps.length > 0 ? steps : 'empty';
}

/** The value at `path` in `json`, or `absent` when some step is not there. Own keys only. */
function readPath(json: unknown, path: readonly PathStep[]): { value: unknown } | 'absent' {
  let v = json;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(v) || step >= v.length) return 'absent';
      v = v[step];
    } else {
      if (!isObject(v) || !Object.hasOwn(v, step)) return 'absent';
      v = v[step];
    }
  }
  return { value: v };
}

/** Two JSON values equal as JSON (keys in any order). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** A value as `observed` quotes it: JSON, cut to 60 characters. */
function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A check in words: "choices[0].message.safety present", "usage.x = 3", "content matching /^OK/". */
export function describeCheck(c: EffectCheck): string {
  if ('exists' in c.test) return `${c.path} ${c.test.exists ? 'present' : 'absent'}`;
  if ('equals' in c.test) return `${c.path} = ${shown(c.test.equals)}`;
  return `${c.path} matching /${c.test.matches}/`;
}

export const describeEffect = (effect: readonly EffectCheck[]): string => effect.map(describeCheck).join(' and ');

/** Whether an answer shows the effect: yes, no (and what it has instead), or cannot tell (and why). */
export type Shows = { shows: true } | { shows: false; got: string } | { undecided: string };

export function showsEffect(json: unknown, effect: readonly EffectCheck[]): Shows {
  for (const c of effect) {
    const steps = parsePath(c.path);
    if (typeof steps === 'string') return { undecided: `the path ${c.path} cannot be read (${steps})` };
    const at = readPath(json, steps);
    const t = c.test;
    if ('exists' in t) {
      if ((at !== 'absent') !== t.exists) return { shows: false, got: at === 'absent' ? `no ${c.path}` : `${c.path} = ${shown(at.value)}` };
      continue;
    }
    if (at === 'absent') return { shows: false, got: `no ${c.path}` };
    if ('equals' in t) {
      if (!sameJson(at.value, t.equals)) return { shows: false, got: `${c.path} = ${shown(at.value)}` };
      continue;
    }
    if (typeof at.value !== 'string') return { shows: false, got: `${c.path} = ${shown(at.value)}, not a string` };
    if (at.value.length > MATCH_MAX_CHARS) return { undecided: `${c.path} holds ${at.value.length} characters, more than the ${MATCH_MAX_CHARS} chatprobe matches a pattern against (its own limit)` };
    if (!new RegExp(t.matches).test(at.value)) return { shows: false, got: `${c.path} = ${shown(at.value)}` };
  }
  return { shows: true };
}

/** The evidence so far: the answers with the feature, those of the control, and the positive control's. */
export interface DeclarativeEvidence {
  with: readonly Exchange[];
  without: readonly Exchange[];
  positive?: Exchange;
}

/** A decision, or the answer to send for next: another with the feature, of the control, or the positive control. */
export type DeclarativeStep = { verdict: ProbeVerdict } | { more: 'with' | 'without' | 'positive' };

/** Whether an answer is one the model cut at the output limit chatprobe sent: its text may stop before the effect. */
const cutAtLimit = (x: Exchange): boolean => readChoices(x.json)[0]?.finishReason === 'length';

/**
 * The judgement of a declarative probe from the answers so far (pure: test/unit/declarative-probe.test.ts):
 * a verdict, or which answer it needs next. `with` and `without` hold at least one answer each.
 */
export function judgeDeclarative(spec: DeclarativeSpec, ev: DeclarativeEvidence): DeclarativeStep {
  const decide = (verdict: ProbeVerdict): DeclarativeStep => ({ verdict });
  const effect = describeEffect(spec.effect);
  const byModel = spec.writtenBy === 'model';
  // An effect the model writes needs its text or calls; a server's field needs an answer, whatever its content.
  const accept = byModel ? 'content_or_tool_calls' : 'choice';
  const control = ev.without[0]!;

  // With the feature: every answer must be one; the first refused is the feature's refusal, if any is.
  for (const [i, x] of ev.with.entries()) {
    if (x.ok) continue;
    if (i === 0) return decide(refusal(x, control, spec.feature, spec.names));
    // Answered once and refused once: no refusal of the feature, whatever this one says.
    if (x.cause) return decide(errored(x.cause, x, `expected an answer with ${spec.feature}, got ${describeFailure(x)} (an earlier request with it was answered)`));
    return decide(inconclusive(`the request with ${spec.feature} was answered once, then refused (${describeFailure(x)}): neither shows what the feature does`));
  }
  for (const x of ev.with) {
    const none = unreadable(x, accept, `cannot tell whether ${spec.feature} had its effect`);
    if (none) return decide(none);
  }

  const seen = ev.with.map((x) => showsEffect(x.json, spec.effect));
  const undecided = seen.find((s): s is { undecided: string } => 'undecided' in s);
  if (undecided) return decide(inconclusive(`expected ${effect}; ${undecided.undecided}`));
  const shows = seen.filter((s) => 'shows' in s && s.shows).length;

  if (shows < seen.length) {
    const last = seen.find((s): s is { shows: false; got: string } => 'shows' in s && !s.shows)!;
    if (shows > 0) return decide(inconclusive(`expected ${effect} with ${spec.feature}; ${shows} of ${seen.length} answers with it show it: an effect that comes and goes is neither honoured nor ignored`));
    const x = ev.with[seen.indexOf(last)]!;
    if (byModel && cutAtLimit(x)) {
      return decide(inconclusive(`expected ${effect} with ${spec.feature}, got ${last.got}, but the answer was cut by the output limit chatprobe sends (finish_reason "length"): the effect may have come after it`));
    }
    if (!byModel) return decide(ignored(`expected ${effect} with ${spec.feature}, got ${last.got}`));
    // The model writes the effect: its absence is the feature ignored only where the model shows it can write it.
    if (!spec.positive) {
      return decide(inconclusive(`expected ${effect} with ${spec.feature}, got ${last.got}; with no positive control (a "positive" request asking for the effect in plain words) a model too weak to write it cannot be told from the feature ignored`));
    }
    if (!ev.positive) return { more: 'positive' };
    const p = ev.positive;
    const plain = answerProblem(p, accept);
    if (plain) return decide(inconclusive(`expected ${effect} with ${spec.feature}, got ${last.got}; the positive control got no answer to compare with (${plain})`));
    const pos = showsEffect(p.json, spec.effect);
    if ('undecided' in pos) return decide(inconclusive(`expected ${effect} with ${spec.feature}, got ${last.got}; the positive control: ${pos.undecided}`));
    if (!pos.shows) {
      const cut = cutAtLimit(p) ? ', cut by the output limit chatprobe sends' : '';
      return decide(inconclusive(`expected ${effect} with ${spec.feature}, got ${last.got}; the positive control does not show it either (${pos.got}${cut}): the model may be unable to write it`));
    }
    return decide(ignored(`expected ${effect} with ${spec.feature}, got ${last.got}; the positive control, asking for it in plain words, shows it`));
  }

  // Every answer with the feature shows the effect: the control must get answers that do not.
  const withSeen = `${effect} with ${spec.feature}`;
  for (const c of ev.without) {
    if (!c.ok || answerProblem(c, accept)) {
      return decide(inconclusive(`got ${withSeen}, but the same request without it got no answer (${answerProblem(c, accept)}): nothing shows the effect needs the feature`));
    }
    const s = showsEffect(c.json, spec.effect);
    if ('undecided' in s) return decide(inconclusive(`got ${withSeen}; the control: ${s.undecided}`));
    if (s.shows) return decide(inconclusive(`got ${withSeen}, and the same request without it shows it too: the effect does not need the feature`));
    if (byModel && cutAtLimit(c)) {
      return decide(inconclusive(`got ${withSeen}; the control lacks it (${s.got}) but was cut by the output limit chatprobe sends, so the effect may have come after it`));
    }
  }
  const controlGot = (showsEffect(control.json, spec.effect) as { got: string }).got;
  const observed = `expected ${effect} with ${spec.feature} and not without it; got it with it, and ${controlGot} without it`;
  if (!byModel) return decide(honoured(observed));
  const step = contrasted(ev.with, ev.without, observed);
  return 'verdict' in step ? step : { more: step.more };
}

/** The output limit a body carries (a file's bodies are checked to carry one). */
const limitOf = (b: ChatBody): number => Number(b.max_tokens ?? b.max_completion_tokens ?? 0);

/**
 * What a declarative probe costs at most: a pair for a server's effect; for a model's, a whole contrast
 * (to honoured) or a pair and the positive control (to ignored), whichever is dearer.
 */
export function declarativeCost(spec: DeclarativeSpec): { requests: number; maxTokens: number } {
  const pair = { requests: 2, maxTokens: limitOf(spec.request) + limitOf(spec.control) };
  if (spec.writtenBy === 'server') return pair;
  const contrast = { requests: CONTRAST_MOST.with + CONTRAST_MOST.without, maxTokens: CONTRAST_MOST.with * limitOf(spec.request) + CONTRAST_MOST.without * limitOf(spec.control) };
  const positive = spec.positive ? { requests: 3, maxTokens: pair.maxTokens + limitOf(spec.positive) } : pair;
  return { requests: Math.max(contrast.requests, positive.requests), maxTokens: Math.max(contrast.maxTokens, positive.maxTokens) };
}

/** The probe a declarative spec describes: sends what its judgement asks for, one answer at a time. */
export function declarativeProbe(spec: DeclarativeSpec): ProbeDefinition {
  return defineProbe({
    id: spec.id,
    area: spec.area,
    kind: 'capability',
    ...(spec.tier ? { tier: spec.tier } : {}),
    requirement: spec.requirement,
    verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
    cost: declarativeCost(spec),
    async run(ctx: ProbeContext): Promise<ProbeVerdict> {
      const [first, control] = await Promise.all([ctx.chat(spec.request), ctx.chat(spec.control)]);
      const ev: { with: Exchange[]; without: Exchange[]; positive?: Exchange } = { with: [first], without: [control] };
      for (;;) {
        const step = judgeDeclarative(spec, ev);
        if ('verdict' in step) return step.verdict;
        if (step.more === 'with') ev.with.push(await ctx.chat(spec.request));
        else if (step.more === 'without') ev.without.push(await ctx.chat(spec.control));
        else ev.positive = await ctx.chat(spec.positive!);
      }
    },
  });
}
