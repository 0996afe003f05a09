import type { HttpRequest } from '../http/client.js';
import type { Cause, Finding, ProbeKind, Verdict } from '../report/model.js';
import type { Exchange, StreamExchange } from './exchange.js';

/** The smoke call's prompt: one word, so the call is cheap without a token limit. */
export const SMOKE_PROMPT = 'Reply with the single word OK.';

export type Area = 'models' | 'auth' | 'errors' | 'chat' | 'streaming' | 'parameters' | 'roles';

export interface ProbeCost {
  /** Requests the probe sends at most, beyond the smoke call and the shared exchanges it reads. */
  requests: number;
  /** Sum of the token limits it sends; a request without a limit counts its prompt's expected answer. */
  maxTokens: number;
  /** Keys of shared exchanges it reads (suites/support/shared.ts): each is paid once per model. */
  shared?: readonly string[];
}

/** A chat request body without `model`: the context adds the model under test. */
export type ChatBody = Record<string, unknown> & { messages: unknown[] };

/** Options a probe may read. */
export interface ProbeOptions {
  /** Strict-tier schema deviations fail instead of warn. */
  strict: boolean;
  /** An endpoint that answers without a valid key fails instead of warns. */
  requireAuth: boolean;
  /** Samples per setting for sampling probes (temperature, top_p, seed). */
  samples: number;
  /** Whether a key is configured (the key itself is never given to probes). */
  hasKey: boolean;
}

export interface ProbeContext {
  /** The model under test; for target-scope probes, a model the smoke calls found callable. */
  readonly model: string;
  readonly options: ProbeOptions;
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
  /** The GET /models exchange of discovery. */
  listing(): Exchange;
  /**
   * One exchange shared by every probe of this model that asks for the same key: several probes read one
   * stream instead of each paying for its own. Concurrent askers share the same call.
   */
  shared<T extends Exchange>(key: string, make: () => Promise<T>): Promise<T>;
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
  /** `model`: once per model (default). `target`: once per endpoint (auth, malformed input, /models). */
  scope?: 'model' | 'target';
  /** The normative sentence the probe checks. */
  requirement: string;
  /** The verdicts this probe can give besides `error`; the oracle test finds each in some profile. */
  verdicts: readonly Verdict[];
  cost: ProbeCost;
  run(ctx: ProbeContext): Promise<ProbeVerdict>;
}

const CAPABILITY: readonly Verdict[] = ['honoured', 'ignored', 'rejected', 'accepted', 'inconclusive'];
const CONFORMANCE: readonly Verdict[] = ['pass', 'warn', 'fail', 'inconclusive'];

const ID = /^[a-z_]+(\.[a-z0-9_]+)+$/;

export function defineProbe(def: ProbeDefinition): ProbeDefinition {
  if (!ID.test(def.id)) throw new Error(`probe id "${def.id}" is not of the form area.feature[.aspect]`);
  if (!def.id.startsWith(`${def.area}.`)) throw new Error(`probe id "${def.id}" does not start with its area "${def.area}"`);
  const allowed = def.kind === 'capability' ? CAPABILITY : CONFORMANCE;
  const stray = def.verdicts.filter((v) => !allowed.includes(v));
  if (stray.length > 0) throw new Error(`probe "${def.id}" (${def.kind}) cannot give ${stray.join(', ')}`);
  return Object.freeze({ scope: 'model', ...def, cost: Object.freeze({ ...def.cost }) });
}
