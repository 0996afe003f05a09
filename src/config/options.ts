import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CannotTestError } from '../errors.js';
import { headerSecrets, type Secret } from '../boundary/secrets.js';
import type { ResolvedOptions } from '../engine/options.js';
import type { PriceList } from '../engine/prices.js';
import type { SpendingCaps } from '../engine/budget.js';
import { readPriceList } from '../billing/prices.js';
import { Cap } from '../results/budget.js';
import { Tier } from '../results/model.js';
import { described, notJson, unreadable } from '../words.js';
import { expectedNumber, rangeFromJsonSchema } from './range.js';

/** The most a spending cap takes: a bound for the schema, far past any run (a billion requests or tokens). */
const MAX_CAP = 1_000_000_000;

/**
 * The audit options, defined once: the CLI flags are derived from this schema (cli/flags.ts), and the
 * defaults and descriptions here are the ones `--help` and the README show.
 */
export const AuditFlags = z.object({
  // A list: repeated, the run audits each endpoint in turn (cli/endpoints.ts). A library caller's one string
  // is taken as the list of it (resolveOptions).
  baseUrl: z
    .array(z.string())
    .default([])
    .describe('Base URL of the API, ending in /v1 (env: OPENAI_BASE_URL); repeat it to audit several endpoints in one run: each gets its own reports in a folder of --out, and --out a matrix.md and report.html with a column per endpoint'),
  apiKeyEnv: z.string().default('OPENAI_API_KEY').describe('Name of the environment variable that holds the API key'),
  models: z.array(z.string()).default([]).describe('Models to audit: ids or globs (default: every listed model)'),
  probes: z.array(z.string()).default([]).describe('Probes to run: ids or globs (default: all but the extended tier; see `chatprobe probes`)'),
  tier: Tier.optional().describe('Probes of a tier: quick (at most 20 requests a model: reachability, the wire, the parameters most clients send), default, or extended (every probe); with --probes, only the named probes of that tier (default: the default tier, or what --probes names)'),
  out: z.string().default('reports').describe('Folder for report.json, junit.xml, matrix.md, report.html, trace.jsonl, exchanges.har and the run record record.jsonl.gz'),
  concurrency: z.number().int().min(1).max(64).default(4).describe('Requests in flight at once'),
  timeout: z.number().positive().max(3600).default(60).describe('Per-request timeout, in seconds (an uncapped smoke call that runs past it is retried with a limit)'),
  header: z.array(z.string()).default([]).describe('Extra request header "K: V" (repeatable), for gateways that route by header'),
  probeFile: z.array(z.string()).default([]).describe('A file of your own probes (repeatable): a .mjs module whose default export is a defineProbe or a list of them, or a declarative .json probe; they run beside chatprobe\'s own'),
  allowUnlisted: z.boolean().default(false).describe('Call models named with --models even when GET /models does not list them'),
  strict: z.boolean().default(false).describe('Fail, not warn, on fields the OpenAI reference requires but clients do not need'),
  requireAuth: z.boolean().default(false).describe('Fail, not warn, when the endpoint answers without a valid key'),
  samples: z.number().int().min(2).max(16).default(3).describe('Samples per setting for the sampling probes (temperature, top_p, seed)'),
  retries: z.number().int().min(0).max(10).default(2).describe('Retries of a 429, or a 503 with Retry-After, waiting as the server asks (30 s at most)'),
  // Bounded by what a timer holds (2^31 ms, about 24.8 days): past it Node fires at once, which ended the run
  // at start (--max-duration) or paced nothing (--rpm).
  rpm: z.number().min(0.001).optional().describe('Requests per minute at most, for the whole run'),
  maxDuration: z.number().positive().max(2_000_000).optional().describe('Seconds the whole run may take, writing the reports included: probing stops early enough to write them; cells not reached are reported as not run (cause deadline) and fail'),
  maxRequests: z.number().int().min(1).max(MAX_CAP).optional().describe('Requests the whole run may send (GET /models and retries included, balance reads not): the request past it is not sent, the run stops there and cells not reached are reported as not run (cause budget) and fail'),
  maxTokens: z.number().int().min(1).max(MAX_CAP).optional().describe('Output tokens the whole run may ask for (the sum of the limits sent, counted as the dry run counts them): the request past it is not sent, the run stops there, as with --max-requests'),
  maxRequestsPerModel: z.number().int().min(1).max(MAX_CAP).optional().describe("Requests each model's row may send (its smoke call and probes; the endpoint probes are the run's): past it that row stops, its cells not reached are not run (cause budget)"),
  maxTokensPerModel: z.number().int().min(1).max(MAX_CAP).optional().describe("Output tokens each model's row may ask for, counted as --max-tokens counts them: past it that row stops, as with --max-requests-per-model"),
  baseline: z.string().optional().describe('Baseline file: each cell is compared with its expected verdict(s); only regressions fail'),
  updateBaseline: z.boolean().default(false).describe('Write the baseline file (--baseline, default chatprobe.baseline.json) from this run: the cells it observed are stored, every other cell is kept'),
  shard: z.string().regex(/^\d+\/\d+$/, 'expected i/n, e.g. 2/3').optional().describe('Audit only shard i of n of the models (e.g. 2/3); merge the reports with `chatprobe merge`'),
  billing: z.boolean().default(true).describe('Audit quota deduction where a balance route answers (new-api, one-api, OpenRouter, LiteLLM); --no-billing turns it off'),
  prices: z.string().optional().describe("Price list (JSON: per model input/output prices, new-api's ratios or its /api/pricing answer; schema/prices.schema.json) each billed call's deduction is compared with"),
  dryRun: z.boolean().default(false).describe('Print the plan and its cost per model; send nothing beyond GET /models and the balance routes'),
  json: z.boolean().default(false).describe('Print the report JSON on stdout instead of the matrix'),
  quiet: z.boolean().default(false).describe('Print nothing but errors (reports are still written)'),
});
export type AuditFlags = z.infer<typeof AuditFlags>;

