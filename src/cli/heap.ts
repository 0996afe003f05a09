import { setFlagsFromString } from 'node:v8';

/**
 * A run makes much short-lived garbage (answers judged and let go): V8's defaults let the heap grow to
 * several times what is live before collecting. Sized for memory (a young generation that does not grow,
 * V8's size-over-speed mode), an audit of 50 models peaks at about 112 MB instead of 142 MB, and its process
 * spends about a third more CPU (1.28–1.47× in our runs), collecting more often: npm run bench measures both
 * ("peak RSS of an audit of 50 models" and the CPU row after it). Against a remote endpoint a run waits
 * on the network, not on this.
 */
export const HEAP_FLAGS = ['--optimize-for-size', '--semi-space-growth-factor=1'] as const;

/**
 * The flags to set: none when node was given either of them, or its opposite, on its own command line
 * (`node --no-optimize-for-size …/chatprobe` keeps V8's defaults; NODE_OPTIONS cannot carry these flags).
 */
export function heapFlags(execArgv: readonly string[]): readonly string[] {
  const chosen = execArgv.some((a) => /^--(no[-_]?)?(optimize[-_]for[-_]size|semi[-_]space[-_]growth[-_]factor)(=|$)/.test(a));
  return chosen ? [] : HEAP_FLAGS;
}

export function sizeHeapForMemory(): void {
  for (const flag of heapFlags(process.execArgv)) setFlagsFromString(flag);
}
