import { tooDeep } from '../wire/json-depth.js';
import { assembleStream, type AssembledStream, type StreamedChoice } from '../wire/stream.js';
import { isObject } from '../wire/json.js';
import { differences, sameJson, show } from './diff.js';

/**
 * What a client makes of a stream, against what the upstream sent: the events read from the text as a
 * client reads them (up to `[DONE]`), the pieces of the answer each event carries (a role, a content
 * piece, a tool-call fragment, a finish reason), and the answer those pieces assemble. Compared frame by
 * frame (which piece came twice, never, or out of order) and as a whole (what the client ends up with).
 * Pure functions; every count and depth a gateway controls is bounded.
 */

export interface Frame {
  comment?: string;
  data?: string;
}

/** The frames of an SSE text, in order: comments and data (multi-line data joined). */
export function framesOf(text: string): Frame[] {
  const out: Frame[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) out.push({ comment: line.slice(1).trim() });
      else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length > 0) out.push({ data: data.join('\n') });
  }
  return out;
}

/** An event's data parsed, or why not: not JSON (its text, cut short), or nested deeper than chatprobe parses. */
export function parseData(s: string): { json: unknown } | { notJson: string } | { tooDeep: true } {
  const data = s.trim();
  // JSON.parse would overflow the stack: not parsed, and said as chatprobe's own limit.
  if (tooDeep(data)) return { tooDeep: true };
  try {
    return { json: JSON.parse(data) };
  } catch {
    return { notJson: data.slice(0, 120) };
  }
}

/** One piece of the answer, as one event carried it. */
export interface Piece {
  /** The event (among those before `[DONE]`) that carried it. */
  event: number;
  /** Compared: the piece exactly. */
  key: string;
  /** Said: `content " two"`, `choices[1] finish_reason "stop"`. */
  label: string;
}

/** What a client reads of a stream. */
export interface StreamView {
  /** The data events before `[DONE]` that are JSON, parsed. */
  events: unknown[];
  /** Data events before `[DONE]` that are not JSON (a client's JSON.parse throws on them), cut short. */
  notJson: string[];
  /** Data events nested deeper than chatprobe parses (its own limit): not compared. */
  tooDeep: number;
  /** Their pieces, in order: past MAX_ALIGNED, the first of them (and then more than MAX_ALIGNED). */
  pieces: Piece[];
  done: boolean;
  /** Data events after `[DONE]`: a client has stopped reading. */
  afterDone: number;
  comments: number;
  /** The answer assembled as chatprobe's own client assembles a stream. */
  whole: AssembledStream;
  /** The last usage object an event carried (a client keeps the last it sees). */
  lastUsage: unknown;
}

/** Choices of an event, and tool-call fragments of a choice's delta, read for the piece-by-piece comparison. */
const MAX_CHOICES = 32;
const MAX_FRAGMENTS = 32;
/** Events and pieces aligned one by one at most: a scripted stream has a dozen; a flood is compared as a whole. */
export const MAX_ALIGNED = 1024;

/** The delta fields whose text a client appends. */
const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning', 'refusal'] as const;

/** The pieces one event carries, in the order a client reads them. */
export function piecesOf(ev: unknown, event: number): Piece[] {
  const out: Piece[] = [];
  const add = (label: string, key: unknown) => out.push({ event, label, key: `${label.split(' ')[0]}\u0000${JSON.stringify(key)}` });
  if (!isObject(ev)) return out;
  if (ev.error !== undefined && ev.error !== null) add(`error ${show(ev.error)}`, ['error', ev.error]);
  if (!Array.isArray(ev.choices)) return out;
  for (let pos = 0; pos < Math.min(ev.choices.length, MAX_CHOICES); pos++) {
    const c: unknown = ev.choices[pos];
    if (!isObject(c)) continue;
    const index = typeof c.index === 'number' ? c.index : pos;
    const at = index === 0 ? '' : `choices[${index}] `;
    const d = isObject(c.delta) ? c.delta : {};
    if (typeof d.role === 'string') add(`${at}role ${show(d.role)}`, [index, 'role', d.role]);
    for (const f of TEXT_FIELDS) {
      const v = d[f];
      if (typeof v === 'string' && v !== '') add(`${at}${f} ${show(v)}`, [index, f, v]);
    }
    if (Array.isArray(d.tool_calls)) {
      for (const t of d.tool_calls.slice(0, MAX_FRAGMENTS)) {
        const fragment = withoutNulls(t);
        add(`${at}tool_calls fragment ${show(fragment)}`, [index, 'tool', fragment]);
      }
    }
    if (c.finish_reason !== null && c.finish_reason !== undefined) add(`${at}finish_reason ${show(c.finish_reason)}`, [index, 'finish', c.finish_reason]);
  }
  return out;
}

