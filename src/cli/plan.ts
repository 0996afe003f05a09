import { oneLine } from '../text.js';
import type { PlanSummary } from '../engine/run.js';
import type { CapFit } from '../engine/cost.js';
import { DEFAULT_REQUESTS, INTERFACE_REQUESTS, NOT_INTERFACE, QUICK_REQUESTS } from '../engine/probe.js';
import { capText, countsRequests, perModelCap } from '../results/budget.js';
import { extentText } from '../report/style.js';
import { ROOM_FACTOR, ROOM_SLACK } from '../engine/room.js';

/** The --dry-run plan as text: what would be sent, per area and per model. */
export function renderPlan(plan: PlanSummary): string {
  const called = plan.models.filter((m) => m.call);
  const lines: string[] = [];
  lines.push(`plan: ${extentText(called.length, plan.probes)} at ${oneLine(plan.baseUrl)} (dry run: nothing sent beyond GET /models${plan.billing && ('route' in plan.billing || plan.billing.off.startsWith('no balance route')) ? ' and the balance routes' : ''})`);
  for (const m of plan.models) lines.push(`  ${oneLine(m.id)}${m.call ? '' : m.listed ? '' : '  (not listed: reported, not called)'}${!m.listed && m.call ? '  (not listed: called anyway)' : ''}`);
  lines.push('');
  lines.push('per model:');
  const width = Math.max(8, ...plan.perArea.map((a) => a.area.length));
  lines.push(`  ${'smoke'.padEnd(width)}  ${'1'.padStart(4)} request(s)  ${'2'.padStart(5)} max tokens`);
  for (const a of plan.perArea) {
    lines.push(`  ${a.area.padEnd(width)}  ${String(a.requests).padStart(4)} request(s)  ${String(a.maxTokens).padStart(5)} max tokens  (${a.probes} probe(s))`);
  }
  lines.push(`  ${'total'.padEnd(width)}  ${String(plan.perModel.requests).padStart(4)} request(s)  ${String(plan.perModel.maxTokens).padStart(5)} max tokens`);
  const room = plan.reasoningRoom;
  if (plan.unrepeatable > 0) lines.push(`  a model whose answers repeat neither at temperature 0 nor with a seed (or a run without parameters.temperature): up to ${plan.unrepeatable} request(s) more (the contrasts' further answers, which chance needs where one answer a side cannot decide)`);
  if (plan.resends > 0) lines.push(`  a model that refuses some of what is sent together, or temperature 0: up to ${plan.resends} request(s) more (each refusal sends the rest again; none where the server takes it all)`);
  lines.push(`  a model whose smoke call shows reasoning: up to ${room.perModel} max tokens more (room for its reasoning on each limit: ${ROOM_FACTOR} × the smoke call's reasoning tokens + ${ROOM_SLACK}, at most ${room.perRequest} a request)`);
  if (plan.endpoint.probes > 0) {
    lines.push('', `endpoint, once: ${plan.endpoint.requests} request(s), ${plan.endpoint.maxTokens} max tokens (${plan.endpoint.probes} probe(s))`);
  }
  if (plan.billing && 'off' in plan.billing) lines.push('', `billing: off: ${oneLine(plan.billing.off)}`);
  else if (plan.billing) {
    lines.push('', `billing: through ${oneLine(plan.billing.route)} (${plan.billing.kind}, in ${plan.billing.unit}); its calls run last, one model at a time, each between two reads of the balance (GETs, not billed, not counted here)`);
  }
  lines.push('', `whole run: ${plan.total.requests} request(s), ${plan.total.maxTokens} max tokens (GET /models included); up to +${plan.reasoningRoom.total} max tokens more if every model reasons`);
  lines.push('max tokens: the sum of the limits sent; a request without a limit counts the answer its prompt asks for.');
  lines.push('', 'tiers (--tier), per model, the smoke call included:');
  const goal = (n: number, requests: number) => `  goal: at most ${n} requests${requests > n ? `: ${requests - n} over` : ''}`;
  for (const t of plan.tiers) {
    const g = t.tier === 'quick' ? goal(QUICK_REQUESTS, t.requests) : t.tier === 'default' ? goal(DEFAULT_REQUESTS, t.requests) : '';
    lines.push(`  ${t.tier.padEnd(8)}  ${String(t.requests).padStart(4)} request(s)  ${String(t.maxTokens).padStart(5)} max tokens  (${t.probes} probe(s))${g}`);
  }
  const i = plan.interface;
  lines.push(`  of default, the interface audit (all but ${NOT_INTERFACE.map((a) => `${a}.*`).join(', ')}): ${i.requests} request(s), ${i.maxTokens} max tokens (${i.probes} probe(s))${goal(INTERFACE_REQUESTS, i.requests)}`);
  if (plan.caps.length > 0) {
    lines.push('', 'spending caps (the plan at most; retries, resends, further contrast answers and room for reasoning come on top and are counted too):');
    for (const c of plan.caps) lines.push(`  ${capFitText(c)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** One cap against the plan: "--max-requests 100: the plan needs 242: does not fit (the run stops at the cap)". */
export function capFitText(c: CapFit): string {
  const what = countsRequests(c.cap) ? 'request(s)' : 'max tokens';
  const needs = `${capText(c)}: the plan needs ${c.needs} ${what}${perModelCap(c.cap) ? ' a model' : ''}`;
  if (!c.fits) return `${needs}: does not fit (${perModelCap(c.cap) ? "a model's row stops at the cap" : 'the run stops at the cap'}; cells not reached are not run, cause budget)`;
  if (c.fitsWithRoom === false) return `${needs}: fits, but not with room for reasoning (up to +${c.room}${perModelCap(c.cap) ? ' on a model that reasons' : ' if every model reasons'})`;
  return `${needs}: fits`;
}
