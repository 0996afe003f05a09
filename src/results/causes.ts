import type { Cause } from './model.js';

/**
 * Every failure cause and what it means, decided here once: engine/diagnose.ts turns an answer into a cause,
 * and everything after it (the engine's row stop, the probes that expect a refusal, doctor, the outcome of
 * a cell for a CI gate, the summary's "not run") reads this table instead of keeping a list of its own.
 */
export interface CauseInfo {
  /** What to do about it, as the report's `advice` and doctor's lines say it. */
  advice: string;
  /** A smoke call failing with it stops the model's row: the model's other probes are not run. */
  stopsRow: boolean;
  /**
   * It says nothing about how the endpoint treats a request (the account, the token, the connection, the
   * run): a probe that expects a refusal errors with it instead of judging the answer. A 5xx is not outside:
   * it is the endpoint's answer to the request, and a client error answered with one is a finding.
   */
  outside: boolean;
  /**
   * It refuses the model the request names (a group without it, a model not there): for a request that
   * names no model the endpoint can serve (one that does not exist, a body it cannot read), that refusal is
   * its refusal of the request, and judged.
   */
  refusesModel: boolean;
  /**
   * It came in an HTTP answer that shows the endpoint read the request, so doctor's checks before its own
   * (token, group, quota) passed. Timeouts, transport failures (a redirect, never followed, included), the
   * run's stop and our own failure leave them unknown.
   */
  answered: boolean;
  /** The doctor check it fails (pipeline/doctor.ts gives each its words); none: no check names it. */
  check: DoctorCheck | undefined;
  /** The run's stop (Ctrl-C, --max-duration, a spending cap) came before the cell ran or finished: it was not run. */
  notRun: boolean;
  /**
   * What an error with it means for a CI gate (results/outcome.ts): `judged` like any verdict, against the
   * baseline or as a failure without one; `errored`, our own bug, whatever the baseline says; `skipped`,
   * neither a pass nor a regression (Ctrl-C ends the run with its own exit code). Neither of the last two
   * says anything of the endpoint: such a cell is not compared with the baseline.
   */
  gate: 'judged' | 'errored' | 'skipped';
}

/** The checks doctor runs on a model, in the order an operator checks them. */
export const DOCTOR_CHECKS = ['listed', 'token', 'group', 'quota', 'answers'] as const;
export type DoctorCheck = (typeof DOCTOR_CHECKS)[number];

/** The account's or the gateway's refusal, with an HTTP answer: the row stops, a refusal probe errors. */
const refusal = { stopsRow: true, outside: true, refusesModel: false, answered: true, notRun: false, gate: 'judged' } as const;
/** No answer came: the row stops, and nothing before it is known. */
const unanswered = { stopsRow: true, outside: true, refusesModel: false, answered: false, check: 'answers', notRun: false, gate: 'judged' } as const;
/** The run stopped first: not the model's, nothing known, not run. */
const stopped = { stopsRow: false, outside: true, refusesModel: false, answered: false, check: undefined, notRun: true } as const;

export const CAUSES: Readonly<Record<Cause, CauseInfo>> = {
  auth: { ...refusal, check: 'token', advice: 'the token is at fault: fix it before investigating models' },
  model_not_listed: {
    ...refusal,
    refusesModel: true,
    // Decided from GET /models, with no call of its own.
    answered: false,
    check: 'listed',
    advice: 'the model is not in GET /models; names must come from the live list (--allow-unlisted calls it anyway)',
  },
  model_not_in_group: { ...refusal, refusesModel: true, check: 'group', advice: "the token's group cannot reach this model: check the token's group and the channels serving the model" },
  quota: { ...refusal, check: 'quota', advice: 'the token or account has no quota left: top it up or use another token' },
  rate_limited: { ...refusal, check: 'answers', advice: 'rate limited: lower --concurrency or try again later' },
  upstream: { ...refusal, outside: false, check: 'answers', advice: 'the server or its upstream channel failed: check the channel serving this model' },
  timeout: { ...unanswered, advice: 'no complete answer within --timeout: the server or its upstream is slow or stalled' },
  network: { ...unanswered, advice: 'could not reach the server: check the base URL and the network' },
  harness: { ...stopped, notRun: false, gate: 'errored', advice: 'chatprobe itself failed here: please report it with trace.jsonl' },
  interrupted: { ...stopped, gate: 'skipped', advice: 'the run was interrupted before this ran: run it again' },
  deadline: { ...stopped, gate: 'judged', advice: '--max-duration ran out before this ran: raise it, or audit fewer models or probes per run (--shard)' },
  // As deadline: a cap the user set cut the run short, which a CI gate must see (a cell left unjudged is no pass).
  budget: {
    ...stopped,
    gate: 'judged',
    advice: 'a spending cap (--max-requests, --max-tokens, or a per-model one) was reached before this ran: raise it (the dry run says what the plan needs), or audit less per run (--tier quick, --probes, --models, --shard)',
  },
};

/** What a probe that expects a refusal says of its request. */
export interface RefusedRequest {
  /**
   * The request names no model the endpoint can serve: one that does not exist (errors.unknown_model), or
   * in a body it cannot read (errors.malformed_json). A refusal of the model is then its refusal of the
   * request. Otherwise the request names the row's model, which its smoke call reached.
   */
  noServableModel?: boolean;
}

/**
 * Whether an answer with `cause` says nothing about how the endpoint treats the request, so a probe that
 * expects a refusal errors with the cause instead of judging the answer.
 */
export function outsideTheRequest(cause: Cause | undefined, request: RefusedRequest = {}): cause is Cause {
  if (cause === undefined) return false;
  const c = CAUSES[cause];
  return c.outside && !(request.noServableModel === true && c.refusesModel);
}