/** Options as a config file (or a library caller) gives them: the base URL one string or a list. */
export type GivenOptions = Partial<Omit<AuditFlags, 'baseUrl'>> & { baseUrl?: string | string[] | undefined };

export type { ResolvedOptions } from '../engine/options.js';

export { DEFAULT_CONFIG } from './defaults.js';

/**
 * A list option as the config file takes it: a list, or one string as the flag takes it. `--models a,b`
 * and `--models a b` are one string and two on the line; in the file, `"a,b"` and `"a b"` both work.
 */
const listOrText = (flagDescription: string | undefined, text: string) =>
  z.union([z.array(z.string()), z.string()]).optional().describe(`${flagDescription ?? ''}; in the file, a list or ${text}`);

/** A config file carries the same options as the flags (camelCase keys), and never the key itself. */
export const ConfigFile = AuditFlags.partial()
  .extend({
    baseUrl: listOrText(AuditFlags.shape.baseUrl.description, 'one string: one base URL'),
    models: listOrText(AuditFlags.shape.models.description, 'one string of ids or globs separated by commas or spaces'),
    probes: listOrText(AuditFlags.shape.probes.description, 'one string of ids or globs separated by commas or spaces'),
    header: listOrText(AuditFlags.shape.header.description, 'one string: one header'),
    probeFile: listOrText(AuditFlags.shape.probeFile.description, 'one string: one file (a path relative to the working directory, as every path here)'),
    // An editor's schema hint (schema/config.schema.json, shipped in the package) is allowed, and ignored.
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors: ignored by chatprobe'),
  })
  .strict();

/** What an option takes, in words, from its JSON Schema. */
function expectedOf(j: Record<string, unknown>): string {
  if (j.type === 'number' || j.type === 'integer') return expectedNumber(rangeFromJsonSchema(j));
  if (j.type === 'boolean') return 'true or false';
  if (Array.isArray(j.enum)) return `one of ${j.enum.join(', ')}`;
  if (j.type === 'array') return 'a list of strings';
  if (Array.isArray(j.anyOf)) return 'a list of strings, or one string';
  return 'a string';
}

/**
 * The first problem with some options, naming the key (or flag), what it takes and what it got, in our
 * words (zod's, "expected number, received NaN", are not a user's). `raw`: the options as given.
 */
