import type { HttpRequest } from '../http/client.js';
import type { Exchange } from './exchange.js';

/**
 * The calling key's balance as a probe reads it (`ctx.meter`). The engine knows only this contract: the
 * balance routes and their readers are billing/'s (billing/meter.ts, billing/find.ts), reached through what
 * a probe declares (`ProbeDefinition.meter`).
 */

/**
 * One read of the meter: the amount used so far, or why there is none, and the call that read it. `at`:
 * when its answer came (performance.now() ms, the exchange's startedAt + durationMs: kept in the record,
 * so a replay reads the same times); absent for a meter that gives no times (a test's virtual one).
 */
export type Reading = ({ used: number } | { failed: string }) & { callId: string; at?: number };

/** How the run reads the balance, once a meter answered. */
export interface Meter {
  /** The gateway whose balance route answered (new-api, openrouter, litellm, one-api: billing/meter.ts). */
  kind: string;
  /** The route, for people: `GET /api/usage/token` (below the origin) or `GET /v1/key`. */
  route: string;
  unit: string;
  step: number;
  read(): Promise<Reading>;
  /** Waits this long, or less if the run is being stopped. */
  wait(ms: number): Promise<void>;
}

/** What the search for a balance route found: the meter, or each route tried and why it is not one. */
export type MeterSearch = { meter: Meter } | { off: string };

/** What a meter is searched and read through: the run's call log (its calls recorded as the run's) and its clock. */
export interface MeterLine {
  send(req: HttpRequest, probe: string, model: undefined): Promise<Exchange>;
  wait(ms: number): Promise<void>;
}

/** Where a probe that reads the balance finds it: searched once a run, before the plan (GETs only, nothing billed). */
export interface MeterSource {
  /** Which servers show a balance it can read, for the advice when none does ("a gateway that shows …"). */
  where: string;
  find(line: MeterLine, baseUrl: string): Promise<MeterSearch>;
}
