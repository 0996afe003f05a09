/**
 * Characters a terminal, a log viewer, an XML parser or a reader's eye acts on rather than shows: C0 and C1
 * controls (ESC starts ANSI and OSC sequences, CR rewrites a line), DEL, bidirectional overrides, the BOM,
 * the XML non-characters U+FFFE/U+FFFF and lone surrogates (the joiners emoji and scripts need stay). Tab and line feed are kept; sinks that need one
 * line fold them (oneLine).
 */
const CONTROL =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const HAS_CONTROL = new RegExp(CONTROL.source);

const escapeOf = (c: string): string => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** Control characters as visible escapes (`\x1b`, `\u202e`): the text stays readable and inert. */
export function showControls(text: string): string {
  // Most text has none: a test is cheaper than a replace that copies.
  return HAS_CONTROL.test(text) ? text.replace(CONTROL, escapeOf) : text;
}

/** One line: line breaks and tabs shown as escapes too, for cells, progress lines and annotation titles. */
export function oneLine(text: string): string {
  return showControls(text).replace(/\r\n|\n|\t/g, (c) => (c === '\t' ? '\\t' : '\\n'));
}

/**
 * At most `max` characters, never splitting a surrogate pair, and saying how much was cut. The cut is ours,
 * so the text says so: a reader must not mistake it for what the server sent.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… [${text.length - end} more characters cut by chatprobe]`;
}

/** Greedy word wrap at `width` columns; a word longer than that stands alone. No trailing spaces. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}