function describeIssue(error: z.ZodError, name: (key: string) => string, raw: unknown, schema: z.ZodObject = ConfigFile): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
    const hint = issue.keys.some((k) => /key|token|secret/i.test(k)) ? ' (the API key is read only from the environment variable named by apiKeyEnv)' : '';
    return `unknown key ${keys}${hint}`;
  }
  const key = String(issue.path[0] ?? '');
  // A pattern's message is ours (--shard's "expected i/n").
  if (issue.code === 'invalid_format') return `${name(key)}: ${issue.message}`;
  const field = schema.shape[key] as z.ZodType | undefined;
  const given = (raw as Record<string, unknown> | null)?.[key];
  if (!field) return `${name(key)}: not an option`;
  const got = issue.path.length > 1 && Array.isArray(given) ? `a list holding ${described(given[Number(issue.path[1])])}` : described(given);
  return `${name(key)}: expected ${expectedOf(z.toJSONSchema(field, { io: 'input' }) as Record<string, unknown>)}, got ${got}`;
}

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Validates a parsed config file; the error names the bad key and the expected type. */
export function parseConfig(raw: unknown, file: string): Partial<AuditFlags> {
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) throw new CannotTestError(`invalid config ${file}: ${describeIssue(parsed.error, (k) => `key "${k}"`, raw)}`);
  const { $schema: _schema, baseUrl, models, probes, header, probeFile, ...config } = parsed.data;
  // One string is the list the flag would make of it (splitList splits models and probes further).
  const asList = (v: string | string[] | undefined) => (typeof v === 'string' ? [v] : v);
  return { ...config, ...(baseUrl !== undefined ? { baseUrl: asList(baseUrl) } : {}), ...(models !== undefined ? { models: asList(models) } : {}), ...(probes !== undefined ? { probes: asList(probes) } : {}), ...(header !== undefined ? { header: asList(header) } : {}), ...(probeFile !== undefined ? { probeFile: asList(probeFile) } : {}) };
}

/**
 * Turns flags, the environment and a config file into options, or a CannotTestError that says what to fix.
 * Precedence: flags, then OPENAI_BASE_URL for the base URL, then the config file, then the defaults.
 */
export function resolveOptions(flags: unknown, env: NodeJS.ProcessEnv, config: GivenOptions = {}): ResolvedOptions {
  const [options, ...more] = resolveEndpoints(flags, env, config);
  if (more.length > 0) throw new CannotTestError(`${more.length + 1} base URLs given: this command checks one endpoint at a time`, 'pass one --base-url (an audit takes several)');
  return options!;
}

/** The base URLs given, as a list: the flag's (repeated, or one string from a library caller), else the environment's, else the file's. */
function baseUrlsOf(flags: unknown, env: NodeJS.ProcessEnv, config: GivenOptions): string[] {
  const listOf = (v: unknown): string[] | undefined => (typeof v === 'string' ? [v] : Array.isArray(v) && v.length > 0 ? (v as string[]) : undefined);
  return listOf((flags as { baseUrl?: unknown } | undefined)?.baseUrl) ?? listOf(env.OPENAI_BASE_URL || undefined) ?? listOf(config.baseUrl) ?? [];
}

/**
 * The options of each endpoint given (`--base-url A --base-url B`, or a list in the config file), in
 * order: one ResolvedOptions each, alike but for the base URL. With several, each writes its reports into
 * a folder of --out of its own (endpointFolder); with one, into --out itself, as always.
 */
export function resolveEndpoints(flags: unknown, env: NodeJS.ProcessEnv, config: GivenOptions = {}): ResolvedOptions[] {
  const urls = baseUrlsOf(flags, env, config);
  const base = resolveOne(flags, env, config, urls[0]);
  if (urls.length <= 1) return [base];
  const seen = new Set<string>();
  return urls.map((url, i) => {
    const options = i === 0 ? base : resolveOne(flags, env, config, url);
    if (seen.has(options.baseUrl)) throw new CannotTestError(`--base-url ${options.baseUrl} is given twice`);
    seen.add(options.baseUrl);
    return { ...options, out: join(options.out, endpointFolder(options.baseUrl, i)) };
  });
}

