import type { HttpRequest } from '../http/client.js';
import type { Cause, Finding, ProbeKind, Verdict } from '../report/model.js';
import type { Exchange, StreamExchange } from './exchange.js';

export type Area = 'models' | 'auth' | 'errors' | 'chat' | 'streaming' | 'parameters' | 'roles';

export interface ProbeCost {
  /** Requests the probe sends at most (the model's shared smoke call not included). */
  requests: number;
  /** Sum of the token limits it sends; a probe that sends no limit counts its prompt's expected answer. */
  maxTokens: number;
}

/** A chat request body without `model`: the context adds the model under test. */
export type ChatBody = Record<string, unknown> & { messages: unknown[] };

export interface ProbeContext {
  readonly model: string;
  /** POST /chat/completions with `model` set, not streamed (the body's own `stream` is kept if given). */
  chat(body: ChatBody): Promise<Exchange>;
  /** POST /chat/completions with `stream: true`, read as server-sent events. */
  stream(body: ChatBody): Promise<StreamExchange>;
  /** Any request, sent as it is (auth and malformed-input probes). */
  send(req: HttpRequest): Promise<Exchange>;
  /**
   * The model's smoke call: the plain request with no optional parameter, already made once per model.
   * A parameter is "rejected" only when this succeeded and the same request with the parameter did not.
   */
  control(): Exchange;
}

/** What a probe's run decides; the engine adds ids, evidence, outcome and timing. */
export interface ProbeVerdict {
  verdict: Verdict;
  observed: string;
  findings?: Finding[];
  cause?: Cause;
  status?: number;
  message?: string;
}

export interface ProbeDefinition {
  /** Stable `area.feature[.aspect]`: JUnit name, baseline key and CLI filter. Never renumbered. */
  id: string;
  area: Area;
  kind: ProbeKind;
  /** The normative sentence the probe checks. */
  requirement: string;
  cost: ProbeCost;
  run(ctx: ProbeContext): Promise<ProbeVerdict>;
}

const ID = /^[a-z_]+(\.[a-z0-9_]+)+$/;

export function defineProbe(def: ProbeDefinition): ProbeDefinition {
  if (!ID.test(def.id)) throw new Error(`probe id "${def.id}" is not of the form area.feature[.aspect]`);
  if (!def.id.startsWith(`${def.area}.`)) throw new Error(`probe id "${def.id}" does not start with its area "${def.area}"`);
  return Object.freeze({ ...def, cost: Object.freeze({ ...def.cost }) });
}
