import { z } from 'zod';

/**
 * The spending caps of a run, as its options name them (config/options.ts): the whole run's first, then
 * each model's. engine/budget.ts checks them before each request; the report says which were reached.
 */
export const Cap = z.enum(['maxRequests', 'maxTokens', 'maxRequestsPerModel', 'maxTokensPerModel']);
export type Cap = z.infer<typeof Cap>;

/** A cap a request would have passed: which, and its limit. */
export interface CapReached {
  cap: Cap;
  limit: number;
}

/** The flag of a cap: `--max-requests-per-model`. */
export const capFlag = (cap: Cap): string => `--${cap.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** A per-model cap stops its model's row; a whole-run cap stops the run. */
export const perModelCap = (cap: Cap): boolean => cap === 'maxRequestsPerModel' || cap === 'maxTokensPerModel';

/** Whether the cap counts requests (else the output tokens they ask for). */
export const countsRequests = (cap: Cap): boolean => cap === 'maxRequests' || cap === 'maxRequestsPerModel';

/** "--max-requests 40", as messages name a cap reached. */
export const capText = (r: CapReached): string => `${capFlag(r.cap)} ${r.limit}`;
