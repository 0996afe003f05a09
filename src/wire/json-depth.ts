/**
 * How deep chatprobe parses JSON a server sent. V8 parses any depth, but what walks the value after it
 * does not: JSON.stringify overflows the stack near 4,000 levels, a recursive reader near 10,000, and a
 * 16 KB event holds 8,000 levels. So text that nests deeper than this is not parsed at all, whatever its
 * length, and the cut is said as ours. A chat completion is a dozen levels deep.
 */
export const MAX_JSON_DEPTH = 128;
/** Texts this short cannot nest deeper than MAX_JSON_DEPTH (a level takes a character), and are not scanned. */
export const DEPTH_CHECKED_CHARS = MAX_JSON_DEPTH;

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

/**
 * Whether a value already parsed nests deeper than `max` (the model list is parsed at any depth, see
 * http/client.ts deepJson). A loop, not a recursion: it must not overflow on the value it checks.
 */
export function valueDepthOver(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= max) return true;
    if (Array.isArray(v)) for (const x of v) stack.push([x, depth + 1]);
    else for (const k in v) if (Object.hasOwn(v, k)) stack.push([(v as Record<string, unknown>)[k], depth + 1]);
  }
  return false;
}
