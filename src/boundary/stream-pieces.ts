import type { Boundary } from './boundary.js';

/**
 * A stream hands its text over a few characters an event, and a reader joins the pieces: a key a server
 * streams back in deltas of 1 to 4 characters (as real models stream tokens) is whole in what the reader
 * sees, though no event holds 8 characters of it. This redacts a recorded stream as read: the pieces of
 * each field (every `"content"` string in arrival order, every `"arguments"`, …; a data line that is no
 * JSON as one piece of its own field) are joined, redacted on the joined text, and each piece a secret's span
 * touches is rewritten in place. Texts with no such secret come back as they were.
 */

/** A JSON string value with its key: `"content":"sk-ch"` (the key and value as written, escapes and all). */
const KEYED_STRING = /"((?:[^"\\\n]|\\.){1,64})"\s*:\s*"((?:[^"\\\n]|\\.)*)"/g;

interface Piece {
  text: number;
  /** Where the value's characters (between its quotes, as written) are in that text. */
  start: number;
  end: number;
  value: string;
  json: boolean;
}

/** The JSON string a value's characters, as written, stand for (or the characters themselves if they are not valid JSON). */
function decode(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The pieces of each field, in order, over `texts` (a stream's event data, or its raw text with `data:` lines). */
function piecesOf(texts: readonly string[]): Map<string, Piece[]> {
  const fields = new Map<string, Piece[]>();
  const add = (field: string, piece: Piece) => {
    const list = fields.get(field);
    if (list) list.push(piece);
    else fields.set(field, [piece]);
  };
  texts.forEach((text, t) => {
    // A line at a time: an SSE text's `data:` lines, or an event's data (usually one line).
    let at = 0;
    while (at <= text.length) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      let from = at;
      if (text.startsWith('data:', from)) from += text[from + 5] === ' ' ? 6 : 5;
      const line = text.slice(from, end).replace(/\r$/, '');
      if (/^\s*[{[]/.test(line)) {
        for (const m of line.matchAll(KEYED_STRING)) {
          const start = from + m.index + m[0].length - m[2]!.length - 1;
          add(`json:${decode(m[1]!)}`, { text: t, start, end: start + m[2]!.length, value: decode(m[2]!), json: true });
        }
      } else if (line.length > 0 && (texts.length > 1 || from > at)) {
        add('data', { text: t, start: from, end: from + line.length, value: line, json: false });
      }
      at = end + 1;
    }
  });
  return fields;
}

/**
 * `texts` with every secret that their joined pieces hold removed; the same array when there is none.
 * `joined` rewrites the pieces of one field (by default the boundary's redaction: a [REDACTED] in each piece
 * a secret touches; the run's record puts stand-ins of the same length instead: record/conceal.ts).
 */
export function redactStreamPieces(
  texts: readonly string[],
  boundary: Boundary,
  joined: (pieces: readonly string[]) => string[] | undefined = (pieces) => boundary.joined(pieces),
): readonly string[] {
  if (texts.length === 0) return texts;
  const edits = new Map<number, { start: number; end: number; text: string }[]>();
  for (const pieces of piecesOf(texts).values()) {
    if (pieces.length < 2) continue;
    const redacted = joined(pieces.map((p) => p.value));
    if (!redacted) continue;
    pieces.forEach((p, i) => {
      if (redacted[i] === p.value) return;
      const text = p.json ? JSON.stringify(redacted[i]).slice(1, -1) : redacted[i]!;
      const list = edits.get(p.text);
      if (list) list.push({ start: p.start, end: p.end, text });
      else edits.set(p.text, [{ start: p.start, end: p.end, text }]);
    });
  }
  if (edits.size === 0) return texts;
  return texts.map((text, t) => {
    const list = edits.get(t);
    if (!list) return text;
    list.sort((a, b) => a.start - b.start);
    let out = '';
    let from = 0;
    for (const e of list) {
      out += text.slice(from, e.start) + e.text;
      from = e.end;
    }
    return out + text.slice(from);
  });
}
