/**
 * Raw logprob measurements on llama-server, without any of chatprobe's code (issue 34's calibration, step
 * one): one-token answers at temperature 0 with top_logprobs, asked of each set of weights, so the identity
 * test's tolerance rests on measured spreads, not on a guess. `npm run calibrate:identity -- --raw` prints
 * them; docs/identity.md records them.
 */
import { ask } from './llama.js';

/** Short prompts whose first answer token is read (chatprobe's smoke prompt among them). */
export const RAW_PROMPTS = [
  'Reply with the single word OK.',
  'What is the capital of France? One word.',
  'Pick a number from 1 to 10.',
  'Say yes or no.',
  'Name a colour.',
  'Complete: the quick brown fox jumps over the lazy',
  'Translate to French: cat',
  '2 + 2 =',
];

/** The first answer token's top alternatives: token id → logprob. */
export type TopLogprobs = Map<number, number>;

export async function firstToken(base: string, model: string, prompt: string, top = 5): Promise<TopLogprobs> {
  const a = await ask(base, { model, temperature: 0, max_tokens: 1, logprobs: true, top_logprobs: top, messages: [{ role: 'user', content: prompt }] });
  const entry = a.body?.choices?.[0]?.logprobs?.content?.[0];
  if (a.status !== 200 || !Array.isArray(entry?.top_logprobs)) throw new Error(`no logprobs (${a.status}): ${a.text.slice(0, 300)}`);
  return new Map(entry.top_logprobs.map((t: { id: number; logprob: number }) => [t.id, t.logprob]));
}

/**
 * Each prompt asked `repeats` times: one after the other (`together` 1), or `together` requests at once
 * (the server then decodes them in one batch, as during an audit at --concurrency 4); `top` alternatives.
 */
export async function sample(base: string, model: string, repeats: number, o: { together?: number; top?: number; prompts?: string[] } = {}): Promise<TopLogprobs[][]> {
  const { together = 1, top = 5, prompts = RAW_PROMPTS } = o;
  const out: TopLogprobs[][] = prompts.map(() => []);
  for (let r = 0; r < repeats; r++) {
    if (together === 1) {
      for (const [i, p] of prompts.entries()) out[i]!.push(await firstToken(base, model, p, top));
    } else {
      // Every prompt at once, `together` at a time: the batch mixes prompts as an audit's probes do.
      for (let i = 0; i < prompts.length; i += together) {
        const batch = prompts.slice(i, i + together);
        const got = await Promise.all(batch.map((p) => firstToken(base, model, p, top)));
        got.forEach((g, j) => out[i + j]!.push(g));
      }
    }
  }
  return out;
}

/**
 * Each prompt asked twice in a row, then the next (on a server with one slot): the second ask finds all of
 * its prompt but the last token in the slot's cache, and evaluates one token where the first evaluated the
 * prompt's tail in one batch. Returned as [firsts, seconds], one sample each.
 */
export async function askedTwice(base: string, model: string, prompts = RAW_PROMPTS): Promise<[TopLogprobs[][], TopLogprobs[][]]> {
  const firsts: TopLogprobs[][] = [];
  const seconds: TopLogprobs[][] = [];
  for (const p of prompts) {
    firsts.push([await firstToken(base, model, p)]);
    seconds.push([await firstToken(base, model, p)]);
  }
  return [firsts, seconds];
}

export interface Distance {
  /**
   * The largest |Δ logprob| of one token: over the tokens both lists hold, and for a token one list only
   * holds, how far it stands above the other list's last logprob (it is at most that there).
   */
  maxAbs: number;
  /** Whether the top token is the same. */
  sameTop: boolean;
  /** Tokens in both top lists, of the list's length. */
  overlap: number;
}

export function distance(a: TopLogprobs, b: TopLogprobs): Distance {
  let maxAbs = 0;
  let overlap = 0;
  const lastA = Math.min(...a.values());
  const lastB = Math.min(...b.values());
  for (const [id, lp] of a) {
    const other = b.get(id);
    if (other === undefined) {
      maxAbs = Math.max(maxAbs, lp - lastB);
      continue;
    }
    overlap++;
    maxAbs = Math.max(maxAbs, Math.abs(lp - other));
  }
  for (const [id, lp] of b) if (!a.has(id)) maxAbs = Math.max(maxAbs, lp - lastA);
  const top = (m: TopLogprobs) => [...m.entries()].sort((x, y) => y[1] - x[1])[0]?.[0];
  return { maxAbs, sameTop: top(a) === top(b), overlap: overlap / Math.max(a.size, 1) };
}

export interface Spread {
  /** Pairs compared (one per prompt and sample). */
  pairs: number;
  /** Pairs whose top lists are bit-identical. */
  identical: number;
  maxAbs: number;
  medianAbs: number;
  topAgree: number;
  minOverlap: number;
}

/** Every sample of `b` against the first sample of `a`, prompt by prompt. */
export function spread(a: TopLogprobs[][], b: TopLogprobs[][]): Spread {
  const d: Distance[] = [];
  let identical = 0;
  a.forEach((samples, i) => {
    const ref = samples[0]!;
    for (const s of b[i]!) {
      d.push(distance(ref, s));
      if ([...ref].every(([id, lp]) => s.get(id) === lp)) identical++;
    }
  });
  const abs = d.map((x) => x.maxAbs).sort((x, y) => x - y);
  return {
    pairs: d.length,
    identical,
    maxAbs: abs.at(-1) ?? 0,
    medianAbs: abs[Math.floor(abs.length / 2)] ?? 0,
    topAgree: d.filter((x) => x.sameTop).length,
    minOverlap: Math.min(...d.map((x) => x.overlap)),
  };
}
