import type { ModelEntry } from '../results/model.js';
import type { StreamExchange } from './exchange.js';

/** A model's stream timings over a run (time to first token, gaps, chunks a second), as medians. */

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const m = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return Math.round(m * 10) / 10;
}

export interface StreamTimes {
  count: number;
  ttft: number[];
  gaps: number[];
  cps: number[];
}

/** Gaps kept per stream for the median: a stream of 120,000 chunks adds a sample, not 120,000 numbers. */
const GAPS_PER_STREAM = 256;

export function recordTimes(t: StreamTimes, s: StreamExchange): void {
  t.count++;
  if (s.ttftMs !== undefined) t.ttft.push(s.ttftMs);
  for (const gap of s.gapsMs.slice(0, GAPS_PER_STREAM)) t.gaps.push(gap);
  const n = s.assembled?.chunkCount ?? 0;
  if (s.durationMs > 0 && n > 0) t.cps.push((n * 1000) / s.durationMs);
}

export function streamMetrics(t: StreamTimes): ModelEntry['metrics'] {
  if (t.count === 0) return undefined;
  const metrics: NonNullable<ModelEntry['metrics']> = { streams: t.count };
  const ttft = median(t.ttft);
  const gap = median(t.gaps);
  const cps = median(t.cps);
  if (ttft !== undefined) metrics.ttftMsMedian = ttft;
  if (gap !== undefined) metrics.gapMsMedian = gap;
  if (cps !== undefined) metrics.chunksPerSecondMedian = cps;
  return metrics;
}
