import { describe, expect, it } from 'vitest';
import { askedTokens, Budget, capPassed, capsNearing, CapCounter, SMOKE_ANSWER_TOKENS, type BudgetDecisions, type CapWarning, type SpendingCaps, type Spent } from '../../src/engine/budget.js';
import { CallLog, type Transport } from '../../src/engine/calls.js';
import { capFits } from '../../src/engine/cost.js';
import type { HttpRequest, HttpResponse } from '../../src/http/client.js';
import { RunStop } from '../../src/engine/stop.js';
import { capFitText } from '../../src/cli/plan.js';

/**
 * The spending caps (engine/budget.ts): what a request asks for, the decision before it is sent, the
 * warning at 80%, and what a refusal stops: the run, or one model's row.
 */

const chat = (body: Record<string, unknown>): HttpRequest => ({ method: 'POST', path: '/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...body } });
const none: Spent = { requests: 0, tokens: 0 };
const one = (tokens: number): Spent => ({ requests: 1, tokens });

describe('what a request asks for', () => {
  it('counts the limit sent, times the choices asked for, whichever key carries it', () => {
    expect(askedTokens(chat({ max_tokens: 16 }), 'p')).toBe(16);
    expect(askedTokens(chat({ max_completion_tokens: 48 }), 'p')).toBe(48);
    // Both keys: the larger is what the server may give.
    expect(askedTokens(chat({ max_tokens: 5, max_completion_tokens: 48 }), 'p')).toBe(48);
    expect(askedTokens(chat({ max_tokens: 8, n: 2 }), 'p')).toBe(16);
    // A negative limit (errors.out_of_range's value under test) asks for nothing the server may give.
    expect(askedTokens(chat({ max_tokens: -5 }), 'p')).toBe(0);
  });

  it("counts the smoke call's uncapped first try as the plan does, and nothing for a request without a limit otherwise", () => {
    expect(askedTokens(chat({}), 'smoke')).toBe(SMOKE_ANSWER_TOKENS);
    expect(askedTokens(chat({}), 'errors.missing_messages')).toBe(0);
    expect(askedTokens({ method: 'GET', body: undefined }, 'discovery')).toBe(0);
    expect(askedTokens({ method: 'POST', body: undefined }, 'errors.malformed_json')).toBe(0);
  });
});

describe('the cap decision', () => {
  it('sends the request that reaches a cap and refuses the one that would pass it', () => {
    const caps: SpendingCaps = { maxRequests: 40 };
    expect(capPassed({ run: { requests: 39, tokens: 0 }, model: undefined }, one(16), caps)).toBeUndefined();
    expect(capPassed({ run: { requests: 40, tokens: 0 }, model: undefined }, one(16), caps)).toEqual({ cap: 'maxRequests', limit: 40 });
    expect(capPassed({ run: { requests: 1, tokens: 90 }, model: undefined }, one(16), { maxTokens: 100 })).toEqual({ cap: 'maxTokens', limit: 100 });
    expect(capPassed({ run: { requests: 1, tokens: 84 }, model: undefined }, one(16), { maxTokens: 100 })).toBeUndefined();
  });

  it("checks the whole run's caps before the model's, and a model's only for a request its row pays for", () => {
    const caps: SpendingCaps = { maxRequests: 10, maxRequestsPerModel: 3 };
    expect(capPassed({ run: { requests: 10, tokens: 0 }, model: { requests: 3, tokens: 0 } }, one(0), caps)).toEqual({ cap: 'maxRequests', limit: 10 });
    expect(capPassed({ run: { requests: 5, tokens: 0 }, model: { requests: 3, tokens: 0 } }, one(0), caps)).toEqual({ cap: 'maxRequestsPerModel', limit: 3 });
    expect(capPassed({ run: { requests: 5, tokens: 0 }, model: undefined }, one(0), caps)).toBeUndefined();
    expect(capPassed({ run: none, model: { requests: 0, tokens: 490 } }, one(16), { maxTokensPerModel: 500 })).toEqual({ cap: 'maxTokensPerModel', limit: 500 });
  });

  it('says which caps a request brings to 80%: once, as it crosses', () => {
    expect(capsNearing({ run: { requests: 7, tokens: 0 }, model: undefined }, one(0), { maxRequests: 10 })).toEqual(['maxRequests']);
    expect(capsNearing({ run: { requests: 8, tokens: 0 }, model: undefined }, one(0), { maxRequests: 10 })).toEqual([]);
    expect(capsNearing({ run: { requests: 6, tokens: 0 }, model: undefined }, one(0), { maxRequests: 10 })).toEqual([]);
    // A large request may jump past 80% at once: it still crosses.
    expect(capsNearing({ run: { requests: 0, tokens: 10 }, model: { requests: 0, tokens: 10 } }, one(500), { maxTokens: 1000, maxTokensPerModel: 100 })).toEqual(['maxTokensPerModel']);
  });
});

describe('counting as the run goes', () => {
  const ask = (id: string, model: string | undefined, probe = 'p') => ({ id, probe, model });

  it('counts only what it sends, and warns once a cap, with the first model to get there', () => {
    const warnings: CapWarning[] = [];
    const counter = new CapCounter({ maxRequests: 10, maxRequestsPerModel: 4 }, (w) => warnings.push(w));
    const decide = (model: string) => counter.decide(ask('c', model), chat({ max_tokens: 1 }), model);
    for (let i = 0; i < 4; i++) expect(decide('a')).toBeUndefined();
    // The fifth of model a is refused and not counted: b still has its four, the run six more.
    expect(decide('a')).toEqual({ cap: 'maxRequestsPerModel', limit: 4 });
    for (let i = 0; i < 4; i++) expect(decide('b')).toBeUndefined();
    expect(decide('c')).toBeUndefined();
    expect(decide('c')).toBeUndefined();
    expect(decide('c')).toEqual({ cap: 'maxRequests', limit: 10 });
    expect(warnings).toEqual([
      { cap: 'maxRequestsPerModel', limit: 4, spent: 4, model: 'a' },
      { cap: 'maxRequests', limit: 10, spent: 8 },
    ]);
  });

  it("stops a model's row at its first refusal, though a smaller request would fit; the endpoint probes are no row's", () => {
    const stops: unknown[] = [];
    const budget = new Budget(new CapCounter({ maxTokensPerModel: 50 }), new Set(['auth.bad_key']), (r) => stops.push(r));
    expect(budget.admit(ask('c1', 'a'), chat({ max_tokens: 40 }))).toBeUndefined();
    expect(budget.admit(ask('c2', 'a'), chat({ max_tokens: 16 }))).toEqual({ cap: 'maxTokensPerModel', limit: 50 });
    // 40 + 5 would fit, but which cells ran would then follow the order requests were asked in.
    expect(budget.admit(ask('c3', 'a'), chat({ max_tokens: 5 }))).toEqual({ cap: 'maxTokensPerModel', limit: 50 });
    expect(budget.stopped('a')).toMatchObject({ verdict: 'error', cause: 'budget', notRun: true });
    expect(budget.stopped('a')!.observed).toBe('not run: its model reached --max-tokens-per-model 50 (a spending cap: output tokens asked for) before this cell finished');
    // The other rows, the run, and an endpoint probe hosted on the stopped model go on.
    expect(budget.stopped('b')).toBeUndefined();
    expect(budget.stopped()).toBeUndefined();
    expect(budget.admit(ask('c4', 'a', 'auth.bad_key'), chat({ max_tokens: 16 }))).toBeUndefined();
    expect(budget.admit(ask('c5', 'b'), chat({ max_tokens: 16 }))).toBeUndefined();
    expect(stops).toEqual([]);
    expect(budget.summary()).toEqual([{ cap: 'maxTokensPerModel', limit: 50, models: 1 }]);
  });

  it('stops the run at the first request a whole-run cap refuses, once, and refuses every later one', () => {
    const stops: unknown[] = [];
    const budget = new Budget(new CapCounter({ maxRequests: 2 }), new Set(), (r) => stops.push(r));
    expect(budget.admit(ask('c1', undefined, 'discovery'), { method: 'GET', path: '/models' })).toBeUndefined();
    expect(budget.admit(ask('c2', 'a'), chat({ max_tokens: 1 }))).toBeUndefined();
    expect(budget.admit(ask('c3', 'a'), chat({ max_tokens: 1 }))).toEqual({ cap: 'maxRequests', limit: 2 });
    expect(budget.admit(ask('c4', 'b'), chat({ max_tokens: 1 }))).toEqual({ cap: 'maxRequests', limit: 2 });
    expect(stops).toEqual([{ cap: 'maxRequests', limit: 2 }]);
    expect(budget.stopped('b')!.observed).toBe('not run: the run reached --max-requests 2 (a spending cap: requests sent) before this cell finished');
    expect(budget.summary()).toEqual([{ cap: 'maxRequests', limit: 2 }]);
  });

  it('follows recorded decisions without counting: a replay refuses what the run refused, whatever the order', () => {
    const refused = new Set(['c2']);
    const recorded: BudgetDecisions = { decide: (a) => (refused.has(a.id) ? { cap: 'maxRequestsPerModel', limit: 1 } : undefined) };
    const budget = new Budget(recorded, new Set(), () => undefined);
    expect(budget.admit(ask('c2', 'a'), chat({ max_tokens: 1 }))).toEqual({ cap: 'maxRequestsPerModel', limit: 1 });
    expect(budget.admit(ask('c3', 'b'), chat({ max_tokens: 1 }))).toBeUndefined();
    expect(budget.admit(ask('c9', 'a'), chat({ max_tokens: 1 }))).toEqual({ cap: 'maxRequestsPerModel', limit: 1 });
  });
});

/** A transport that answers every request it is given at once, and counts them. */
function countingTransport(): Transport & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    async send(req: HttpRequest): Promise<HttpResponse> {
      sent.push(req.path);
      return { status: 200, headers: { 'content-type': 'application/json' }, chunks: [{ at: 1, bytes: new TextEncoder().encode('{"choices":[]}') }], bytes: 14, truncated: false, cap: 1 << 20, durationMs: 1, startedAt: 0 };
    },
    prepare: () => ({ headers: {}, payload: undefined }),
    url: (path) => `http://x/v1${path}`,
    close: async () => undefined,
  };
}

