import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, SMOKE_PROMPT, type ChatBody, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { namesAny } from '../../src/engine/verdicts.js';
import { LIMITS, user } from './prompts.js';

/**
 * Parameters whose probes judge one answer to the smoke prompt each by a part of it no other of them
 * changes: n the number of choices, logprobs the first choice's logprobs, the penalties, reasoning_effort
 * and a field no server knows only that the request is answered (and where reasoning shows). One request
 * carries them all, and each probe judges it: an answer is evidence for every parameter it carried.
 *
 * A refusal is one parameter's: the parameters it names (in `error.param` or as a whole word of the
 * message, as refusal() attributes it) take it as theirs, and the rest are sent again together without
 * them, until a request is answered or every parameter has its refusal. A 4xx that names none of them is
 * nobody's: each parameter is then sent alone. So a server that takes them all costs one request, and a
 * refused parameter one more (a refusal's re-send, beyond the plan as a limit sent again is: engine/cost.ts).
 * A failure that is no refusal (a 5xx, a rate limit, a timeout) is every parameter's, as it would have been
 * apart.
 */
export const TOGETHER = {
  n: { extra: { n: 2 }, names: ['n'] },
  logprobs: { extra: { logprobs: true, top_logprobs: 2 }, names: ['logprobs', 'top_logprobs'] },
  presence_penalty: { extra: { presence_penalty: 0.5 }, names: ['presence_penalty'] },
  frequency_penalty: { extra: { frequency_penalty: 0.5 }, names: ['frequency_penalty'] },
  reasoning_effort: { extra: { reasoning_effort: 'low' }, names: ['reasoning_effort'] },
  unknown_field: { extra: { chatprobe_unknown_field: true }, names: ['chatprobe_unknown_field'] },
} as const satisfies Record<string, { extra: Record<string, unknown>; names: readonly string[] }>;

export type TogetherParam = keyof typeof TOGETHER;

/** The answer a parameter is judged by, and the parameters the request carried (itself among them). */
export interface Carried {
  x: Exchange;
  with: readonly TogetherParam[];
}

const base = (): ChatBody => ({ messages: [user(SMOKE_PROMPT)], max_tokens: LIMITS.word });

const bodyOf = (params: readonly TogetherParam[]): ChatBody => Object.assign(base(), ...params.map((p) => TOGETHER[p].extra));

/** The pure part of the split: which of `keys` a failed request's failure belongs to ('all' or 'none' included). */
export function ownersOf<K extends string>(x: Exchange, keys: readonly K[], names: (k: K) => readonly string[]): K[] | 'all' | 'none' {
  if (x.ok) return 'all';
  const named = keys.filter((k) => namesAny(x, names(k)));
  if (named.length > 0) return named;
  // Not a refusal (no status, a 5xx, a rate limit, a timeout): it would have come apart too.
  const refused = !x.cause && x.status !== undefined && x.status >= 400 && x.status < 500;
  return refused ? 'none' : 'all';
}

/**
 * Sends `keys` together in the request `bodyOf` builds, splitting on refusals as said above: each key gets
 * the exchange it is judged by, and the keys that request carried.
 */
export async function sendApartOnRefusal<K extends string>(
  ctx: ProbeContext,
  keys: readonly K[],
  bodyOf: (keys: readonly K[]) => ChatBody,
  names: (k: K) => readonly string[],
): Promise<Map<K, { x: Exchange; with: readonly K[] }>> {
  const out = new Map<K, { x: Exchange; with: readonly K[] }>();
  let left = [...keys];
  while (left.length > 0) {
    const x = await ctx.chat(bodyOf(left));
    const owners = ownersOf(x, left, names);
    if (owners === 'all' || (owners !== 'none' && owners.length === left.length)) {
      for (const k of left) out.set(k, { x, with: left });
      break;
    }
    if (owners === 'none') {
      if (left.length === 1) {
        out.set(left[0]!, { x, with: left });
        break;
      }
      for (const k of left) out.set(k, { x: await ctx.chat(bodyOf([k])), with: [k] });
      break;
    }
    for (const k of owners) out.set(k, { x, with: left });
    left = left.filter((k) => !owners.includes(k));
  }
  return out;
}

/** Sends the parameters together (TOGETHER), splitting on refusals. */
export const sendTogether = (ctx: ProbeContext, params: readonly TogetherParam[]): Promise<Map<TogetherParam, Carried>> =>
  sendApartOnRefusal(ctx, params, bodyOf, (p) => TOGETHER[p].names);

/** The one request (and its re-sends after a refusal) of every parameter of TOGETHER. */
export const PARAMS_TOGETHER = defineShared({
  key: 'chat.params_together',
  // n: 2 asks for two answers of the limit each. Refusals send the rest again: at most once a parameter.
  cost: { requests: 1, maxTokens: 2 * LIMITS.word, resends: Object.keys(TOGETHER).length },
  make: (ctx) => sendTogether(ctx, Object.keys(TOGETHER) as TogetherParam[]),
});

/** The answer `param` is judged by. */
export async function carried(ctx: ProbeContext, param: TogetherParam): Promise<Carried> {
  return (await ctx.shared(PARAMS_TOGETHER)).get(param)!;
}

/** Says in the cell which other parameters the request it was judged by carried. */
export function withOthers(v: ProbeVerdict, c: Carried, param: TogetherParam): ProbeVerdict {
  const others = c.with.filter((p) => p !== param);
  if (others.length === 0) return v;
  return { ...v, observed: `${v.observed} (one request with ${others.join(', ')} too: an answer is evidence for each parameter it carried)` };
}
