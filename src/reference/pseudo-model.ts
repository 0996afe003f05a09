/**
 * The reference server's pseudo-model. It follows the plain instructions the probes use, so a feature it
 * honours has a visible effect; it never pretends to be clever. Deterministic at temperature 0.
 */

/** Tokens carry their leading space, like BPE tokens, so joining them gives the text back. */
export function tokenize(text: string): string[] {
  return text.match(/\s*[A-Za-z0-9]+|\s*[^A-Za-z0-9\s]|\s+$/g) ?? [];
}

export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
      .join(' ');
  }
  return '';
}

/** Roughly what a chat template adds: a few tokens per message around its content. */
export function countPromptTokens(messages: readonly { content?: unknown }[]): number {
  let n = 3;
  for (const m of messages) n += 4 + tokenize(messageText(m.content)).length;
  return n;
}

/** The answer the pseudo-model gives to the last user message, before any limit or stop is applied. */
export function answer(prompt: string): string {
  const word = /reply with the single word\s+"?([A-Za-z0-9_-]+)"?/i.exec(prompt);
  if (word) return word[1]!;
  const count = /count from\s+(\d+)\s+to\s+(\d+)/i.exec(prompt);
  if (count) {
    const from = Number(count[1]);
    const to = Math.min(Number(count[2]), from + 500);
    const numbers: number[] = [];
    for (let i = from; i <= to; i++) numbers.push(i);
    return numbers.join(', ');
  }
  return 'This is the reference answer.';
}
