import { z } from 'zod';
import { CannotTestError } from '../errors.js';
import { VERSION } from '../version.js';
import { schemaProblem } from '../words.js';
import { LIMIT_KEYS } from '../engine/verdicts.js';
import type { ChatBody } from '../engine/probe.js';
import { parsePath, sameJson, type DeclarativeSpec, type EffectCheck } from '../../suites/support/declarative.js';

/** Where the declarative probe file's schema is published with the package (it ships schema/probe.schema.json). */
export const PROBE_SCHEMA_URL = `https://unpkg.com/chatprobe@${VERSION}/schema/probe.schema.json`;

/** As defineProbe takes ids: `area.feature[.aspect]`, the area first. */
const ID = /^[a-z_]+(\.[a-z0-9_]+)+$/;

/**
 * A request body as a probe file writes it: the messages, an explicit output limit (every request chatprobe
 * sends carries one, so a model that never stops cannot stall the audit: docs/verdicts.md rule 7), any
 * other field as it is; no `model` (chatprobe sends the model under test) and no `stream` (the declarative
 * form reads one JSON answer; a .mjs probe streams with ctx.stream).
 */
const Body = z
  .object({
    messages: z.array(z.record(z.string(), z.unknown())).min(1).describe('The messages, as the API takes them'),
    max_tokens: z.number().int().positive().optional().describe('The output limit (this or max_completion_tokens is required)'),
    max_completion_tokens: z.number().int().positive().optional().describe('The output limit under its newer name'),
  })
  .catchall(z.unknown())
  .superRefine((b, ctx) => {
    if (!LIMIT_KEYS.some((k) => k in b)) {
      ctx.addIssue({ code: 'custom', message: 'no output limit: add "max_tokens": 16 (or as many as the answer needs); every request chatprobe sends carries one, so a model that never stops cannot stall the audit' });
    }
    if ('model' in b) ctx.addIssue({ code: 'custom', path: ['model'], message: 'chatprobe sends the model under test itself: leave "model" out' });
    if ('stream' in b) ctx.addIssue({ code: 'custom', path: ['stream'], message: 'the declarative form reads one JSON answer: leave "stream" out (a .mjs probe streams with ctx.stream)' });
  })
  .meta({ anyOf: [{ required: ['max_tokens'] }, { required: ['max_completion_tokens'] }], not: { anyOf: [{ required: ['model'] }, { required: ['stream'] }] } });

/** One check of the effect: the value at a path of the answer exists (or not), equals a value, or matches a pattern. */
const Check = z
  .object({
    path: z.string().describe('Where in the answer: keys joined by dots, [n] for a list item, ["odd.key"] for any key, e.g. choices[0].message.safety'),
    exists: z.boolean().optional().describe('true: the path is there (any value, null included); false: it is not'),
    equals: z.json().optional().describe('The value there equals this JSON value'),
    matches: z.string().optional().describe('The value there is a string this regular expression (JavaScript syntax) finds a match in'),
  })
  .strict()
  .superRefine((c, ctx) => {
    const tests = (['exists', 'equals', 'matches'] as const).filter((k) => k in c);
    if (tests.length !== 1) ctx.addIssue({ code: 'custom', message: `a check takes exactly one of "exists", "equals", "matches" (got ${tests.length === 0 ? 'none' : tests.join(', ')})` });
    const steps = parsePath(c.path);
    if (typeof steps === 'string') ctx.addIssue({ code: 'custom', path: ['path'], message: `${JSON.stringify(c.path)} is not a path: ${steps}` });
    if (c.matches !== undefined) {
      try {
        new RegExp(c.matches);
      } catch {
        ctx.addIssue({ code: 'custom', path: ['matches'], message: `${JSON.stringify(c.matches)} is not a regular expression` });
      }
    }
  })
  .meta({ oneOf: [{ required: ['exists'] }, { required: ['equals'] }, { required: ['matches'] }] });

/**
 * A declarative probe file (`*.probe.json`): a request with the feature, the same request without it, and
 * what in the answer shows the effect. It becomes a capability probe under chatprobe's verdict rules
 * (suites/support/declarative.ts).
 */
