// Moved to src/text.ts (the wire readers clip with it, and they sit below the boundary). This re-export
// stays only until engine/run.ts, engine/calls.ts, cli/audit.ts, cli/judge.ts, cli/merge.ts and
// cli/passthrough.ts import from there; to remove then.
export { clip, oneLine, showControls, wrapText } from '../text.js';