/** A stream's text read as a client reads it. */
export function viewOf(text: string): StreamView {
  const events: unknown[] = [];
  const pieces: Piece[] = [];
  const data: { data: string; at: number }[] = [];
  let done = false;
  let afterDone = 0;
  let comments = 0;
  let lastUsage: unknown;
  const notJson: string[] = [];
  let deep = 0;
  for (const f of framesOf(text)) {
    if (f.comment !== undefined) {
      comments++;
      continue;
    }
    if (done) {
      afterDone++;
      continue;
    }
    data.push({ data: f.data!, at: 0 });
    if (f.data!.trim() === '[DONE]') {
      done = true;
      continue;
    }
    const parsed = parseData(f.data!);
    if ('tooDeep' in parsed) {
      deep++;
      continue;
    }
    if ('notJson' in parsed) {
      if (notJson.length < 8) notJson.push(parsed.notJson);
      continue;
    }
    const ev = parsed.json;
    const i = events.push(ev) - 1;
    // Kept past MAX_ALIGNED by one event at most: a list that long says it was cut, and is not aligned.
    if (pieces.length <= MAX_ALIGNED) pieces.push(...piecesOf(ev, i));
    if (isObject(ev) && isObject(ev.usage)) lastUsage = ev.usage;
  }
  return { events, notJson, tooDeep: deep, pieces, done, afterDone, comments, whole: assembleStream(data), lastUsage };
}

