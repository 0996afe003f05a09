import type { MeterLine, MeterSearch, MeterSource } from '../engine/meter.js';
import { METERS, readMeter, routeOf } from './meter.js';
import type { RememberingMeter } from './watch.js';

export type { MeterSearch } from '../engine/meter.js';

/** The probe name balance reads carry in the trace. */
export const METER_PROBE = 'billing.meter';

/**
 * Tries the known balance routes (GETs only, nothing billed) side by side, and keeps the first in their
 * order that answers 200 with its shape: one round trip before the audit starts, not four. Run once,
 * before the plan is priced, so --dry-run says whether billing will be audited.
 */
export async function findMeter(log: MeterLine, baseUrl: string): Promise<MeterSearch> {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const tried: string[] = [];
  const answers = await Promise.all(METERS.map((kind) => log.send({ method: 'GET', ...kind.request, maxBodyBytes: 64 * 1024 }, METER_PROBE, undefined)));
  for (const [i, kind] of METERS.entries()) {
    const route = routeOf(kind, basePath);
    const used = readMeter(kind, answers[i]!);
    if (typeof used === 'string') {
      tried.push(`${route}: ${used}`);
      continue;
    }
    // The memory of what the billing sets learn of this meter (billing/watch.ts), one per run.
    const meter: RememberingMeter = {
      kind: kind.kind,
      route,
      unit: kind.unit,
      step: kind.step,
      async read() {
        const x = await log.send({ method: 'GET', ...kind.request, maxBodyBytes: 64 * 1024 }, METER_PROBE, undefined);
        const v = readMeter(kind, x);
        // When the answer came, by the recorded times of the exchange (a replay reads the same).
        const at = x.status === undefined ? {} : { at: x.startedAt + x.durationMs };
        return typeof v === 'number' ? { used: v, callId: x.callId, ...at } : { failed: v, callId: x.callId, ...at };
      },
      // By the log's clock: a replay of the run (record/replay.ts) does not wait.
      wait: (ms) => log.wait(ms),
      memory: {},
    };
    return { meter };
  }
  return { off: `no balance route answered (${tried.join('; ')})` };
}

/** The gateways' balance routes, as a probe that reads the balance declares them (`ProbeDefinition.meter`). */
export const BALANCE_ROUTES: MeterSource = { where: "a gateway that shows the key's balance (new-api, one-api, OpenRouter, LiteLLM)", find: findMeter };