/**
 * The folder of --out an endpoint's reports go to when a run audits several: its place and host, which
 * carries no secret (a base URL with credentials is refused) and keeps a baseline path stable per endpoint.
 */
export function endpointFolder(baseUrl: string, index: number): string {
  const url = new URL(baseUrl);
  return `${index + 1}-${`${url.host}${url.pathname}`.replace(/[^A-Za-z0-9.]+/g, '-').replace(/^-+|-+$/g, '')}`;
}

function resolveOne(flags: unknown, env: NodeJS.ProcessEnv, config: GivenOptions, url: string | undefined): ResolvedOptions {
  const given = { ...config, ...(flags as object), baseUrl: url === undefined ? [] : [url] };
  const parsed = AuditFlags.safeParse(given);
  if (!parsed.success) throw new CannotTestError(`invalid ${describeIssue(parsed.error, flagName, given, AuditFlags)}`);
  const f = parsed.data;
  const secrets: Secret[] = [];
  const baseUrl = normaliseBaseUrl(f.baseUrl[0], secrets);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.apiKeyEnv)) {
    // Not echoed: a key pasted where its variable's name belongs is the likeliest such value.
    throw new CannotTestError('invalid --api-key-env: not an environment variable name (the value is not shown: it may be the key itself); name the variable that holds the key, e.g. OPENAI_API_KEY');
  }
  const apiKey = env[f.apiKeyEnv] || undefined;
  const flaw = apiKey === undefined ? undefined : keyFlaw(apiKey);
  if (flaw) {
    const v = f.apiKeyEnv;
    throw new CannotTestError(
      `$${v} ${flaw}: the key is at fault, not the server (no request was sent; the key is not shown)`,
      flaw.includes('"Bearer"')
        ? `drop the word, e.g. export ${v}="$(printf %s "$${v}" | sed 's/^[Bb][Ee][Aa][Rr][Ee][Rr][[:space:]]*//')"`
        : `strip it, e.g. export ${v}="$(printf %s "$${v}" | tr -d '[:space:]')" (a trailing line break usually comes from echo or a file read)`,
    );
  }
  // An empty path (an unset variable in a CI line or a templated config) would quietly mean "none".
  for (const [flag, value] of [['baseline', f.baseline], ['out', f.out], ['prices', f.prices], ...f.probeFile.map((v) => ['probe-file', v] as const)] as const) {
    if (value !== undefined && value.trim() === '') throw new CannotTestError(`invalid --${flag}: empty (name a path, or leave it out)`);
  }
  const headers: Record<string, string> = {};
  for (const h of f.header) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      // Without a colon the whole text may be a value: it is not echoed.
      throw new CannotTestError(colon > 0 ? `invalid --header "${name}": expected "Name: value"` : 'invalid --header: expected "Name: value" (no colon found; the text is not shown, it may hold a secret)');
    }
    const value = h.slice(colon + 1).trim();
    if (name.toLowerCase() === 'authorization') {
      throw new CannotTestError('invalid --header: Authorization comes from the key variable (--api-key-env), not from --header');
    }
    if (MANAGED_HEADERS.has(name.toLowerCase())) {
      throw new CannotTestError(`invalid --header "${name}": chatprobe's HTTP client sets it for each request (a value given for all of them would break them)`);
    }
    // Not echoed: the value may be a secret.
    if (/[\r\n\0]/.test(value)) throw new CannotTestError(`invalid --header "${name}": its value holds a line break or a NUL (the value is not shown)`);
    headers[name.toLowerCase()] = value;
    secrets.push(...headerSecrets(name, value));
  }
  return {
    baseUrl,
    apiKey,
    apiKeyEnv: f.apiKeyEnv,
    headers,
    models: splitList(f.models),
    probes: splitList(f.probes),
    probeFiles: [...new Set(f.probeFile)],
    tier: f.tier,
    out: f.out,
    concurrency: f.concurrency,
    timeoutMs: Math.round(f.timeout * 1000),
    allowUnlisted: f.allowUnlisted,
    strict: f.strict,
    requireAuth: f.requireAuth,
    samples: f.samples,
    retries: f.retries,
    rpm: f.rpm,
    maxDurationMs: f.maxDuration === undefined ? undefined : Math.round(f.maxDuration * 1000),
    caps: spendingCaps(f),
    baseline: f.baseline,
    updateBaseline: f.updateBaseline,
    shard: parseShard(f.shard),
    billing: f.billing,
    prices: f.prices === undefined ? undefined : loadPrices(f.prices),
    dryRun: f.dryRun,
    json: f.json,
    quiet: f.quiet,
    secrets,
  };
}