/** A value with its null members left out, at every depth (a gateway's added nulls are not the answer). */
export function withoutNulls(v: unknown, depth = 0): unknown {
  if (depth > 32 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => withoutNulls(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = withoutNulls(x, depth + 1);
  return out;
}

/**
 * The pairs (i, j) of a longest common subsequence of `a` and `b`, or undefined past MAX_ALIGNED: which
 * items of the one side are the other's, in order.
 */
export function align(a: readonly string[], b: readonly string[]): [number, number][] | undefined {
  if (a.length > MAX_ALIGNED || b.length > MAX_ALIGNED) return undefined;
  const w = b.length + 1;
  const t = new Uint16Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (t[(i + 1) * w + j]! >= t[i * w + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

/**
 * Frame by frame: the pieces that arrived more often than sent, never, out of order, or that the upstream
 * never sent, each named. Empty when the pieces arrived as sent, in order.
 */
export function pieceChanges(sent: readonly Piece[], got: readonly Piece[]): string[] {
  const pairs = align(
    sent.map((p) => p.key),
    got.map((p) => p.key),
  );
  if (!pairs) return [`more than ${MAX_ALIGNED} pieces ${got.length > MAX_ALIGNED ? 'received' : 'sent'}: too many for chatprobe to align one by one (the answer is compared as a whole)`];
  const matchedSent = new Set(pairs.map(([i]) => i));
  const matchedGot = new Set(pairs.map(([, j]) => j));
  const lostSent = sent.map((_, i) => i).filter((i) => !matchedSent.has(i));
  const extraGot = got.map((_, j) => j).filter((j) => !matchedGot.has(j));
  const out: string[] = [];
  const before = (list: readonly Piece[], i: number) => (i > 0 ? `after ${list[i - 1]!.label}` : 'first');
  // A piece that went missing from its place and arrived at another moved.
  const moved = new Set<number>();
  for (const j of extraGot) {
    const k = lostSent.findIndex((i) => sent[i]!.key === got[j]!.key);
    if (k < 0) continue;
    const i = lostSent.splice(k, 1)[0]!;
    moved.add(j);
    out.push(`${got[j]!.label} arrived out of order: ${before(got, j)} (the upstream sent it ${before(sent, i)})`);
  }
  const count = (list: readonly Piece[], key: string) => list.filter((p) => p.key === key).length;
  const said = new Set<string>();
  for (const j of extraGot) {
    if (moved.has(j)) continue;
    const p = got[j]!;
    if (said.has(p.key)) continue;
    said.add(p.key);
    const n = count(sent, p.key);
    out.push(n > 0 ? `${p.label} arrived ${times(count(got, p.key))}, the upstream sent it ${times(n)}` : `${p.label} arrived, the upstream never sent it`);
  }
  for (const i of lostSent) out.push(`${sent[i]!.label} never arrived`);
  return out;
}

/** Tool calls as a client ends up with them. */
const callsOf = (c: StreamedChoice) =>
  c.toolCalls.map((t) => ({ id: t.id ?? null, type: t.type ?? null, name: t.name, arguments: t.arguments }));

/**
 * As a whole: what the client assembles that differs from what the upstream's stream assembles, with the
 * last usage it sees when `usage` (a client that did not ask for usage reads none).
 */
export function wholeChanges(sent: StreamView, got: StreamView, usage: boolean): string[] {
  const out: string[] = [];
  const indexes = [...new Set([...sent.whole.choices.keys(), ...got.whole.choices.keys()])].sort((a, b) => a - b);
  for (const i of indexes) {
    const at = i === 0 ? '' : `choices[${i}] `;
    const a = sent.whole.choices.get(i);
    const b = got.whole.choices.get(i);
    if (!b) {
      out.push(`choices[${i}] never arrived`);
      continue;
    }
    if (!a) {
      out.push(`choices[${i}] arrived, the upstream never sent it`);
      continue;
    }
    if (a.content !== b.content) out.push(`${at}content: the client assembles ${show(b.content)}, the upstream sent ${show(a.content)}`);
    if (a.reasoning !== b.reasoning) out.push(`${at}reasoning: the client assembles ${show(b.reasoning)}, the upstream sent ${show(a.reasoning)}`);
    if (!sameJson(a.roles, b.roles)) out.push(`${at}role: the client reads ${show(b.roles)}, the upstream sent ${show(a.roles)}`);
    if (!sameJson(a.finishReasons, b.finishReasons)) {
      const one = a.finishReasons.length === 1 && b.finishReasons.length > 1 && b.finishReasons.every((r) => r === a.finishReasons[0]);
      out.push(one ? `${at}finish_reason ${show(a.finishReasons[0])} came ${times(b.finishReasons.length)}, the upstream sent it once` : `${at}finish_reason: the client reads ${show(b.finishReasons)}, the upstream sent ${show(a.finishReasons)}`);
    }
    const ca = callsOf(a);
    const cb = callsOf(b);
    if (!sameJson(ca, cb)) out.push(`${at}tool calls: ${differences(ca, cb).slice(0, 3).join('; ')}`);
  }
  if (!sameJson(sent.whole.errors, got.whole.errors)) out.push(`in-band errors: the client reads ${show(got.whole.errors)}, the upstream sent ${show(sent.whole.errors)}`);
  if (usage && !sameJson(sent.lastUsage, got.lastUsage)) out.push(`the last usage a client sees is ${show(got.lastUsage)}, the upstream's is ${show(sent.lastUsage)}`);
  return out;
}

/** The signature of each event for aligning events: the pieces it carries. */
function signatures(view: StreamView): string[] {
  const out = view.events.map(() => '');
  for (const p of view.pieces) out[p.event] += `${p.key}\u0001`;
  return out;
}

/** Members no client reads for the answer, and that gateways rewrite as a matter of course. */
const TRIVIAL_KEYS = ['id', 'created'];

function stripTrivial(v: unknown): unknown {
  const out = withoutNulls(v);
  if (!isObject(out)) return out;
  for (const k of TRIVIAL_KEYS) delete out[k];
  return out;
}

/**
 * Events matched by the pieces they carry, and what changed in each pair that the assembled answer does
 * not read: `trivial` (ids, nulls added or dropped, keys reordered: no client sees them) and `rewritten`
 * (other members: a model name, an extra field, a usage added), each said once with the events it touched.
 */
export function eventRewrites(sent: StreamView, got: StreamView): { trivial: string[]; rewritten: string[]; unmatched: number } {
  const pairs = align(signatures(sent), signatures(got));
  if (!pairs) return { trivial: [], rewritten: [], unmatched: 0 };
  let ids = 0;
  let reordered = 0;
  const nulls = new Map<string, number>();
  const rewritten = new Map<string, number>();
  for (const [i, j] of pairs) {
    const x = sent.events[i];
    const y = got.events[j];
    if (!isObject(x) || !isObject(y)) {
      if (!sameJson(x, y)) rewritten.set(`${show(x)} → ${show(y)}`, (rewritten.get(`${show(x)} → ${show(y)}`) ?? 0) + 1);
      continue;
    }
    if (TRIVIAL_KEYS.some((k) => !sameJson(x[k], y[k]))) ids++;
    const sx = stripTrivial(x);
    const sy = stripTrivial(y);
    if (!sameJson(sx, sy)) {
      for (const line of differences(sx, sy, [], [], 8)) rewritten.set(line, (rewritten.get(line) ?? 0) + 1);
      continue;
    }
    const bare = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => !TRIVIAL_KEYS.includes(k)));
    for (const line of differences(bare(x), bare(y), [], [], 8)) {
      const where = line.slice(0, line.indexOf(':'));
      nulls.set(where, (nulls.get(where) ?? 0) + 1);
    }
    if (JSON.stringify(sx) !== JSON.stringify(sy)) reordered++;
  }
  const inEvents = (n: number) => (n === pairs.length ? 'every event' : `${n} of ${pairs.length} events`);
  const trivial: string[] = [];
  if (ids > 0) trivial.push(`ids rewritten (${inEvents(ids)})`);
  if (nulls.size > 0) trivial.push(`nulls added or dropped: ${[...nulls].slice(0, 4).map(([k, n]) => `${k} (${inEvents(n)})`).join(', ')}`);
  if (reordered > 0) trivial.push(`keys reordered (${inEvents(reordered)})`);
  const lines = [...rewritten].slice(0, 4).map(([line, n]) => `${line} (${inEvents(n)})`);
  if (rewritten.size > 4) lines.push(`${rewritten.size - 4} more`);
  return { trivial, rewritten: lines, unmatched: Math.max(sent.events.length, got.events.length) - pairs.length };
}
