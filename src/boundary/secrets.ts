/**
 * The key must appear nowhere but in the target's Authorization header. Text received from a server
 * stays raw inside the process (so it parses and decodes as sent); every sink removes secrets from it
 * on the way out (src/boundary/boundary.ts), after decoding and before any cut or escape.
 */
export type Redact = (text: string) => string;

export const REDACTED = '[REDACTED]';

/**
 * Shorter secrets are not searched for: "x" or "openai" would be cut out of ordinary words ("inde[REDACTED]")
 * and break the files that carry them. They are still sent only where they belong, and never printed by us.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Any run of this many consecutive characters of a secret counts as the secret: a server can echo a key cut
 * at any length, split over stream deltas, or escaped, and the part that survives must not reach a report.
 */
export const FRAGMENT_LENGTH = 8;

/** Headers whose values are secrets when a user passes them with --header: a credential word anywhere in
 *  the name, or a part of it that is a key (`x-api-key`, `apikey`, `Ocp-Apim-Subscription-Key`), but not
 *  a word that merely ends in one (`x-portkey-custom-host` is an address). */
const SECRET_WORD = /auth|token|secret|cookie|session|passw|credential|signature/i;
const KEY_PART = /^(api|access|private|secret|subscription|master|admin|virtual|provider)?-?key$/i;

export function isSecretHeader(name: string): boolean {
  return SECRET_WORD.test(name) || name.split(/[-_.]/).some((part) => KEY_PART.test(part)) || /apikey/i.test(name);
}

export interface Secret {
  value: string | undefined;
  /** What the secret is, for warnings: never the value. */
  label: string;
}

export interface Redactor {
  redact: Redact;
  /** Labels of secrets too short to be searched for (warned about once). */
  refused: string[];
}

/**
 * How a secret can be written so that a reader, or one decoding step, gets it back: escapes (JSON `\u0073`
 * in any case and any mix, `\"`, `\\`, `\/`; URL `%73`; HTML `&#115;`, `&#x73;`, `&quot;` …), characters
 * that render as nothing (soft hyphen, zero-width joiners, the BOM), and letter case (a header name or a
 * content type lowercased on the way). Secrets are searched for in a shadow of the text with all of that
 * undone, and each match is mapped back to the whole span of the original that produced it, so a
 * replacement never splits an escape and the structure around it (JSON, XML) stays valid.
 */
const ESCAPED_PUNCTUATION = '\\\\["\\\\/]';
const OTHER_ENCODINGS = [
  '\\\\u[0-9a-fA-F]{4}',
  '%[0-7][0-9a-fA-F]',
  '&#[0-9]{1,7};',
  '&#[xX][0-9a-fA-F]{1,6};',
  '&(?:quot|amp|lt|gt|apos);',
  '[\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u206a-\\u206f\\ufe00-\\ufe0f\\ufeff]',
];
/** One invisible character (the last of OTHER_ENCODINGS), as an escape may stand for. */
const INVISIBLE = new RegExp(`^${OTHER_ENCODINGS.at(-1)!}$`);
const ENCODED = new RegExp([OTHER_ENCODINGS[0], ESCAPED_PUNCTUATION, ...OTHER_ENCODINGS.slice(1)].join('|'), 'g');
const ENTITIES: Record<string, string> = { '&quot;': '"', '&amp;': '&', '&lt;': '<', '&gt;': '>', '&apos;': "'" };

function decodeUnit(unit: string): string {
  if (unit.startsWith('\\u')) return String.fromCharCode(parseInt(unit.slice(2), 16));
  if (unit.startsWith('\\')) return unit.slice(1);
  if (unit.startsWith('%')) return String.fromCharCode(parseInt(unit.slice(1), 16));
  if (unit.startsWith('&#x') || unit.startsWith('&#X')) return safeCodePoint(parseInt(unit.slice(3, -1), 16));
  if (unit.startsWith('&#')) return safeCodePoint(parseInt(unit.slice(2, -1), 10));
  if (unit.startsWith('&')) return ENTITIES[unit] ?? unit;
  return ''; // an invisible character
}

const safeCodePoint = (n: number) => (n <= 0x10ffff ? String.fromCodePoint(n) : '');

/** Texts are searched in pieces of about this many characters, so a 15 MB report needs no 15 MB index. */
const PIECE = 256 * 1024;
/**
 * Characters a piece ends after, when one lies in the last half of it: none is part of an escape, none is
 * invisible, none is a letter's case context, so when no secret has it no fragment can run across it,
 * however many invisible characters a server puts between the fragment's own. Every text chatprobe writes
 * has them (JSON, XML, Markdown and prose; each string in them is capped).
 */
const BREAKS = ' \t\n\r,{}[]<>=()';
/**
 * A text with none of them in the last half of a piece (a hostile one) is cut there anyway, the next piece
 * read again from this far back: 8 characters written as `&#1114111;` each, with some invisibles between.
 */
const OVERLAP = 1024;

