import { z } from 'zod';
import { Verdict } from '../report/model.js';

/**
 * A reference-server profile: data, not code. Per model, how each request feature behaves and which wire
 * quirks it shows, modelled on real servers; `expect` is the oracle the tests compare the audit with
 * (the server never reads it).
 */
export const Rejection = z.object({
  status: z.number().int().min(400).max(599).default(400),
  message: z.string(),
  code: z.string().nullable().default('unsupported_parameter'),
  type: z.string().default('invalid_request_error'),
});
export type Rejection = z.infer<typeof Rejection>;

export const Behaviour = z.union([z.literal('honour'), z.literal('ignore'), z.object({ reject: Rejection })]);
export type Behaviour = z.infer<typeof Behaviour>;

export const ProfileModel = z.object({
  id: z.string().min(1),
  ownedBy: z.string().default('chatprobe-reference'),
  /** False: callable but missing from GET /models. */
  listed: z.boolean().default(true),
  /** Extra keys on the /models entry (vLLM max_model_len, OpenRouter supported_parameters, …). */
  extra: z.record(z.string(), z.unknown()).default({}),
  /** Request parameter → behaviour; a parameter not named is honoured. */
  features: z.record(z.string(), Behaviour).default({}),
  /** Milliseconds between streamed chunks. */
  chunkDelayMs: z.number().min(0).max(1000).default(2),
  /** The verdict each probe should give for this model. */
  expect: z.record(z.string(), Verdict).default({}),
});
export type ProfileModel = z.infer<typeof ProfileModel>;

export const Profile = z.object({
  name: z.string(),
  description: z.string(),
  server: z
    .object({
      /** `html`: every path answers a web page, as a gateway's UI does on a wrong base URL. */
      mode: z.enum(['api', 'html']).default('api'),
      /** Echo the caller's bearer token back in bodies and headers (tests redaction). */
      echoKey: z.boolean().default(false),
    })
    .default({ mode: 'api', echoKey: false }),
  models: z.array(ProfileModel).min(1),
});
export type Profile = z.infer<typeof Profile>;
