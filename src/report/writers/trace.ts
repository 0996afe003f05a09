import type { CallRecord } from '../../results/model.js';

/** trace.jsonl: one JSON line per call record. */
export function traceLines(records: readonly CallRecord[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}