/**
 * The shadow's map back to the text: shadow code unit k came from text[starts[k], ends[k]). Typed arrays,
 * grown as needed and reused: a piece of 256 K characters needs two 1 MB arrays, not a million objects.
 */
let starts = new Int32Array(0);
let ends = new Int32Array(0);

function room(n: number): void {
  if (starts.length >= n) return;
  starts = new Int32Array(n);
  ends = new Int32Array(n);
}

/** Multiplier of the rolling hash over a window's code units (odd, so no unit's bits are lost). */
const HASH_BASE = 0x01000193;
let baseToWindow = 1;
for (let i = 1; i < FRAGMENT_LENGTH; i++) baseToWindow = Math.imul(baseToWindow, HASH_BASE);
const slotOf = (h: number) => (h ^ (h >>> 16)) & 0xffff;
// The hash reads each code unit with its 0x20 bit set: an ASCII letter's two cases hash alike, so an
// ASCII text is searched as it is, not through a lower-cased copy (a copy of every text written was a
// seventh of a CLI run's garbage). Other units that hash alike are told apart when a hit is checked.


/**
 * The needles (all FRAGMENT_LENGTH long), found in one pass over a text whatever their number: a rolling hash
 * of each window looked up in a table of the needles' hashes, and a hit checked against the needles
 * themselves. A key of 160 characters is 153 needles: searching for each in turn read the text 153 times.
 * Only windows made wholly of characters the needles have are hashed: a window whose last character is
 * none of them moves the search past it (most of a JSON text: its quotes, colons, commas and spaces).
 */
class Fragments {
  private readonly table = new Uint8Array(1 << 16);
  /** 1 for each code unit some needle has. */
  private readonly inNeedles = new Uint8Array(1 << 16);
  private readonly needles: ReadonlySet<string>;

  constructor(needles: readonly string[]) {
    this.needles = new Set(needles);
    for (const needle of needles) {
      this.table[slotOf(this.hashAt(needle, 0))] = 1;
      for (let i = 0; i < needle.length; i++) this.inNeedles[needle.charCodeAt(i)] = 1;
    }
    // An ASCII letter is found in either case (the needles are lower case).
    for (let c = 65; c <= 90; c++) if (this.inNeedles[c + 32] === 1) this.inNeedles[c] = 1;
  }

  private hashAt(s: string, at: number): number {
    let h = 0;
    for (let i = at; i < at + FRAGMENT_LENGTH; i++) h = (Math.imul(h, HASH_BASE) + (s.charCodeAt(i) | 32)) | 0;
    return h;
  }

  /** Whether some needle has this character. */
  has(c: string): boolean {
    return this.inNeedles[c.charCodeAt(0)] === 1;
  }

  /** Calls `found` with the start of every window of `s` that is a needle, ASCII letters in either case, in order. */
  find(s: string, found: (at: number) => void): void {
    const last = s.length - FRAGMENT_LENGTH;
    const { table, inNeedles } = this;
    let i = 0;
    while (i <= last) {
      // The window at i, read from its end: at its last character no needle has, no window up to there can match.
      let j = i + FRAGMENT_LENGTH - 1;
      while (j >= i && inNeedles[s.charCodeAt(j)] === 1) j--;
      if (j >= i) {
        i = j + 1;
        continue;
      }
      // A run of needle characters: each of its windows hashed, rolling, until the run ends.
      let h = this.hashAt(s, i);
      for (;;) {
        if (table[slotOf(h)] === 1 && this.needles.has(s.slice(i, i + FRAGMENT_LENGTH).toLowerCase())) found(i);
        if (i === last) return;
        const next = s.charCodeAt(i + FRAGMENT_LENGTH);
        if (inNeedles[next] !== 1) {
          i += FRAGMENT_LENGTH + 1;
          break;
        }
        h = (Math.imul(h - Math.imul(s.charCodeAt(i) | 32, baseToWindow), HASH_BASE) + (next | 32)) | 0;
        i++;
      }
    }
  }
}

/**
 * How one redactor searches: its needles, and what in a text needs the shadow. An escape whose characters,
 * and the one it stands for, are in no needle (JSON's \" and \\ for a key of letters, digits and dashes)
 * cannot be inside a match nor join two parts of one: a text whose only escapes are such is searched as
 * it is, as a text with none. A JSON text quoted inside another (a request body in exchanges.har) is one.
 */
interface Matcher {
  fragments: Fragments;
  /** 1 for each of BREAKS that no secret has. */
  breaks: Uint8Array;
  /** Finds an escape or an invisible character that the shadow would change a match by. */
  needsShadow: RegExp;
  /** Whether every needle is ASCII: then only İ and K (the Kelvin sign) lower-case to what a needle has. */
  ascii: boolean;
}

