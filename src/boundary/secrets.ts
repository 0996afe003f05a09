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

/** Headers whose values are secrets when a user passes them with --header. */
const SECRET_HEADER = /auth|key|token|secret|cookie|session|password|credential|signature/i;

export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

export interface Secret {
  value: string | undefined;
  /** What the secret is, for warnings: never the value. */
  label: string;
}

export interface Redactor {
  redact: Redact;
  /** Labels of secrets too short to search for (warned about once). */
  refused: string[];
}

const hex = (c: string, upper: boolean) => {
  const h = c.charCodeAt(0).toString(16).padStart(4, '0');
  return `\\u${upper ? h.toUpperCase() : h}`;
};

/** The ways a run of secret characters can be written in text a server sends or we write. */
function encodings(window: string): string[] {
  const out = new Set<string>([window, JSON.stringify(window).slice(1, -1)]);
  try {
    out.add(encodeURIComponent(window));
  } catch {
    // A lone surrogate has no URL encoding.
  }
  out.add([...window].map((c) => hex(c, false)).join(''));
  out.add([...window].map((c) => hex(c, true)).join(''));
  return [...out];
}

/**
 * Replaces every occurrence of a secret, and of any FRAGMENT_LENGTH-character run of one, in its plain, JSON,
 * URL and \u-escaped forms. Overlapping matches merge into one [REDACTED], so a whole key becomes one marker
 * and a cut key loses every part long enough to matter. Linear in the text per needle (indexOf).
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
    for (let i = 0; i + FRAGMENT_LENGTH <= value.length; i++) {
      for (const e of encodings(value.slice(i, i + FRAGMENT_LENGTH))) needles.add(e);
    }
  }
  const list = [...needles];
  if (list.length === 0) return { redact: (text) => text, refused };
  const redact: Redact = (text) => {
    if (text.length < FRAGMENT_LENGTH) return text;
    const spans: [number, number][] = [];
    for (const needle of list) {
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) spans.push([at, at + needle.length]);
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
