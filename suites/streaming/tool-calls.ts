import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, conformance, describeFailure, fail, inconclusive, note, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import type { StreamedToolCall } from '../../src/wire/stream.js';
import { LIMITS, TWO_CITIES_PROMPT, user, WEATHER_TOOL } from '../support/prompts.js';
import { unusableStream } from '../support/streams.js';
import { REACH_SHARED, textToolCall, toolCallsOf, toolsDropped, WEATHER_CALL } from '../support/tools.js';

const names = (list: readonly (string | undefined)[]) => (list.length === 0 ? 'no call' : list.map((n) => n || '?').join(', '));

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The argument fragments (positions) that repeat the fragment before them, when the arguments parse as
 * JSON without them and not with them; else undefined. A racing gateway sends a fragment twice: the
 * arguments then break, and removing the copies gives back the call.
 */
function repeatedFragments(c: StreamedToolCall): number[] | undefined {
  const pieces = c.argumentPieces;
  if (pieces.join('') !== c.arguments) return undefined;
  const repeats = pieces.flatMap((p, i) => (i > 0 && p === pieces[i - 1] ? [i] : []));
  if (repeats.length === 0) return undefined;
  return parses(pieces.filter((_, i) => !repeats.includes(i)).join('')) ? repeats : undefined;
}

/** What is wrong with one rebuilt call, as a client that accumulates fragments by index sees it. */
function callFindings(c: StreamedToolCall, n: number, cutByLimit: boolean): Finding[] {
  const at = `call ${n + 1} (index ${c.index ?? 'missing'})`;
  const out: Finding[] = [];
  if (c.sharedIndex) out.push(fail('shared_index', `${at} arrived on the index of the call before it: a client keyed by index merges the two calls into one`));
  if (typeof c.id !== 'string' || c.id === '') out.push(fail('no_id', `${at}: its first fragment carries ${c.id === '' ? 'id ""' : 'no id'}, so the tool result cannot be sent back`));
  if (c.type !== 'function') out.push(warn('no_type', `${at}: its first fragment carries type ${JSON.stringify(c.type ?? null)}, not "function"`));
  if (c.name === '') out.push(fail('no_name', `${at}: no fragment names the function`));
  else if (c.nameFragments > 1) out.push(warn('name_split', `${at}: the name ${JSON.stringify(c.name)} came in ${c.nameFragments} fragments (OpenAI sends it whole in the first; a client that takes the first fragment's name gets a piece of it)`));
  if (!parses(c.arguments)) {
    const repeats = repeatedFragments(c);
    if (repeats) {
      const which = repeats.map((i) => `fragment ${i + 1} ${JSON.stringify(c.argumentPieces[i]!.slice(0, 40))}`).join(', ');
      out.push(fail('repeated_fragment', `${at}: the joined arguments parse as JSON only without ${which}, each a copy of the fragment before it: they came twice`));
      // Cut by the output limit chatprobe sent: the rest of the arguments may simply not have come yet.
    } else if (!cutByLimit) out.push(fail('arguments_not_json', `${at}: the joined arguments do not parse as JSON: ${JSON.stringify(c.arguments.slice(0, 80))}`));
  }
  return out;
}

/**
 * A streamed answer with tool calls, rebuilt as OpenAI's SDKs rebuild it: every `delta.tool_calls[]`
 * fragment has an `index`; the first fragment of each call has a non-empty `id`, `type: "function"` and
 * the whole name; the arguments joined parse as JSON; `finish_reason` is "tool_calls". The same request
 * without streaming (`plain`) is the control: a model that makes no call there has nothing to stream.
 * Count and names are compared as a note only: the model samples, and the two requests may differ.
 */
export function judgeStreamedToolCalls(x: StreamExchange, plain: Exchange): ProbeVerdict {
  const plainCalls = plain.ok && !answerProblem(plain, 'ended') ? toolCallsOf(plain).calls : [];
  if (x.status !== undefined && x.status >= 400 && x.status < 500 && !x.cause) {
    if (!plain.ok) return inconclusive(`the streamed tools request got ${describeFailure(x)}, and the same request without streaming was refused too (${describeFailure(plain)}): tools are not taken here at all`);
    return conformance([fail('refused', `the streamed tools request got ${describeFailure(x)}, while the same request without streaming was answered`)], '');
  }
  const unusable = unusableStream(x, 'streamed tool calls');
  if (unusable) return unusable;
  const choice = x.assembled!.choices.get(0);
  const calls = choice?.toolCalls ?? [];
  const finish = choice?.finishReasons.at(-1);
  const cutByLimit = finish === 'length';
  const plainSeen = `without streaming: ${names(plainCalls.map((c) => c.name))}`;
  if (calls.length === 0) {
    const text = textToolCall(choice?.content ?? '');
    if (text) return conformance([fail('call_as_text', `the streamed call came as text in the content (${text}): no delta.tool_calls`)], '');
    if (finish === 'tool_calls') return conformance([fail('calls_dropped', 'the stream ends with finish_reason "tool_calls" but no delta.tool_calls fragment came: the calls were dropped on the way')], '');
    if (plainCalls.length === 0) return inconclusive(`no tool call streamed, and none without streaming either (${plainSeen}): nothing to check`);
    return inconclusive(`no tool call streamed (finish_reason ${JSON.stringify(finish ?? null)}), though the model called without streaming (${plainSeen}): it may have chosen otherwise this time`);
  }
  const findings: Finding[] = [];
  if (choice!.toolFragmentsWithoutIndex > 0) findings.push(fail('no_index', `${choice!.toolFragmentsWithoutIndex} delta.tool_calls fragment(s) without an index: the OpenAI SDKs accumulate calls by index`));
  calls.forEach((c, i) => findings.push(...callFindings(c, i, cutByLimit)));
  if (cutByLimit && calls.some((c) => !parses(c.arguments))) findings.push(note('cut', 'the stream was cut by the output limit chatprobe sends before the arguments were complete'));
  else if (finish !== 'tool_calls') findings.push(warn('finish_reason', `finish_reason ${JSON.stringify(finish ?? null)} instead of "tool_calls"`));
  const seen = `streamed: ${names(calls.map((c) => c.name))} in ${calls.reduce((n, c) => n + c.fragments, 0)} fragment(s); ${plainSeen}`;
  findings.push(note('calls', seen));
  const verdict = conformance(findings, `tool calls rebuilt whole from their fragments (${seen})`);
  if (verdict.verdict === 'pass' && cutByLimit && calls.some((c) => !parses(c.arguments))) {
    return inconclusive(`the streamed calls were cut by the output limit chatprobe sends before their arguments ended (${seen})`);
  }
  return verdict;
}

export default defineProbe({
  id: 'streaming.tool_calls',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement:
    'Streamed tool calls rebuild as the OpenAI SDKs rebuild them: every delta.tool_calls fragment has an index; the first of each call has a non-empty id, type "function" and the whole name; the arguments joined parse as JSON; finish_reason is "tool_calls".',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  // parameters.tools' exchanges (REACH_SHARED) tell first whether the tools reach the model at all.
  cost: { requests: 1, maxTokens: LIMITS.tools, shared: [...REACH_SHARED] },
  async run(ctx) {
    const dropped = await toolsDropped(ctx);
    if (dropped) return inconclusive(`skipped: ${dropped}: there is no call to stream`);
    const x = await ctx.stream({ messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], max_tokens: LIMITS.tools });
    return judgeStreamedToolCalls(x, await ctx.shared(WEATHER_CALL));
  },
});