function matcherFor(needles: readonly string[]): Matcher {
  const fragments = new Fragments(needles);
  const harmless = (unit: string) => ![...unit.toLowerCase(), ...decodeUnit(unit).toLowerCase()].some((c) => fragments.has(c));
  const punctuation = ['"', '\\', '/'].filter((c) => !harmless(`\\${c}`));
  const parts = [...OTHER_ENCODINGS];
  if (punctuation.length > 0) parts.push(`\\\\[${punctuation.map((c) => `\\${c}`).join('')}]`);
  const breaks = new Uint8Array(128);
  for (const c of BREAKS) if (!fragments.has(c)) breaks[c.charCodeAt(0)] = 1;
  return { fragments, needsShadow: new RegExp(parts.join('|')), breaks, ascii: needles.every((n) => /^[\x00-\x7f]*$/.test(n)) };
}

/** Where the secrets are in text[from, to): spans in the text's own coordinates. */
function spansIn(text: string, from: number, to: number, matcher: Matcher, out: [number, number][]): void {
  // The common case: nothing encoded that matters, nothing invisible, lower case the same length: the
  // shadow is the text (an ASCII one searched as it is, the search folding its letters' case).
  const piece = text.slice(from, to);
  if (!matcher.needsShadow.test(piece)) {
    // (indexOf of a character beyond Latin-1 answers at once for a one-byte string: most texts are.)
    const folded = matcher.ascii && !piece.includes('\u0130') && !piece.includes('\u212a');
    const lower = folded ? piece : piece.toLowerCase();
    if (lower.length === piece.length) {
      matcher.fragments.find(lower, (i) => out.push([from + i, from + i + FRAGMENT_LENGTH]));
      return;
    }
  }
  // A lower-cased character can take two code units (İ), a decoded unit fewer than its escape: twice the
  // piece is room enough for the shadow.
  room(2 * (to - from) + 16);
  const parts: string[] = [];
  let n = 0;
  /** Plain text[a, b), lower-cased, each code unit mapped to the character it came from. */
  const plain = (a: number, b: number) => {
    if (a >= b) return;
    const segment = text.slice(a, b);
    const low = segment.toLowerCase();
    parts.push(low);
    if (low.length === segment.length) {
      for (let i = 0; i < low.length; i++, n++) {
        starts[n] = a + i;
        ends[n] = a + i + 1;
      }
      return;
    }
    let at = a;
    for (const c of segment) {
      const units = c.toLowerCase().length;
      for (let k = 0; k < units; k++, n++) {
        starts[n] = at;
        ends[n] = at + c.length;
      }
      at += c.length;
    }
  };
  let at = from;
  ENCODED.lastIndex = from;
  for (let m = ENCODED.exec(text); m && m.index < to; m = ENCODED.exec(text)) {
    plain(at, m.index);
    // An escape of an invisible character (&#8203;) is as invisible as the character itself.
    const unit = decodeUnit(m[0]);
    const decoded = INVISIBLE.test(unit) ? '' : unit.toLowerCase();
    parts.push(decoded);
    for (let k = 0; k < decoded.length; k++, n++) {
      starts[n] = m.index;
      ends[n] = m.index + m[0].length;
    }
    at = m.index + m[0].length;
  }
  plain(at, to);
  const flat = parts.join('');
  matcher.fragments.find(flat, (i) => out.push([starts[i]!, ends[i + FRAGMENT_LENGTH - 1]!]));
}

/**
 * Replaces every occurrence of a secret, and of any FRAGMENT_LENGTH-character run of one, however it is
 * written (see ENCODED), with one [REDACTED] per merged span. Linear in the text, whatever the number of needles.
 */
export function createRedactor(secrets: Iterable<Secret | string | undefined>): Redactor {
  const needles = new Set<string>();
  const refused: string[] = [];
  for (const s of secrets) {
    const { value, label } = typeof s === 'object' ? s : { value: s, label: 'a secret' };
    if (!value) continue;
    if (value.length < MIN_SECRET_LENGTH) {
      refused.push(label);
      continue;
    }
    const lower = value.toLowerCase();
    for (let i = 0; i + FRAGMENT_LENGTH <= lower.length; i++) needles.add(lower.slice(i, i + FRAGMENT_LENGTH));
  }
  const list = [...needles];
  if (list.length === 0) return { redact: (text) => text, refused };
  const matcher = matcherFor(list);
  const redact: Redact = (text) => {
    if (text.length < FRAGMENT_LENGTH) return text;
    const spans: [number, number][] = [];
    let back = 0;
    for (let from = 0; from < text.length; ) {
      let to = Math.min(text.length, from + PIECE);
      let cut = to === text.length;
      for (let k = to - 1; !cut && k >= from + PIECE / 2; k--) {
        const c = text.charCodeAt(k);
        if (c < 128 && matcher.breaks[c] === 1) {
          to = k + 1;
          cut = true;
        }
      }
      spansIn(text, Math.max(0, from - back), to, matcher, spans);
      back = cut ? 0 : OVERLAP;
      from = to;
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let from = 0;
    let [start, end] = spans[0]!;
    for (const [s, e] of spans) {
      if (s <= end) {
        end = Math.max(end, e);
        continue;
      }
      out += text.slice(from, start) + REDACTED;
      from = end;
      [start, end] = [s, e];
    }
    return out + text.slice(from, start) + REDACTED + text.slice(end);
  };
  return { redact, refused };
}
