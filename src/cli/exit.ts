/** Exit codes, as DESIGN.md and the README give them. */
export const EXIT = { ok: 0, failed: 1, cannotTest: 2, interrupted: 130 } as const;
