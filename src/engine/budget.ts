import type { HttpRequest } from '../http/client.js';
import { Cap, capText, countsRequests, perModelCap, type CapReached } from '../results/budget.js';
import type { ProbeVerdict } from './probe.js';
import { LIMIT_KEYS } from './verdicts.js';

/**
 * The spending caps (--max-requests, --max-tokens, --max-requests-per-model, --max-tokens-per-model),
 * checked before each request is sent (engine/calls.ts CallLog). A request that would pass a cap is not
 * sent: a whole-run cap stops the run there (engine/stop.ts), a per-model cap stops that model's row; the
 * cells it leaves are "not run" with cause `budget`. The caps count what the dry run counts
 * (engine/cost.ts): every request but the balance reads (GETs a gateway does not bill, made around each
 * billed call: one refused would leave a billed call unmeasured), and for tokens what each request asks
 * for, never what the server returns.
 */

export type { Cap, CapReached } from '../results/budget.js';

/** The caps of a run, each optional. */
export type SpendingCaps = Partial<Record<Cap, number>>;

/**
 * What the smoke call's first try, sent without a limit, is counted as: its one-word answer, as the plan
 * counts it (engine/cost.ts).
 */
export const SMOKE_ANSWER_TOKENS = 2;

/** The share of a cap at which stderr is warned, once a cap. */
export const WARN_SHARE = 0.8;

/** What a run, or a model, has spent: requests sent, and the output tokens they asked for. */
export interface Spent {
  requests: number;
  tokens: number;
}

/**
 * The output tokens a request asks for: its limit (the larger, when it names both keys) times the choices
 * it asks for (`n`), as the plan counts `n: 2`. The smoke call's first try carries no limit: it counts
 * SMOKE_ANSWER_TOKENS, as the plan does. Any other request without a limit (GET /models, a body that is not
 * JSON, a refusal probe's body without one) asks for none.
 */
export function askedTokens(req: Pick<HttpRequest, 'method' | 'body'>, probe: string): number {
  const body = req.body;
  if (req.method !== 'POST' || typeof body !== 'object' || body === null || Array.isArray(body)) return 0;
  const fields = body as Record<string, unknown>;
  const limits = LIMIT_KEYS.map((k) => fields[k]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0);
  if (limits.length === 0) return probe === 'smoke' && Array.isArray(fields.messages) ? SMOKE_ANSWER_TOKENS : 0;
  const n = typeof fields.n === 'number' && Number.isInteger(fields.n) && fields.n > 1 ? fields.n : 1;
  return Math.ceil(Math.max(...limits)) * n;
}

const WHOLE_RUN: readonly Cap[] = ['maxRequests', 'maxTokens'];
const PER_MODEL: readonly Cap[] = ['maxRequestsPerModel', 'maxTokensPerModel'];

const spentOn = (cap: Cap, s: Spent): number => (countsRequests(cap) ? s.requests : s.tokens);

/**
 * The cap a request costing `cost` would pass, were it sent now (pure): the whole run's first (it stops
 * the run, whatever the model's say), then its model's (`model`: what the model has spent, none for a
 * request no model's row pays for). A cap is passed when what is spent would exceed it: at
 * --max-requests 40, the 40th request is sent and the 41st is not.
 */