export const ProbeFile = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors: ignored by chatprobe'),
    id: z.string().regex(ID, 'expected area.feature[.aspect]: lowercase letters, digits and _, the area first (e.g. acme.safe_mode)').describe('Stable id, area.feature[.aspect]: its area is the part before the first dot (a new one is fine)'),
    requirement: z.string().min(1).describe('The sentence the probe checks, as reports show it'),
    tier: z.enum(['default', 'extended']).optional().describe('extended: run only when --probes names it'),
    feature: z.string().min(1).optional().describe('The feature as verdicts name it (default: the fields the request has and the control has not, e.g. safe_mode: true)'),
    names: z.array(z.string().min(1)).optional().describe('Words a refusal of the feature names, in error.param or its message (default: those fields\' names)'),
    request: Body.describe('The request with the feature'),
    control: Body.describe('The same request without the feature: the negative control, and what a refusal is told from'),
    positive: Body.optional().describe('writtenBy "model" only: a request asking for the effect in plain words, without the feature; without it the effect\'s absence is inconclusive, never ignored'),
    writtenBy: z.enum(['server', 'model']).describe('Who writes the effect: "server" (a field it adds, present or not: one answer each decides) or "model" (its text or tool calls: chance and a weak model must be ruled out)'),
    effect: z.array(Check).min(1).describe('What in the answer shows the effect: every check must hold'),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (sameJson(f.request, f.control)) ctx.addIssue({ code: 'custom', path: ['control'], message: 'the control is the request itself: it must be the same request without the feature' });
    if (f.positive && f.writtenBy !== 'model') ctx.addIssue({ code: 'custom', path: ['positive'], message: 'a positive control is for an effect the model writes ("writtenBy": "model"): a field the server adds is there or not' });
  });
export type ProbeFile = z.infer<typeof ProbeFile>;

/** The top-level fields the request has and the control has not (or has otherwise): the feature. */
function featureFields(request: ChatBody, control: ChatBody): string[] {
  const skip = new Set<string>(['messages', ...LIMIT_KEYS]);
  return Object.keys(request).filter((k) => !skip.has(k) && !(Object.hasOwn(control, k) && sameJson(request[k], control[k])));
}

/** A field and its value as `observed` names the feature: `safe_mode: true`. */
function fieldText(k: string, v: unknown): string {
  const json = JSON.stringify(v) ?? 'null';
  return `${k}: ${json.length > 40 ? `${json.slice(0, 37)}...` : json}`;
}

/** A parsed probe file as the spec its probe is made from. */
export function specOf(f: ProbeFile): DeclarativeSpec {
  const request = f.request as ChatBody;
  const control = f.control as ChatBody;
  const fields = featureFields(request, control);
  const effect: EffectCheck[] = f.effect.map((c) => ({
    path: c.path,
    test: c.exists !== undefined ? { exists: c.exists } : c.matches !== undefined ? { matches: c.matches } : { equals: c.equals },
  }));
  return {
    id: f.id,
    area: f.id.slice(0, f.id.indexOf('.')),
    requirement: f.requirement,
    ...(f.tier ? { tier: f.tier } : {}),
    feature: f.feature ?? (fields.length > 0 ? fields.map((k) => fieldText(k, request[k])).join(', ') : 'the probe\'s request'),
    names: f.names ?? fields,
    request,
    control,
    ...(f.positive ? { positive: f.positive as ChatBody } : {}),
    writtenBy: f.writtenBy,
    effect,
  };
}

/** Validates a parsed probe file; the error names the file, where in it, and what is wrong, in our words. */
export function parseProbeFile(raw: unknown, file: string): DeclarativeSpec {
  const parsed = ProbeFile.safeParse(raw);
  if (!parsed.success) {
    throw new CannotTestError(`invalid probe file ${file}: ${schemaProblem(parsed.error, raw)}`, `its JSON Schema: ${PROBE_SCHEMA_URL} (README: Your own probes)`);
  }
  return specOf(parsed.data);
}

/** The JSON Schema of a declarative probe file, for editors (`"$schema"`): generated from the zod model it is validated with. */
export function probeFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ProbeFile, { io: 'input' }) as Record<string, unknown>;
  return { ...schema, $id: PROBE_SCHEMA_URL, title: 'chatprobe declarative probe file (*.probe.json)' };
}
