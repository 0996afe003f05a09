/**
 * Prompts the probes send. Each makes the behaviour under test visible in a word or a number, never in
 * answer quality. The reference server's pseudo-model follows these same plain instructions.
 */
/** A long, predictable answer: every number is at least one token, so the count bounds the tokens. */
export function countingPrompt(to: number): string {
  return `Count from 1 to ${to}, separated by commas. Write nothing else.`;
}

export const user = (content: unknown) => ({ role: 'user', content });

/** The integers in a text, in order. */
export function numbersIn(text: string): number[] {
  return (text.match(/\d+/g) ?? []).map(Number);
}