export function capPassed(spent: { run: Spent; model: Spent | undefined }, cost: Spent, caps: SpendingCaps): CapReached | undefined {
  const passes = (cap: Cap, s: Spent) => {
    const limit = caps[cap];
    return limit !== undefined && spentOn(cap, s) + spentOn(cap, cost) > limit ? { cap, limit } : undefined;
  };
  for (const cap of WHOLE_RUN) {
    const hit = passes(cap, spent.run);
    if (hit) return hit;
  }
  if (spent.model) {
    for (const cap of PER_MODEL) {
      const hit = passes(cap, spent.model);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** The caps a sent request brought to WARN_SHARE of their limit (below it before, at or past it after). */
export function capsNearing(before: { run: Spent; model: Spent | undefined }, cost: Spent, caps: SpendingCaps): Cap[] {
  const out: Cap[] = [];
  const crosses = (cap: Cap, s: Spent) => {
    const limit = caps[cap];
    if (limit === undefined) return;
    const at = WARN_SHARE * limit;
    if (spentOn(cap, s) < at && spentOn(cap, s) + spentOn(cap, cost) >= at) out.push(cap);
  };
  for (const cap of WHOLE_RUN) crosses(cap, before.run);
  if (before.model) for (const cap of PER_MODEL) crosses(cap, before.model);
  return out;
}

/** A request as the caps see it: who asked (its probe and model) and what it is. */
export interface BudgetAsk {
  /** The attempt's id: a replay finds the recorded run's decision by it. */
  id: string;
  probe: string;
  model: string | undefined;
}

/** A cap at WARN_SHARE of its limit: once a cap, with what is spent. */
export interface CapWarning {
  cap: Cap;
  limit: number;
  spent: number;
  /** For a per-model cap: the first model to reach the share. */
  model?: string;
}

/**
 * Where the decisions come from: the caps counted as the run goes (CapCounter), or, for a replay, the
 * recorded run's own (record/replay.ts: a request the run did not send for a cap is not sent again).
 * `model`: the row that pays for the request, if any.
 */
export interface BudgetDecisions {
  decide(ask: BudgetAsk, req: HttpRequest, model: string | undefined): CapReached | undefined;
}

/** The caps counted as the run goes: what each request would add, checked before it is sent, and counted once sent. */
export class CapCounter implements BudgetDecisions {
  private readonly run: Spent = { requests: 0, tokens: 0 };
  private readonly models = new Map<string, Spent>();
  private readonly warned = new Set<Cap>();

  constructor(
    private readonly caps: SpendingCaps,
    /** Told once a cap, as the request that brings it to WARN_SHARE of its limit is sent. */
    private readonly onWarning?: (w: CapWarning) => void,
  ) {}

  decide(ask: BudgetAsk, req: HttpRequest, model: string | undefined): CapReached | undefined {
    const cost: Spent = { requests: 1, tokens: askedTokens(req, ask.probe) };
    let own = model === undefined ? undefined : this.models.get(model);
    if (model !== undefined && !own) this.models.set(model, (own = { requests: 0, tokens: 0 }));
    const spent = { run: this.run, model: own };
    const hit = capPassed(spent, cost, this.caps);
    if (hit) return hit;
    for (const cap of capsNearing(spent, cost, this.caps)) {
      if (this.warned.has(cap)) continue;
      this.warned.add(cap);
      const after = perModelCap(cap) ? own! : this.run;
      this.onWarning?.({ cap, limit: this.caps[cap]!, spent: spentOn(cap, after) + spentOn(cap, cost), ...(perModelCap(cap) ? { model: model! } : {}) });
    }
    for (const s of own ? [this.run, own] : [this.run]) {
      s.requests += cost.requests;
      s.tokens += cost.tokens;
    }
    return undefined;
  }
}

/**
 * Why a request is not sent: a cap it would pass. The abort reason of the run's sending once a whole-run
 * cap is reached (engine/stop.ts), as a TimeoutError is --max-duration's.
 */
export class OverBudget extends Error {
  constructor(readonly reached: CapReached) {
    super(`${capText(reached)} was reached`);
    this.name = 'OverBudget';
  }
}

/** What a cap reached makes of the cells it leaves: "not run", cause `budget`. */
export function budgetVerdict(r: CapReached): ProbeVerdict {
  const where = perModelCap(r.cap) ? `its model reached ${capText(r)}` : `the run reached ${capText(r)}`;
  return { verdict: 'error', cause: 'budget', notRun: true, observed: `not run: ${where} (a spending cap: ${countsRequests(r.cap) ? 'requests sent' : 'output tokens asked for'}) before this cell finished` };
}

/**
 * The caps' consequences, whoever decides (BudgetDecisions): the first request a whole-run cap refuses
 * stops the run (`onRunStop`), the first a model's cap refuses stops that model's row, and from then on
 * every request of that row is refused too (a later, smaller one would fit, but which cells ran would then
 * depend on the order requests are asked in). The endpoint probes' requests go to a host model but are no
 * row's: they count for the whole run only.
 */
export class Budget {
  private readonly stoppedModels = new Map<string, CapReached>();
  private runStop: CapReached | undefined;
  /** The caps that refused a request, each once, in the order they did, and the rows each stopped. */
  private readonly reached = new Map<Cap, { limit: number; models: number }>();

  constructor(
    private readonly decisions: BudgetDecisions,
    /** The probes whose requests no model's row pays for: the endpoint probes. */
    private readonly endpointProbes: ReadonlySet<string>,
    private readonly onRunStop: (r: CapReached) => void,
  ) {}

  /** The row that pays for a request: its model's, unless an endpoint probe (or discovery) asked. */
  private rowOf(ask: BudgetAsk): string | undefined {
    return ask.model === undefined || this.endpointProbes.has(ask.probe) ? undefined : ask.model;
  }

  /** Before a request is sent: the cap that refuses it (it is not sent), or undefined (it is sent, and counted). */
  admit(ask: BudgetAsk, req: HttpRequest): CapReached | undefined {
    if (this.runStop) return this.runStop;
    const row = this.rowOf(ask);
    const stopped = row === undefined ? undefined : this.stoppedModels.get(row);
    if (stopped) return stopped;
    const hit = this.decisions.decide(ask, req, row);
    if (!hit) return undefined;
    const seen = this.reached.get(hit.cap) ?? { limit: hit.limit, models: 0 };
    this.reached.set(hit.cap, seen);
    if (perModelCap(hit.cap) && row !== undefined) {
      this.stoppedModels.set(row, hit);
      seen.models++;
    } else {
      this.runStop = hit;
      this.onRunStop(hit);
    }
    return hit;
  }

  /** Why no more cells of `model` (or of the run, without one) run, once a cap stopped it. */
  stopped(model?: string): ProbeVerdict | undefined {
    if (this.runStop) return budgetVerdict(this.runStop);
    const own = model === undefined ? undefined : this.stoppedModels.get(model);
    return own ? budgetVerdict(own) : undefined;
  }

  /** The caps reached, for the report: a per-model cap with the rows it stopped. */
  summary(): { cap: Cap; limit: number; models?: number }[] {
    return [...this.reached].map(([cap, r]) => (perModelCap(cap) ? { cap, limit: r.limit, models: r.models } : { cap, limit: r.limit }));
  }
}