describe('the call log with caps', () => {
  it("sends nothing past a whole-run cap: the refused call is said as ours, the run's sending stops, and balance reads go uncounted", async () => {
    const transport = countingTransport();
    const stop = new RunStop(undefined, undefined, undefined);
    const log = new CallLog(transport, stop.sending);
    log.budget = new Budget(new CapCounter({ maxRequests: 2 }), new Set(), (r) => stop.overBudget(r));
    const a = await log.send(chat({ max_tokens: 1 }), 'p', 'm');
    const meter = await log.sendUncounted({ method: 'GET', path: '/key' }, 'billing.meter');
    const b = await log.send(chat({ max_tokens: 1 }), 'p', 'm');
    const c = await log.send(chat({ max_tokens: 1 }), 'p', 'm');
    const d = await log.send(chat({ max_tokens: 1 }), 'q', 'n');
    expect(transport.sent).toEqual(['/chat/completions', '/key', '/chat/completions']);
    for (const x of [a, meter, b]) expect(x.status).toBe(200);
    expect(c.transport).toMatchObject({ code: 'budget', kind: 'stopped', message: 'not sent: --max-requests 2 was reached', cap: 'maxRequests', limit: 2 });
    expect(c.cause).toBe('budget');
    // Refused by the cap, then by the run's stop that followed it: both are cut by the stop, neither is the server's.
    expect(d.transport).toMatchObject({ code: 'budget', cap: 'maxRequests' });
    expect([c, d].every((x) => log.cutByStop(x.callId))).toBe(true);
    expect([a, b].some((x) => log.cutByStop(x.callId))).toBe(false);
    expect(stop.sending.aborted).toBe(true);
    // The cap stops the sending, and cuts nothing in flight: what Ctrl-C and --max-duration cut is untouched.
    expect(stop.signal).toBeUndefined();
    expect(stop.stopped()).toMatchObject({ cause: 'budget', notRun: true });
  });
});

