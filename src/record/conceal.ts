import { randomInt } from 'node:crypto';
import type { Boundary } from '../boundary/boundary.js';
import type { Secret } from '../boundary/secrets.js';
import { redactStreamPieces } from '../boundary/stream-pieces.js';

/**
 * How the run's record keeps what a server sent back of a secret (the key echoed in an answer, a header
 * value quoted in an error): not the secret, nor a [REDACTED] that would change the text's length and
 * words, but a stand-in of the same shape. Each secret gets one for the run: the same length, each letter
 * and digit replaced by a random one of its kind (upper or lower case, digit), every other character kept
 * (`sk-abc-123` → `xq-Rte-804`). The record holds the stand-ins, never the secrets; what a server echoed
 * is recorded as the stand-in's part at the same place. A judgement read again from the record then sees
 * a text of the same length, the same pieces and the same words (a stream's text pieces, a clipped quote),
 * and `chatprobe judge` redacts the stand-ins from its reports as the run redacted the secrets, so its
 * reports are the run's.
 *
 * A piece of a secret read backwards is the stand-in's piece read backwards. A span the redaction finds
 * that is no such piece (an escaped or re-encoded form, a secret with characters slipped in) is filled
 * with random characters of its shape (`shapeFill`: the text keeps its syntax, so a JSON body stays JSON);
 * a secret too short to search for as a fragment is removed where it stands whole, as [REDACTED].
 * Judgements that read those may differ (the record says the answer is altered), and nothing of the
 * secret is kept.
 */
export class Concealer {
  /** Each secret's stand-in, in the order of the secrets given. */
  readonly standIns: string[];
  private readonly pairs: { secret: string; standIn: string }[];
  /** Removes the secrets searched for only whole (too short, or chatprobe's words), when there are any. */
  private readonly whole: (text: string) => string;
  /**
   * Set when a text was changed beyond a stand-in's swap (a secret in a form no stand-in fits filled with
   * `*`, a short one removed as [REDACTED]): a judgement that reads it may differ. Cleared by the reader.
   */
  altered = false;

  constructor(
    secrets: readonly Secret[],
    private readonly boundary: Boundary,
  ) {
    this.pairs = [];
    // A secret the redaction does not search for as fragments (too short, or made of chatprobe's words) is
    // removed where it stands whole, as [REDACTED], in the record as in the reports: it gets no stand-in.
    const refused = new Set(boundary.refused.map((r) => r.label));
    for (const s of secrets) if (s.value && !refused.has(s.label)) this.pairs.push({ secret: s.value.toLowerCase(), standIn: standInOf(s.value) });
    this.standIns = this.pairs.map((p) => p.standIn);
    // The boundary's redaction finds no secret a stand-in replaced: it is run again only for the whole ones.
    this.whole =
      refused.size > 0
        ? (text) => {
            const out = boundary.redact(text);
            if (out !== text) this.altered = true;
            return out;
          }
        : (text) => text;
  }

  /** A text with every secret in it replaced by its stand-in (the same length), and any short one removed. */
  text(text: string): string {
    const spans = this.boundary.secretSpans(text);
    let out = text;
    if (spans.length > 0) {
      out = '';
      let from = 0;
      for (const [s, e] of spans) {
        out += text.slice(from, s) + this.standInFor(text.slice(s, e), text, s);
        from = e;
      }
      out += text.slice(from);
    }
    return this.whole(out);
  }

  /**
   * Pieces a reader joins (a body's chunks, a stream's deltas), each secret their joined text holds
   * replaced in place: each piece keeps its length. Undefined when there is none.
   */
  joined(pieces: readonly string[]): string[] | undefined {
    const whole = pieces.join('');
    const spans = this.boundary.secretSpans(whole);
    if (spans.length === 0) return undefined;
    let concealed = '';
    let from = 0;
    for (const [s, e] of spans) {
      concealed += whole.slice(from, s) + this.standInFor(whole.slice(s, e), whole, s);
      from = e;
    }
    concealed += whole.slice(from);
    const out: string[] = [];
    let at = 0;
    for (const p of pieces) {
      out.push(concealed.slice(at, at + p.length));
      at += p.length;
    }
    return out;
  }

