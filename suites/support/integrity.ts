import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, conformance, describeFailure, fail, inconclusive, note } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { readReasoning } from '../../src/wire/reasoning.js';
import { type AssembledStream } from '../../src/wire/stream.js';
import { isObject } from '../../src/wire/json.js';
import type { Finding } from '../../src/results/model.js';
import { unusableStream } from './streams.js';

/**
 * Whether a stream assembles into the answer: the text a client joins from the deltas, compared with the
 * same request not streamed at temperature 0. A gateway whose chunk handlers race sends a delta twice or
 * two deltas swapped; every check of the stream's shape passes, and the user reads "1, 2, 3, 3, 4".
 */

/** One content piece of a stream: its text, and whether the chunk it came in carried usage. */
export interface Piece {
  text: string;
  withUsage: boolean;
}

/** What turns the stream's pieces into the reference text: pieces sent once more, and neighbours swapped. */
export interface Explanation {
  /** Positions (0-based, in the pieces as sent) of pieces that repeat the piece before them. */
  repeats: number[];
  /** Positions of the first of two neighbouring pieces that arrived in each other's place. */
  swaps: number[];
}

/** The content pieces of one choice, in the order they came, from the chunks kept (all, or `complete` is false). */
export function contentPieces(s: AssembledStream, index = 0): { pieces: Piece[]; complete: boolean } {
  const pieces: Piece[] = [];
  for (const chunk of s.chunks) {
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) continue;
    // Zero usage on every chunk (a gateway that adds it everywhere) is no usage chunk.
    const u = chunk.usage;
    const withUsage = isObject(u) && Object.values(u).some((n) => typeof n === 'number' && n > 0);
    for (const choice of chunk.choices) {
      if (!isObject(choice) || (typeof choice.index === 'number' ? choice.index : 0) !== index) continue;
      const content = isObject(choice.delta) ? choice.delta.content : undefined;
      if (typeof content === 'string' && content !== '') pieces.push({ text: content, withUsage });
    }
  }
  return { pieces, complete: s.chunks.length === s.chunkCount && !s.textCut };
}

/** States the search below may visit: a stream of our counting answer has well under a hundred pieces. */
const MAX_STATES = 200_000;

/**
 * The fewest-first way the pieces become `reference` when some are dropped as repeats of the piece before
 * them and some neighbours are put back in order; undefined when no such way exists (or the search would
 * pass MAX_STATES). A piece that fits where it stands is always taken first: a model's own "1", "1" of
 * "11" stays two pieces of the answer, never a repeat.
 */
export function explain(pieces: readonly string[], reference: string): Explanation | undefined {
  const dead = new Set<number>();
  const width = reference.length + 1;
  const repeats: number[] = [];
  const swaps: number[] = [];
  let states = 0;
  const walk = (i: number, pos: number): boolean => {
    if (i === pieces.length) return pos === reference.length;
    const key = i * width + pos;
    if (dead.has(key) || ++states > MAX_STATES) return false;
    const p = pieces[i]!;
    if (reference.startsWith(p, pos) && walk(i + 1, pos + p.length)) return true;
    if (i > 0 && p === pieces[i - 1]) {
      repeats.push(i);
      if (walk(i + 1, pos)) return true;
      repeats.pop();
    }
    const q = pieces[i + 1];
    if (q !== undefined && q !== p && reference.startsWith(q, pos) && reference.startsWith(p, pos + q.length)) {
      swaps.push(i);
      if (walk(i + 2, pos + q.length + p.length)) return true;
      swaps.pop();
    }
    dead.add(key);
    return false;
  };
  return walk(0, 0) && states <= MAX_STATES ? { repeats, swaps } : undefined;
}

const quote = (text: string, max = 60) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** Where two texts first differ, in words. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `character ${i + 1}: the stream has ${quote(a.slice(i, i + 12))}, the answer ${quote(b.slice(i, i + 12))}`;
}

