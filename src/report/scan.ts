/**
 * A JSON text read a value at a time: where each member of the top-level object lies, and where each
 * element of an array lies, without parsing what is not asked for. `chatprobe repro` reads one cell of a
 * report this way: a report of 100,000 models is 70 MB of text, and parsed whole it needs several times
 * that in objects, which a small heap does not hold.
 */

const WHITE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWhite(text: string, i: number): number {
  while (i < text.length && WHITE.has(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string that begins at `i` (a `"`). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  throw new SyntaxError('unterminated string');
}

/** The index just past the JSON value that begins at `i`. */
export function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 0x22) j = stringEnd(text, j) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new SyntaxError('unterminated object or array');
  }
  let j = i;
  while (j < text.length && !WHITE.has(text.charCodeAt(j)) && !',]}'.includes(text[j]!)) j++;
  if (j === i) throw new SyntaxError(`no value at ${i}`);
  return j;
}

/** Each member of the object that begins at `start` (a `{`): its key and where its value lies. */
export function members(text: string, start = skipWhite(text, 0)): Map<string, { start: number; end: number }> {
  if (text[start] !== '{') throw new SyntaxError('not a JSON object');
  const out = new Map<string, { start: number; end: number }>();
  let i = skipWhite(text, start + 1);
  if (text[i] === '}') return out;
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWhite(text, keyEnd);
    if (text[i] !== ':') throw new SyntaxError(`no ':' after ${JSON.stringify(key)}`);
    const valueStart = skipWhite(text, i + 1);
    const end = valueEnd(text, valueStart);
    out.set(key, { start: valueStart, end });
    i = skipWhite(text, end);
    if (text[i] === '}') return out;
    if (text[i] !== ',') throw new SyntaxError(`no ',' after ${JSON.stringify(key)}`);
    i = skipWhite(text, i + 1);
  }
}

/** Each element of the array that lies at `at`, parsed one at a time. */
export function* elements(text: string, at: { start: number; end: number }): Generator<unknown> {
  if (text[at.start] !== '[') throw new SyntaxError('not a JSON array');
  let i = skipWhite(text, at.start + 1);
  if (text[i] === ']') return;
  for (;;) {
    const end = valueEnd(text, i);
    yield JSON.parse(text.slice(i, end));
    i = skipWhite(text, end);
    if (text[i] === ']') return;
    if (text[i] !== ',') throw new SyntaxError('no \',\' between elements');
    i = skipWhite(text, i + 1);
  }
}

/** The value that lies at `at`, parsed. */
export const valueAt = (text: string, at: { start: number; end: number }): unknown => JSON.parse(text.slice(at.start, at.end));
