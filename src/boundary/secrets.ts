/**
 * The key must appear nowhere but in the target's Authorization header. Text received from a server
 * stays raw inside the process (so it parses and decodes as sent); every sink removes secrets from it
 * on the way out (src/boundary/boundary.ts), after decoding and before any cut or escape.
 */

export type Redact = (text: string) => string;

export const REDACTED = '[REDACTED]';

/**
 * Shorter secrets are not searched for as fragments: "x" or "openai" would be cut out of ordinary words
 * ("inde[REDACTED]") and break the files that carry them. They are removed only where they stand whole as a
 * credential (see wholeTokens), sent only where they belong, and never printed by us.
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

/** A field name that holds a credential inside a header's value (`{"api_key": …}`, `token=…`). */
const SECRET_FIELD = /key|token|secret|passw|credential|auth|signature/i;

/**
 * The secrets a --header carries: its whole value when its name is a credential's, and inside any other
 * value the credentials it holds as fields: a JSON config (`X-Portkey-Config: {"api_key": "…"}`, nested
 * objects too) or `name=value` pairs (`X-Options: region=eu; api_key=…`).
 */
export function headerSecrets(name: string, value: string): Secret[] {
  if (!value) return [];
  if (isSecretHeader(name)) return [{ value, label: `the value of --header ${name}` }];
  const label = `a credential inside --header ${name}`;
  const found: Secret[] = [];
  const walk = (v: unknown, field: string | undefined, depth: number): void => {
    if (depth > 16) return;
    if (typeof v === 'string' || typeof v === 'number') {
      if (field !== undefined && SECRET_FIELD.test(field) && String(v)) found.push({ value: String(v), label });
    } else if (Array.isArray(v)) for (const item of v) walk(item, field, depth + 1);
    else if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) walk(item, k, depth + 1);
  };
  if (/^\s*[{[]/.test(value)) {
    try {
      walk(JSON.parse(value), undefined, 0);
    } catch {
      // not JSON: read as pairs below
    }
  }
  for (const m of value.matchAll(/([A-Za-z0-9_.-]+)\s*=\s*("[^"]*"|[^\s;&,]+)/g)) {
    if (SECRET_FIELD.test(m[1]!)) found.push({ value: m[2]!.replace(/^"|"$/g, ''), label });
  }
  return found;
}

/**
 * Headers whose values are credentials, whoever set them: a user's secret header, and what a server sends
 * back (`Set-Cookie` with a session, `x-upstream-authorization: Bearer …`, `x-api-key`). Their values are
 * recorded as [REDACTED]: a third party's secret is not republished either. Not a challenge
 * (`WWW-Authenticate` says how to authenticate, not with what), nor a count of tokens
 * (`x-ratelimit-remaining-tokens`).
 */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  if (n === 'www-authenticate' || n === 'proxy-authenticate') return false;
  return isSecretHeader(n.replace(/tokens/g, ''));
}

export interface Secret {
  value: string | undefined;
  /** What the secret is, for warnings: never the value. */
  label: string;
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
/** A JSON line break or tab: whitespace, which a secret is searched through (see TRANSPARENT). */
const WHITESPACE_ESCAPE = '\\\\[nrt]';
const OTHER_ENCODINGS = [
  '\\\\u[0-9a-fA-F]{4}',
  WHITESPACE_ESCAPE,
  // Percent-encoded twice (%2573 is %73 is s): a server that quotes a URL it was given, once more.
  '%25[0-7][0-9a-fA-F]',
  '%[0-7][0-9a-fA-F]',
  '&#[0-9]{1,7};',
  '&#[xX][0-9a-fA-F]{1,6};',
  '&(?:quot|amp|lt|gt|apos);',
  // Characters that render as nothing, of any plane: format controls (soft hyphen, zero-width joiners,
  // tag characters U+E0020…, U+1D173…) and the other default-ignorable ones (Hangul fillers U+3164 and
  // U+FFA0, variation selectors, the BOM).
  '[\\p{Default_Ignorable_Code_Point}\\p{Cf}]',
];
/** One invisible character (the last of OTHER_ENCODINGS), as an escape may stand for. */
const INVISIBLE = new RegExp(`^${OTHER_ENCODINGS.at(-1)!}$`, 'u');
const ENCODED = new RegExp([OTHER_ENCODINGS[0], ESCAPED_PUNCTUATION, ...OTHER_ENCODINGS.slice(1)].join('|'), 'gu');
const ENTITIES: Record<string, string> = { '&quot;': '"', '&amp;': '&', '&lt;': '<', '&gt;': '>', '&apos;': "'" };
const CONTROL_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

function decodeUnit(unit: string): string {
  if (unit.startsWith('\\u')) return String.fromCharCode(parseInt(unit.slice(2), 16));
  if (unit.startsWith('\\')) return CONTROL_ESCAPES[unit[1]!] ?? unit.slice(1);
  if (unit.startsWith('%25') && unit.length === 5) return String.fromCharCode(parseInt(unit.slice(3), 16));
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
 * invisible or whitespace (a secret is searched through both), none is a letter's case context, so when no
 * secret has it no fragment can run across it. Every text chatprobe writes has them (JSON, XML, Markdown;
 * each string in them is capped).
 */
const BREAKS = ',{}[]<>=()';
/**
 * A text with none of them in the last half of a piece (a hostile one) is cut there anyway, the next piece
 * read again from this far back: 8 characters written as `&#1114111;` each, with some invisibles between.
 */
const OVERLAP = 1024;

/**
 * Whitespace, which a secret is searched through: a reader joins "s k - c h a o s", or a key broken over
 * lines or split by spaces, as easily as the key itself. Needles are made without whitespace (see
 * `needleText`), so a secret that has some is found all the same; a random key's fragment cannot be made
 * by chance of words that happen to stand side by side.
 */
const TRANSPARENT = new Uint8Array(1 << 16);
for (const c of '\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000') {
  TRANSPARENT[c.charCodeAt(0)] = 1;
}
/** The letters of JSON's whitespace escapes (n, r, t). */
const ESCAPED_WHITESPACE = new Uint8Array(128);
for (const c of 'nrt') ESCAPED_WHITESPACE[c.charCodeAt(0)] = 1;
const WHITESPACE_OR_INVISIBLE = /[\s\u0085\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;

/** A secret as its needles are cut from it: lower case, without the whitespace and invisibles searched through. */
const needleText = (s: string) => s.replace(WHITESPACE_OR_INVISIBLE, '').toLowerCase();

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
 * themselves. A key of 160 characters is 153 needles, and each of its encoded forms as many: searching for
 * each in turn read the text hundreds of times. A window is FRAGMENT_LENGTH characters the needles have,
 * whitespace between them skipped; any other character ends it.
 */
class Fragments {
  private readonly table = new Uint8Array(1 << 16);
  /** 1 for each code unit some needle has. */
  private readonly inNeedles = new Uint8Array(1 << 16);
  private readonly needles: ReadonlySet<string>;
  /** Where the window's characters are, a ring of FRAGMENT_LENGTH positions. */
  private readonly ring = new Int32Array(FRAGMENT_LENGTH);

  constructor(needles: readonly string[]) {
    this.needles = new Set(needles);
    for (const needle of needles) {
      let h = 0;
      for (let i = 0; i < FRAGMENT_LENGTH; i++) h = (Math.imul(h, HASH_BASE) + (needle.charCodeAt(i) | 32)) | 0;
      this.table[slotOf(h)] = 1;
      for (let i = 0; i < needle.length; i++) this.inNeedles[needle.charCodeAt(i)] = 1;
    }
    // An ASCII letter is found in either case (the needles are lower case).
    for (let c = 65; c <= 90; c++) if (this.inNeedles[c + 32] === 1) this.inNeedles[c] = 1;
  }

  /** Whether some needle has this character. */
  has(c: string): boolean {
    return this.inNeedles[c.charCodeAt(0)] === 1;
  }

  /** Calls `found` with the start and end of every window of `s` that is a needle, ASCII letters in either case, in order. */
  find(s: string, found: (start: number, end: number) => void): void {
    const { table, inNeedles, ring } = this;
    const L = FRAGMENT_LENGTH;
    let count = 0;
    let h = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (inNeedles[c] !== 1) {
        // A JSON `\n`, `\r` or `\t` between two characters is whitespace too (a key broken over lines,
        // inside a JSON body): read here rather than through the shadow, which every JSON text would need.
        if (c === 92 && ESCAPED_WHITESPACE[s.charCodeAt(i + 1)] === 1) i++;
        else if (TRANSPARENT[c] !== 1) count = h = 0;
        continue;
      }
      const slot = count % L;
      if (count >= L) h = (h - Math.imul(s.charCodeAt(ring[slot]!) | 32, baseToWindow)) | 0;
      h = (Math.imul(h, HASH_BASE) + (c | 32)) | 0;
      ring[slot] = i;
      count++;
      if (count >= L && table[slotOf(h)] === 1) {
        let window = '';
        for (let k = 0; k < L; k++) window += s[ring[(count + k) % L]!];
        if (this.needles.has(window.toLowerCase())) found(ring[count % L]!, i + 1);
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
  // A whitespace escape is read by `find` itself (when no needle has a backslash, as no key does).
  const parts = OTHER_ENCODINGS.filter((p) => p !== WHITESPACE_ESCAPE || fragments.has('\\'));
  if (punctuation.length > 0) parts.push(`\\\\[${punctuation.map((c) => (c === '"' ? c : `\\${c}`)).join('')}]`);
  const breaks = new Uint8Array(128);
  for (const c of BREAKS) if (!fragments.has(c)) breaks[c.charCodeAt(0)] = 1;
  return { fragments, needsShadow: new RegExp(parts.join('|'), 'u'), breaks, ascii: needles.every((n) => /^[\x00-\x7f]*$/.test(n)) };
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
      matcher.fragments.find(lower, (a, b) => out.push([from + a, from + b]));
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
  matcher.fragments.find(flat, (a, b) => out.push([starts[a]!, ends[b - 1]!]));
}

/**
 * The forms of a secret that one reading step turns back into it, each searched for as the secret is:
 * itself, reversed, in hex, and in base64 and base64url at each of the three alignments a secret can have
 * inside a longer encoded text (HTTP Basic's `user:key` is one of them). Of a base64 form only the
 * characters made of the secret's own bits are kept: those at its edges depend on what stands beside it.
 */
function formsOf(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [value, [...value].reverse().join(''), bytes.toString('hex')];
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const encoded = padded.toString('base64').replace(/=+$/, '');
    const inner = encoded.slice([0, 2, 3][shift], encoded.length - (padded.length % 3 === 0 ? 0 : 1));
    forms.push(inner, inner.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** Why a secret is not searched for everywhere: it would cut ordinary words, or chatprobe's own files, apart. */
export interface RefusedSecret {
  label: string;
  why: 'short' | 'common';
}

export interface Redactor {
  redact: Redact;
  /** Secrets searched for only where they stand whole as a credential (warned about once). */
  refused: RefusedSecret[];
  /** Where the secrets are in `text`: sorted, merged spans (what `redact` replaces). */
  spans(text: string): [number, number][];
}

export interface RedactorOptions {
  /**
   * Text chatprobe's own files are made of (field and element names, the page's script): a needle found in
   * it is not searched for, since replacing it would break those files (a key `function` blanked
   * report.html, `testcase` made junit.xml ill-formed). A secret left with no needle is refused.
   */
  vocabulary?: string;
}

/** `$&`-safe text of a regular expression that matches `s` literally. */
const literal = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/**
 * A secret refused as a needle is still removed where it stands whole as a credential: after `Bearer ` or
 * `Basic `, or as the value of a key, token, secret or password field (`api_key=…`, `"token": "…"`).
 */
function wholeTokens(values: readonly string[]): ((text: string) => string) | undefined {
  if (values.length === 0) return undefined;
  const field = '(?:\\b(?:bearer|basic)\\s+|\\b[a-z0-9_-]*(?:key|token|secret|passw(?:or)?d|auth[a-z]*|credentials?)["\']?\\s*[=:]\\s*["\']?)';
  const re = new RegExp(`(${field})(?:${values.map(literal).join('|')})(?![A-Za-z0-9._~+/=-])`, 'gi');
  return (text) => (re.test(text) ? text.replace(re, `$1${REDACTED}`) : text);
}

/** The needles not found in `vocabulary` (searched for all at once, as a text is). */
function withoutWords(needles: readonly string[], vocabulary: string): string[] {
  const words = new Set<string>();
  const fragments = new Fragments(needles);
  const low = vocabulary.toLowerCase();
  // Whitespace is searched through: "func tion" in a file is as much a word of it as "function".
  fragments.find(low, (a, b) => words.add(needleText(low.slice(a, b))));
  return words.size === 0 ? [...needles] : needles.filter((n) => !words.has(n));
}

/**
 * Replaces every occurrence of a secret, and of any FRAGMENT_LENGTH-character run of one, however it is
 * written (see ENCODED and formsOf), whitespace and invisibles between its characters or not, with one
 * [REDACTED] per merged span. Linear in the text, whatever the number of needles.
 */
export function createRedactor(secrets: Iterable<Secret | string | undefined>, options: RedactorOptions = {}): Redactor {
  const needles = new Set<string>();
  const refused: RefusedSecret[] = [];
  const whole: string[] = [];
  const vocabulary = options.vocabulary;
  for (const s of secrets) {
    const { value, label } = typeof s === 'object' ? s : { value: s, label: 'a secret' };
    if (!value) continue;
    const bare = value.replace(WHITESPACE_OR_INVISIBLE, '');
    const plain = bare.toLowerCase();
    if (plain.length < MIN_SECRET_LENGTH) {
      refused.push({ label, why: 'short' });
      whole.push(value);
      continue;
    }
    const own: string[] = [];
    for (const form of formsOf(bare)) {
      const text = form.toLowerCase();
      for (let i = 0; i + FRAGMENT_LENGTH <= text.length; i++) own.push(text.slice(i, i + FRAGMENT_LENGTH));
    }
    const kept = vocabulary ? withoutWords(own, vocabulary) : own;
    // The secret's own windows (the first form) all in chatprobe's words: it reads as a word, not a key.
    const plainWindows = plain.length - FRAGMENT_LENGTH + 1;
    if (own.slice(0, plainWindows).every((n) => !kept.includes(n))) {
      refused.push({ label, why: 'common' });
      whole.push(value);
      continue;
    }
    for (const n of kept) needles.add(n);
  }
  const tokens = wholeTokens(whole);
  const list = [...needles];
  if (list.length === 0) {
    return { redact: tokens ?? ((text) => text), refused, spans: () => [] };
  }
  const matcher = matcherFor(list);
  const spans = (text: string): [number, number][] => {
    const found: [number, number][] = [];
    if (text.length < FRAGMENT_LENGTH) return found;
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
      spansIn(text, Math.max(0, from - back), to, matcher, found);
      back = cut ? 0 : OVERLAP;
      from = to;
    }
    if (found.length < 2) return found;
    found.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [found[0]!];
    for (const [s, e] of found) {
      const last = merged[merged.length - 1]!;
      if (s <= last[1]) last[1] = Math.max(last[1], e);
      else merged.push([s, e]);
    }
    return merged;
  };
  const redactNeedles: Redact = (text) => {
    const found = spans(text);
    if (found.length === 0) return text;
    let out = '';
    let from = 0;
    for (const [s, e] of found) {
      out += text.slice(from, s) + REDACTED;
      from = e;
    }
    return out + text.slice(from);
  };
  const redact: Redact = tokens ? (text) => tokens(redactNeedles(text)) : redactNeedles;
  return { redact, refused, spans };
}

/**
 * The pieces of one text as a reader joins them (a stream's deltas), redacted on the joined text: each
 * piece that a secret's span touches has the part it holds replaced. Undefined when no secret is there.
 */
export function redactJoined(pieces: readonly string[], spans: Redactor['spans']): string[] | undefined {
  const found = spans(pieces.join(''));
  if (found.length === 0) return undefined;
  const out: string[] = [];
  let at = 0;
  let k = 0;
  for (const piece of pieces) {
    const end = at + piece.length;
    let text = '';
    let from = at;
    while (k < found.length && found[k]![0] < end) {
      const [s, e] = found[k]!;
      if (e <= from) {
        k++;
        continue;
      }
      text += piece.slice(from - at, Math.max(s, from) - at) + REDACTED;
      from = Math.min(e, end);
      if (e > end) break;
      k++;
    }
    out.push(text + piece.slice(from - at));
    at = end;
  }
  return out;
}
