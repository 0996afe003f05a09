import type { CallRecord } from '../model.js';

export function renderTrace(trace: readonly CallRecord[]): string {
  return trace.map((r) => JSON.stringify(r)).join('\n') + (trace.length > 0 ? '\n' : '');
}
