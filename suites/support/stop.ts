import type { Exchange } from '../../src/engine/exchange.js';
import type { ProbeContext, ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, ignored, inconclusive, note, refusal, warn } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { contentOf } from './params.js';
import { GREEDY_COUNT } from './length.js';

/** Used when there is no greedy answer to take a stop string from: only a refusal can then be judged. */
const PLACEHOLDER_STOP = '<|chatprobe-stop|>';

/** Where the answer begins in a content that opens with a closed `<think>` block (0 without one). */
export function answerStart(text: string): number {
  return /^\s*<think>[\s\S]*?<\/think>/i.exec(text)?.[0].length ?? 0;
}

/**
 * A stop string taken from the model's own answer (verdict contract, rule 4): the shortest piece, 3 to 8
 * characters, that starts near 40% of the answer, at a word start where there is one, and occurs there
 * first in the whole text. Any model shows the effect of such a string, however weak: no instruction has
 * to be followed. The answer is what follows a `<think>` block in the content: a string from the thinking
 * would test the stop on text a server may treat apart (a reasoning parser), and is never picked.
 */
export function pickStop(text: string): { stop: string; at: number } | undefined {
  const start = answerStart(text);
  if (text.slice(start).trim().length < 12) return undefined;
  const from = start + Math.floor((text.length - start) * 0.4);
  /** The first string of 3 to 8 characters at `at`, not starting or ending in a space, that occurs there first. */
  const firstAt = (at: number): { stop: string; at: number } | undefined => {
    for (let len = 3; len <= 8 && at + len <= text.length; len++) {
      const stop = text.slice(at, at + len);
      if (/^\s|\s$/.test(stop)) continue;
      if (text.indexOf(stop) === at) return { stop, at };
    }
    return undefined;
  };
  // Word starts first, then any character that is not a space: tried in that order, the first that fits wins.
  for (let i = from; i < text.length - 3; i++) {
    const found = /\s/.test(text[i - 1] ?? '') && /\S/.test(text[i]!) ? firstAt(i) : undefined;
    if (found) return found;
  }
  for (let i = from; i < text.length - 3; i++) {
    const found = /\S/.test(text[i]!) ? firstAt(i) : undefined;
    if (found) return found;
  }
  return undefined;
}

const show = (s: string) => JSON.stringify(s.length > 60 ? `...${s.slice(-57)}` : s);

/**
 * A stop string (verdict contract, rules 1, 4 and 5). `greedy` is the model's answer without it, from which
 * `stop` was taken at `at`; `x` the same request with the stop strings. Honoured: the answer is the greedy
 * answer up to the stop string, which the model otherwise writes and goes past (the negative control). A
 * kept stop string (the answer ends with it, TGI does this) is honoured with a finding. Ignored: the answer
 * goes on after the stop string. An answer that leaves the greedy text before the stop string says nothing.
 */
export function judgeStop(x: Exchange, greedy: { x: Exchange; repeatable: boolean } | undefined, stop: string, at: number, control: Exchange, feature: string): ProbeVerdict {
  if (!x.ok) return refusal(x, control, feature, 'stop');
  const problem = answerProblem(x, 'choice');
  if (problem) return inconclusive(`${problem}: no answer to judge`);
  const text = contentOf(x);
  const finish = readChoices(x.json)[0]?.finishReason ?? null;
  const seen = `${show(text)}, finish_reason ${JSON.stringify(finish)}`;
  const found = text.indexOf(stop);
  if (found >= 0 && text.slice(found + stop.length).trim() !== '') return ignored(`expected the answer to end before ${JSON.stringify(stop)}, got ${seen}`);
  if (!greedy) return inconclusive(`${feature} accepted, but there is no answer without it to take a stop string from and compare with (${seen})`);
  const full = contentOf(greedy.x);
  const before = full.slice(0, at).trimEnd();
  const expected = `expected the answer to end before ${JSON.stringify(stop)}, which the answer without it reaches at character ${at}`;
  if (text.trimEnd() === before) return honoured(`${expected}; got ${seen}`);
  if (found >= 0 && text.trimEnd() === full.slice(0, at + stop.length).trimEnd()) {
    return { ...honoured(`${expected}; got ${seen}: cut after the stop string, which is kept`), findings: [warn('stop_kept', `the matched stop string ${JSON.stringify(stop)} is kept at the end of the answer; OpenAI leaves it out`)] };
  }
  const diverged = !full.startsWith(text.trimEnd()) || text.trimEnd().length > before.length;
  if (diverged) {
    const why = greedy.repeatable ? 'greedy decoding did not repeat' : 'the model refuses temperature 0, so the answers differ by sampling';
    return { ...inconclusive(`${expected}; got ${seen}: the answer left the text of the first one before the stop string (${why})`), findings: [note('not_repeatable', why)] };
  }
  return inconclusive(`${expected}; got ${seen}: the answer ended early, for another reason`);
}

/** Sends the greedy counting request once more with `stops(stop)` and judges it. */
export async function probeStop(ctx: ProbeContext, stops: (stop: string) => string[], feature: string): Promise<ProbeVerdict> {
  const g = await ctx.shared(GREEDY_COUNT);
  const picked = g.x.ok && !answerProblem(g.x) ? pickStop(contentOf(g.x)) : undefined;
  const stop = picked?.stop ?? PLACEHOLDER_STOP;
  const x = await ctx.chat({ ...g.body, stop: stops(stop) });
  return judgeStop(x, picked ? { x: g.x, repeatable: g.greedy } : undefined, stop, picked?.at ?? 0, ctx.control(), feature);
}
