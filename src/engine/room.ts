import type { Exchange } from './exchange.js';
import type { ChatBody, ProbeVerdict } from './probe.js';
import { answerProblem, LIMIT_KEYS } from './verdicts.js';
import { readChoices } from '../wire/completion.js';
import { readReasoning, type ReasoningPlace } from '../wire/reasoning.js';
import type { Finding } from '../results/model.js';

/**
 * Room for a reasoning model's reasoning in the output limits chatprobe sends. Reasoning counts against
 * the limit on real servers (OpenAI's o-series, DeepSeek-R1, QwQ): at the 16 tokens a one-word probe sends,
 * the reasoning eats the answer, and every such cell is inconclusive ("cut by the output limit"). So each
 * model's smoke call (the plain request, sent without a limit) says how much the model reasons before a
 * one-word answer, once per model, and every later request's limit gets that much more, with a margin:
 *
 *   room = min(ROOM_CAP, ROOM_FACTOR × reasoning + ROOM_SLACK)
 *
 * A model that shows no reasoning gets nothing: its requests are sent exactly as the probes write them.
 * Requests whose limit is the thing judged (the length probes, `errors.out_of_range`, sent `raw`) or is
 * compared with a bill or already sized for reasoning (sent `exact`) never get room.
 */

/** The most added to one request's limit, whatever the smoke call reported: what the room costs at most. */
export const ROOM_CAP = 512;
/**
 * The smoke prompt ("Reply with the single word OK.") is the least a probe asks: a rule to follow, a tool
 * result or a colour to find may take a model twice the thought.
 */
export const ROOM_FACTOR = 2;
/** Added beyond the factor: a model whose reasoning is a few tokens (an empty `<think>` block) still varies. */
export const ROOM_SLACK = 16;

/** Characters of a reasoning text counted: past them the room is at its cap whatever the rest holds. */
const COUNTED_CHARS = 16 * ROOM_CAP;

export type ReasoningRoom =
  /** No reasoning in the smoke call: the limits go as written. */
  | { kind: 'none' }
  /** Reasoning seen and measured: `tokens` more on every limit. */
  | { kind: 'learned'; tokens: number; reasoning: number; from: string; capped: boolean }
  /** Reasoning seen but not measurable, or the smoke call unreadable: nothing added, and cut answers say why. */
  | { kind: 'unknown'; why: string };

export const NO_ROOM: ReasoningRoom = Object.freeze({ kind: 'none' });

/** Text pieces a tokenizer makes at least about one token of: words, numbers, punctuation marks. */
function pieces(text: string): number {
  let n = 0;
  for (const _ of text.slice(0, COUNTED_CHARS).matchAll(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu)) n++;
  return n;
}

const placeName = (p: ReasoningPlace): string =>
  p === 'think' ? '<think> tags in the content' : p === 'hidden' ? 'a reasoning token count, no text' : `message.${p}`;

/**
 * The room a model's smoke call earns its later requests (a pure function of that one exchange). The
 * reasoning is measured three ways and the largest is taken: the server's reasoning_tokens, the completion
 * tokens less the answer's text pieces, and the reasoning text's pieces (a count that leaves the reasoning
 * out, or a text the usage does not cover, cannot shrink the room). A smoke call cut by a limit (the capped
 * second try of a model that does not stop, a server's own default cap) shows reasoning that had not ended:
 * how much is unknown, and nothing is added.
 */