  /**
   * A body's pieces (its chunks; a stream's chunks cut at line ends) with every secret concealed: one
   * spanning chunks, one a stream spells out over its deltas (boundary/stream-pieces.ts), one standing
   * whole; each piece keeps its length, but where a short secret stood whole.
   */
  pieces(pieces: readonly string[], stream: boolean): readonly string[] {
    let out: readonly string[] = this.joined(pieces) ?? pieces;
    if (stream) out = redactStreamPieces(out, this.boundary, (values) => this.joined(values));
    return out.map(this.whole);
  }

  /**
   * The stand-in for what the redaction found: the stand-in's part where the secret's part was, in its
   * case (read backwards where the secret was: the reversed stand-in's part); else a fill of the same shape.
   */
  private standInFor(found: string, text: string, at: number): string {
    const low = found.toLowerCase();
    const back = [...low].reverse().join('');
    for (const { secret, standIn } of this.pairs) {
      let i = secret.indexOf(low);
      let part = standIn;
      if (i < 0 && (i = secret.indexOf(back)) >= 0) part = [...standIn].reverse().join('');
      if (i < 0) continue;
      if (part !== standIn) i = secret.length - i - found.length;
      let out = '';
      for (let k = 0; k < found.length; k++) {
        const c = part[i + k]!;
        const f = found[k]!;
        out += f !== f.toLowerCase() ? c.toUpperCase() : f !== f.toUpperCase() ? c.toLowerCase() : c;
      }
      return out;
    }
    this.altered = true;
    return shapeFill(found, text, at);
  }
}

/**
 * A span no stand-in fits (an escaped or encoded form of a secret; digits of a number that happen to read
 * as one), replaced by random characters of its shape, so that the text keeps its syntax: a JSON number
 * stays a number, an escape stays an escape. A digit becomes a digit, a hex letter (a–f) a hex letter, any
 * other letter a letter that is no hex digit, each in its case; kept are every other character, the
 * letter of an escape (after a backslash, or the x of `&#x`), and a number's exponent (an e between a
 * digit or a point and a digit or sign). `text` and `at`: the text the span stands in, and where.
 */
export function shapeFill(found: string, text: string, at: number): string {
  const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  for (let attempt = 1; ; attempt++) {
    let out = '';
    for (let k = 0; k < found.length; k++) {
      const c = found[k]!;
      const before = text[at + k - 1];
      const after = text[at + k + 1];
      const lower = c.toLowerCase();
      if (isDigit(c)) out += DIGITS[randomInt(10)];
      else if (lower === c.toUpperCase() || before === '\\' || (lower === 'x' && before === '#')) out += c;
      else if (lower === 'e' && (isDigit(before) || before === '.') && (isDigit(after) || after === '-' || after === '+')) out += c;
      else {
        const pool = lower >= 'a' && lower <= 'f' ? HEX_LETTERS : OTHER_LETTERS;
        const r = pool[randomInt(pool.length)]!;
        out += c === lower ? r : r.toUpperCase();
      }
    }
    // A fill that is what was found (luck) would keep the secret's part: drawn again, unless the span is
    // all kept characters (syntax, which holds nothing of a secret the fill could hide).
    if (out.toLowerCase() !== found.toLowerCase() || attempt === 16) return out;
  }
}

const HEX_LETTERS = 'abcdef';
const OTHER_LETTERS = 'ghijklmnopqrstuvwxyz';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';

/** A random string of the secret's shape: its length, a random letter for each letter (same case), a random digit for each digit. */
export function standInOf(secret: string): string {
  let out = '';
  for (const c of secret) {
    if (c >= 'a' && c <= 'z') out += LOWER[randomInt(26)];
    else if (c >= 'A' && c <= 'Z') out += LOWER[randomInt(26)]!.toUpperCase();
    else if (c >= '0' && c <= '9') out += DIGITS[randomInt(10)];
    else out += c;
  }
  // A stand-in that is the secret (a secret of one or two letters' luck) is drawn again.
  return out === secret && /[A-Za-z0-9]/.test(secret) ? standInOf(secret) : out;
}