/** The spending caps given, and only those (engine/budget.ts). */
function spendingCaps(f: AuditFlags): SpendingCaps {
  const caps: SpendingCaps = {};
  for (const cap of Cap.options) if (f[cap] !== undefined) caps[cap] = f[cap];
  return caps;
}

/** The price list named by --prices, read and checked before anything is sent. */
export function loadPrices(path: string): PriceList {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CannotTestError(`cannot read --prices ${path}: ${unreadable(e)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CannotTestError(`invalid --prices ${path}: not JSON${notJson(text)}`);
  }
  try {
    return readPriceList(raw, path);
  } catch (e) {
    throw new CannotTestError(`invalid --prices ${path}: ${(e as Error).message}`, 'see "Price list" in the README, or schema/prices.schema.json');
  }
}

function parseShard(text: string | undefined): { index: number; count: number } | undefined {
  if (!text) return undefined;
  const [index, count] = text.split('/').map(Number) as [number, number];
  if (count < 1 || index < 1 || index > count) throw new CannotTestError(`invalid --shard ${text}: expected i/n with 1 ≤ i ≤ n`);
  return { index, count };
}

/**
 * `--models a,b --models c`, `--models a b` and `--models "a b"` mean the same (no model id or probe id
 * holds a space), as do `"a,b"` and `"a b"` in the config file.
 */
function splitList(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => v.split(/[\s,]+/)).filter(Boolean))];
}

/** Headers the HTTP client writes itself, per request and per connection. */
const MANAGED_HEADERS = new Set(['content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'host', 'te', 'trailer']);

/**
 * What makes a key unusable as sent, said without the key: whitespace a copy, `echo` or a file read added.
 * No real key holds whitespace, and a header cannot carry a line break.
 */
export function keyFlaw(key: string): string | undefined {
  const where = (s: string) => (/[\r\n]/.test(s) ? 'a line break' : 'whitespace');
  // "Bearersk-…" too: what stripping the spaces out of "Bearer sk-…" leaves.
  if (/^bearer(\s|sk-)/i.test(key)) return 'starts with the word "Bearer": chatprobe adds it, the variable holds the key alone';
  if (/\s$/.test(key)) return `ends with ${where(/\s+$/.exec(key)![0])}`;
  if (/^\s/.test(key)) return `starts with ${where(/^\s+/.exec(key)![0])}`;
  if (/\s/.test(key)) return `holds ${where(key)} inside it`;
  return undefined;
}

/** Every secret of a run, labelled for warnings: the key first. */
export function secretsOf(options: ResolvedOptions): Secret[] {
  return [{ value: options.apiKey, label: `$${options.apiKeyEnv}` }, ...options.secrets];
}

export function normaliseBaseUrl(input: string | undefined, secrets: Secret[]): string {
  if (!input) {
    throw new CannotTestError('no base URL', 'pass --base-url https://host/v1 or set OPENAI_BASE_URL');
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    // Credentials in a URL that does not parse are still credentials: the part before an @ is not shown.
    throw new CannotTestError(`invalid base URL "${input.replace(/^([^:/]*:\/\/)?[^/]*@/, '$1***@').slice(0, 80)}"`, 'expected an http(s) URL ending in /v1, e.g. https://host/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CannotTestError(`invalid base URL: ${url.protocol} is not http or https`);
  }
  if (url.username || url.password) {
    secrets.push({ value: decodeURIComponent(url.password), label: 'the password in the base URL' }, { value: decodeURIComponent(url.username), label: 'the user name in the base URL' });
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
