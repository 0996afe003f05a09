/**
 * How deep chatprobe parses JSON a server sent. V8's JSON.parse recurses per level: a 100,000-deep value
 * (a body, a stream event) overflows the stack, so text that nests deeper than this is not parsed at all,
 * and the cut is said as ours. A chat completion is a dozen levels deep.
 */
export const MAX_JSON_DEPTH = 128;
/** Texts shorter than this cannot nest deep enough to matter, and are not scanned. */
export const DEPTH_CHECKED_CHARS = 16 * 1024;

/** Whether JSON text nests deeper than `max` (brackets inside strings do not count). One pass, no parse. */
export function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** Whether `text` is too deep to parse (see MAX_JSON_DEPTH). */
export const tooDeep = (text: string): boolean => text.length > DEPTH_CHECKED_CHARS && jsonDepthOver(text, MAX_JSON_DEPTH);