describe('the dry run against the caps', () => {
  const cost = { perModel: { requests: 76, maxTokens: 2572 }, total: { requests: 235, maxTokens: 7796 }, reasoningRoom: { perRequest: 512, perModel: 38400, total: 115200 } };

  it('says for each cap given what the plan needs of it, and whether that fits', () => {
    const fits = capFits({ maxRequests: 235, maxRequestsPerModel: 50, maxTokensPerModel: 3000 }, cost);
    expect(fits).toEqual([
      { cap: 'maxRequests', limit: 235, needs: 235, fits: true },
      { cap: 'maxRequestsPerModel', limit: 50, needs: 76, fits: false },
      { cap: 'maxTokensPerModel', limit: 3000, needs: 2572, fits: true, room: 38400, fitsWithRoom: false },
    ]);
    expect(fits.map(capFitText)).toEqual([
      '--max-requests 235: the plan needs 235 request(s): fits',
      "--max-requests-per-model 50: the plan needs 76 request(s) a model: does not fit (a model's row stops at the cap; cells not reached are not run, cause budget)",
      '--max-tokens-per-model 3000: the plan needs 2572 max tokens a model: fits, but not with room for reasoning (up to +38400 on a model that reasons)',
    ]);
    expect(capFits({}, cost)).toEqual([]);
  });
});
