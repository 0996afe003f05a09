import { z } from 'zod';
import { CannotTestError } from '../engine/errors.js';
import { isSecretHeader } from '../http/redact.js';

/**
 * The audit options, defined once: the CLI flags are derived from this schema (cli/flags.ts), and the
 * defaults and descriptions here are the ones `--help` and the README show.
 */
export const AuditFlags = z.object({
  baseUrl: z.string().optional().describe('Base URL of the API, ending in /v1 (env: OPENAI_BASE_URL)'),
  apiKeyEnv: z.string().default('OPENAI_API_KEY').describe('Name of the environment variable that holds the API key'),
  models: z.array(z.string()).default([]).describe('Models to audit: ids or globs (default: every listed model)'),
  probes: z.array(z.string()).default([]).describe('Probes to run: ids or globs (default: all; see `chatprobe probes`)'),
  out: z.string().default('reports').describe('Folder for report.json, junit.xml, matrix.md and trace.jsonl'),
  concurrency: z.number().int().min(1).max(64).default(4).describe('Requests in flight at once'),
  timeout: z.number().positive().max(3600).default(60).describe('Per-request timeout, in seconds'),
  header: z.array(z.string()).default([]).describe('Extra request header "K: V" (repeatable), for gateways that route by header'),
  allowUnlisted: z.boolean().default(false).describe('Call models named with --models even when GET /models does not list them'),
  strict: z.boolean().default(false).describe('Fail, not warn, on fields the OpenAI reference requires but clients do not need'),
  requireAuth: z.boolean().default(false).describe('Fail, not warn, when the endpoint answers without a valid key'),
  samples: z.number().int().min(2).max(16).default(4).describe('Samples per setting for the sampling probes (temperature, top_p, seed)'),
  dryRun: z.boolean().default(false).describe('Print the plan and its cost per model; send nothing beyond GET /models'),
  json: z.boolean().default(false).describe('Print the report JSON on stdout instead of the matrix'),
  quiet: z.boolean().default(false).describe('Print nothing but errors (reports are still written)'),
});
export type AuditFlags = z.infer<typeof AuditFlags>;

export interface ResolvedOptions {
  baseUrl: string;
  apiKey: string | undefined;
  apiKeyEnv: string;
  headers: Record<string, string>;
  models: string[];
  probes: string[];
  out: string;
  concurrency: number;
  timeoutMs: number;
  allowUnlisted: boolean;
  strict: boolean;
  requireAuth: boolean;
  samples: number;
  dryRun: boolean;
  json: boolean;
  quiet: boolean;
  /** Secrets to redact besides the key: credentials in the URL, values of secret-looking headers. */
  secrets: string[];
}

/** Turns raw flags plus the environment into options, or a CannotTestError that says what to fix. */
export function resolveOptions(raw: unknown, env: NodeJS.ProcessEnv): ResolvedOptions {
  const parsed = AuditFlags.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = `--${String(issue.path[0] ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new CannotTestError(`invalid ${flag}: ${issue.message}`);
  }
  const f = parsed.data;
  const secrets: string[] = [];
  const baseUrl = normaliseBaseUrl(f.baseUrl ?? env.OPENAI_BASE_URL, secrets);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.apiKeyEnv)) {
    throw new CannotTestError(`invalid --api-key-env: "${f.apiKeyEnv}" is not an environment variable name`);
  }
  const apiKey = env[f.apiKeyEnv] || undefined;
  const headers: Record<string, string> = {};
  for (const h of f.header) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new CannotTestError(`invalid --header "${colon > 0 ? name : h.slice(0, 20)}": expected "Name: value"`);
    }
    const value = h.slice(colon + 1).trim();
    if (name.toLowerCase() === 'authorization') {
      throw new CannotTestError('invalid --header: Authorization comes from the key variable (--api-key-env), not from --header');
    }
    headers[name.toLowerCase()] = value;
    if (isSecretHeader(name) && value) secrets.push(value);
  }
  return {
    baseUrl,
    apiKey,
    apiKeyEnv: f.apiKeyEnv,
    headers,
    models: splitList(f.models),
    probes: splitList(f.probes),
    out: f.out,
    concurrency: f.concurrency,
    timeoutMs: Math.round(f.timeout * 1000),
    allowUnlisted: f.allowUnlisted,
    strict: f.strict,
    requireAuth: f.requireAuth,
    samples: f.samples,
    dryRun: f.dryRun,
    json: f.json,
    quiet: f.quiet,
    secrets,
  };
}

/** `--models a,b --models c` and `--models a b` mean the same. */
function splitList(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean))];
}

export function normaliseBaseUrl(input: string | undefined, secrets: string[]): string {
  if (!input) {
    throw new CannotTestError('no base URL', 'pass --base-url https://host/v1 or set OPENAI_BASE_URL');
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new CannotTestError(`invalid base URL "${input.slice(0, 80)}"`, 'expected an http(s) URL ending in /v1, e.g. https://host/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CannotTestError(`invalid base URL: ${url.protocol} is not http or https`);
  }
  if (url.username || url.password) {
    secrets.push(decodeURIComponent(url.password), decodeURIComponent(url.username));
    throw new CannotTestError('the base URL carries credentials', 'put the key in the environment variable named by --api-key-env');
  }
  if (url.search || url.hash) {
    throw new CannotTestError('the base URL carries a query or fragment', 'pass the API root only, e.g. https://host/v1');
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/(chat\/completions|models|completions)$/.test(path)) {
    throw new CannotTestError(
      `the base URL ends in ${path.slice(path.lastIndexOf('/'))}`,
      'pass the API root ending in /v1; chatprobe adds /models and /chat/completions itself',
    );
  }
  return `${url.origin}${path}`;
}