/** The findings that name each repeat and swap. */
function faults(pieces: readonly Piece[], e: Explanation): Finding[] {
  const out: Finding[] = [];
  // The copy in the usage chunk first: a gateway that builds its usage chunk from the last piece repeats it in every stream.
  const repeats = [...e.repeats].sort((a, b) => Number(pieces[b]!.withUsage) - Number(pieces[a]!.withUsage) || a - b);
  for (const i of repeats.slice(0, 8)) {
    const where = pieces[i]!.withUsage ? ', in the chunk that carried the usage' : '';
    out.push(fail('repeated_piece', `piece ${i + 1} ${quote(pieces[i]!.text)} came twice${where}: a client shows it twice`));
  }
  if (e.repeats.length > 8) out.push(fail('repeated_piece', `${e.repeats.length - 8} more piece(s) came twice`));
  for (const i of e.swaps.slice(0, 8)) out.push(fail('reordered', `pieces ${i + 1} and ${i + 2} (${quote(pieces[i]!.text)}, ${quote(pieces[i + 1]!.text)}) arrived in each other's place`));
  if (e.swaps.length > 8) out.push(fail('reordered', `${e.swaps.length - 8} more pair(s) arrived swapped`));
  return out;
}

/**
 * The stream (the greedy counting request, streamed) against the same request not streamed. Equal: pass.
 * Different, and the difference is exactly pieces sent twice or neighbours swapped: the stream was
 * corrupted on the way, a failure, when both requests were at temperature 0 (`greedy`; the control that
 * rules out sampling: a model at temperature 0 writes the same answer twice, and no model's own variation
 * is a whole piece repeated where the answer has it once). Different otherwise: the model's own variation
 * cannot be told from a fault, so inconclusive, saying where they differ.
 */
export function judgeIntegrity(x: StreamExchange, unstreamed: Exchange, greedy: boolean): ProbeVerdict {
  if (x.status !== undefined && x.status >= 400 && x.status < 500 && !x.cause) {
    return inconclusive(`the streamed request was refused (${describeFailure(x)}; streaming.usage judges that): no stream to compare`);
  }
  const unusable = unusableStream(x, 'the assembled stream');
  if (unusable) return unusable;
  const problem = answerProblem(unstreamed);
  if (problem) return inconclusive(`the same request not streamed got no answer to compare with (${problem})`);
  const reference = readChoices(unstreamed.json)[0]!.content!;
  const s = x.assembled!;
  const ended = s.done || (s.choices.get(0)?.finishReasons.length ?? 0) > 0;
  if (s.errors.length > 0 || s.tooDeep > 0 || !ended) {
    const how = s.errors.length > 0 ? 'carried an error event' : s.tooDeep > 0 ? 'carried an event chatprobe did not parse (nested too deep)' : 'closed with neither a finish_reason nor [DONE]';
    return inconclusive(`the stream ${how} (see streaming.basic and streaming.error_in_band): not a whole answer to compare`);
  }
  const text = s.choices.get(0)?.content ?? '';
  const same = `the stream assembles into the answer the same request gets unstreamed at temperature 0 (${text.length} characters)`;
  if (text === reference) return conformance([], same);
  if (text.trim() === reference.trim()) return conformance([note('whitespace', 'the two differ in white space at either end only')], same);
  if (text === '' && greedy && !s.choices.get(0)?.reasoning && readReasoning(unstreamed.json).place === undefined && (x.usage?.completionTokens ?? 0) > 0) {
    // The server's own count says it generated tokens, no reasoning took them, and the same request unstreamed
    // is an answer: none of it reached the client.
    return conformance(
      [fail('content_lost', `the stream carried no content though its usage counts ${x.usage!.completionTokens} completion tokens and the same request unstreamed says ${quote(reference)}: the content was lost on the way`)],
      '',
    );
  }
  const { pieces, complete } = contentPieces(s);
  const seen = `the stream assembles into ${quote(text)}, the same request unstreamed says ${quote(reference)}`;
  if (!complete) return inconclusive(`${seen}; chatprobe did not keep every chunk of the stream (its own cap), so the pieces cannot be told apart`);
  const e = explain(
    pieces.map((p) => p.text),
    reference,
  );
  if (!e) {
    return inconclusive(
      `${seen} (first difference at ${firstDifference(text, reference)}); no piece sent twice or out of place explains it, so it may be the model's own variation at temperature 0 (batching, a server that does not repeat itself), not the stream`,
    );
  }
  if (!greedy) {
    return inconclusive(`${seen}: a piece sent twice or out of place would explain it, but temperature 0 was refused, so the two answers were sampled and may differ on their own`);
  }
  return conformance(faults(pieces, e), '');
}