export function learnRoom(smoke: Exchange): ReasoningRoom {
  const problem = answerProblem(smoke, 'choice');
  if (problem) return { kind: 'unknown', why: `the smoke call got no readable answer (${problem}), so whether the model reasons is unknown` };
  const r = readReasoning(smoke.json);
  if (r.place === undefined) return NO_ROOM;
  const where = placeName(r.place);
  const raw = readChoices(smoke.json)[0]?.content ?? '';
  const unclosed = r.place === 'think' && !/<\/think>/i.test(raw);
  if (r.finishReason === 'length' || unclosed) {
    const how = unclosed && r.finishReason !== 'length' ? 'its <think> block never closed' : 'finish_reason "length"';
    return { kind: 'unknown', why: `the smoke call shows reasoning (${where}) but was cut by a limit before it ended (${how}), so how much the model reasons is unknown` };
  }
  const measures: { tokens: number; from: string }[] = [];
  const count = (v: number | undefined) => (v !== undefined && v >= 0 ? v : undefined);
  const reported = count(r.reasoningTokens);
  if (reported !== undefined) measures.push({ tokens: reported, from: 'usage.completion_tokens_details.reasoning_tokens' });
  const completion = count(r.completionTokens);
  if (completion !== undefined) measures.push({ tokens: Math.max(0, completion - pieces(r.content)), from: 'completion_tokens less the answer' });
  if (r.text !== '') measures.push({ tokens: pieces(r.text), from: 'the reasoning text' });
  const most = measures.reduce((a, b) => (b.tokens > a.tokens ? b : a), { tokens: 0, from: `no count: ${where} empty` });
  const wanted = Math.ceil(ROOM_FACTOR * most.tokens) + ROOM_SLACK;
  const capped = !(wanted <= ROOM_CAP);
  return { kind: 'learned', tokens: capped ? ROOM_CAP : wanted, reasoning: most.tokens, from: `${most.from} (${where})`, capped };
}

/**
 * The body with `room` added to its output limit, under whichever key it carries; the same body when there
 * is no room to add (a non-reasoning model's requests are sent exactly as written). A limit that is not a
 * positive number is the probe's business and left alone.
 */
export function withRoom(body: ChatBody, room: ReasoningRoom): ChatBody {
  if (room.kind !== 'learned') return body;
  let out: ChatBody | undefined;
  for (const key of LIMIT_KEYS) {
    const v = body[key];
    if (typeof v !== 'number' || !(v > 0)) continue;
    out ??= { ...body };
    out[key] = v + room.tokens;
  }
  return out ?? body;
}

/** The room in words, for the report's model entry: what was added to every limit and why. */
export function describeRoom(room: ReasoningRoom): string | undefined {
  if (room.kind === 'none') return undefined;
  if (room.kind === 'unknown') return `no room added for reasoning: ${room.why}`;
  const rule = room.capped ? `capped at ${ROOM_CAP}` : `${ROOM_FACTOR} × ${room.reasoning} + ${ROOM_SLACK}`;
  return `${room.tokens} tokens of room for reasoning added to the output limit of every request but those whose limit is judged or billed: ${room.reasoning} reasoning tokens in the smoke call, by ${room.from}; ${rule}`;
}

/**
 * The finding an inconclusive cell gets when one of its answers was cut by chatprobe's limit on a model
 * that reasons (or may): the cut may be the reasoning's doing, and the room it had says how far to trust
 * that. None for a model without reasoning: its cut answers are as they always were.
 */
export function roomFinding(room: ReasoningRoom): Finding | undefined {
  if (room.kind === 'none') return undefined;
  if (room.kind === 'unknown') {
    return { severity: 'info', code: 'reasoning_room', message: `an answer was cut by the output limit chatprobe sends, and no room for reasoning was added to that limit: ${room.why}` };
  }
  const rule = room.capped ? `capped at ${ROOM_CAP}` : `${ROOM_FACTOR} × the smoke call's ${room.reasoning} reasoning tokens + ${ROOM_SLACK}`;
  return {
    severity: 'info',
    code: 'reasoning_room',
    message: `an answer was cut by the output limit chatprobe sends, though that limit carried ${room.tokens} tokens of room for the model's reasoning (${rule}): the reasoning or the answer ran longer here`,
  };
}

/**
 * An inconclusive verdict one of whose answers (`cut`) was cut by chatprobe's limit, with the finding that
 * says what room for reasoning that limit had, or why it had none; any other verdict as it is.
 */
export function noteRoom(v: ProbeVerdict, cut: boolean, room: ReasoningRoom): ProbeVerdict {
  if (v.verdict !== 'inconclusive' || !cut) return v;
  const finding = roomFinding(room);
  if (!finding || v.findings?.some((f) => f.code === finding.code)) return v;
  return { ...v, findings: [...(v.findings ?? []), finding] };
}
