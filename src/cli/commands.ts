// The commands as data: command-line.ts reads the line by them, help.ts prints the help from them, so the
// two cannot disagree. Nothing here imports more than the flag table: `--help` and `--version` load only this.
import { DEFAULT_CONFIG } from '../config/defaults.js';
import { PROFILE_NAMES } from '../reference/profile-names.js';
import auditFlags from './audit-flags.json' with { type: 'json' };
import { optionsOf, type Flag, type FlagRow, type Positional } from './flags.js';

/** The audit flags (generated from config/options.ts by `npm run schema`; a test keeps it current). */
export const AUDIT_FLAGS = auditFlags as readonly FlagRow[];

/** The audit's own flags, which neither doctor nor passthrough takes: the tier, and the spending caps (engine/budget.ts). */
const AUDIT_ONLY = ['tier', 'maxRequests', 'maxTokens', 'maxRequestsPerModel', 'maxTokensPerModel'];

/** The audit flags passthrough shares. */
const PASSTHROUGH_SHARED = optionsOf(AUDIT_FLAGS, ['probes', 'probeFile', 'allowUnlisted', 'strict', 'requireAuth', 'samples', 'retries', 'maxDuration', 'shard', 'billing', 'dryRun', ...AUDIT_ONLY]);

export type CommandName = 'audit' | 'demo' | 'serve' | 'doctor' | 'merge' | 'compare' | 'repro' | 'judge' | 'probes' | 'upstream' | 'passthrough';

export interface CommandSpec {
  name: CommandName;
  describe: string;
  /** The command run when none is named. */
  isDefault?: boolean;
  /** In the order they come on the line; only the last may be `many`. */
  positionals?: Record<string, Positional>;
  /** By kebab-case name. */
  options: Record<string, Flag>;
  examples?: [string, string][];
}

/** A command as its usage line writes it: the name, then its positionals (`merge <dirs..>`). */
export const usageOf = (c: CommandSpec): string => [c.name, ...Object.entries(c.positionals ?? {}).map(([name, p]) => `<${name}${p.many ? '..' : ''}>`)].join(' ');

const config = (what: string): Flag => ({ type: 'string', describe: `${what} (default: ./${DEFAULT_CONFIG} if present)` });
/** A port to listen on: what listen() takes, checked before it is called. */
const port: Flag = { type: 'number', default: 0, describe: 'Port (0: a free one)', range: { type: 'integer', minimum: 0, maximum: 65535 } };
const profile: Flag = { type: 'string', default: 'default', describe: `Reference profile: ${PROFILE_NAMES.join(', ')}, or a .json path` };

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'audit',
    describe: 'Audit an endpoint (the default command)',
    isDefault: true,
    options: { ...optionsOf(AUDIT_FLAGS), config: config('Config file with the same options as the flags') },
    examples: [
      ['chatprobe --base-url https://host/v1', 'audit every listed model with $OPENAI_API_KEY'],
      ['chatprobe --baseline chatprobe.baseline.json', 'fail only on regressions against a baseline'],
    ],
  },
  {
    name: 'demo',
    describe: 'Start the bundled reference server, audit it and stop it (what `npm start` runs)',
    options: { profile, ...optionsOf(AUDIT_FLAGS, ['baseUrl', 'apiKeyEnv', 'allowUnlisted']) },
  },
  {
    name: 'serve',
    describe: 'Run the reference server and print its base URL',
    options: {
      profile,
      port,
      host: { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on' },
      'api-key-env': { type: 'string', describe: 'Accept only the key in this variable (default: any bearer token)' },
    },
  },
  {
    name: 'doctor',
    describe: 'Check only what stops an audit, in the order operators check it: models list, model listed, token, group, quota, rate limit and upstream',
    options: {
      ...optionsOf(AUDIT_FLAGS, ['probes', 'probeFile', 'out', 'strict', 'requireAuth', 'samples', 'baseline', 'updateBaseline', 'shard', 'dryRun', 'quiet', 'billing', ...AUDIT_ONLY]),
      json: { type: 'boolean', describe: "Print each model's checks as JSON instead of the list" },
      config: config('Config file'),
    },
  },
  {
    name: 'merge',
    describe: 'Merge shard report folders into the report.json, junit.xml, matrix.md and report.html of one run',
    positionals: { dirs: { many: true, describe: 'Report folders written by `--shard i/n` runs' } },
    options: {
      out: { type: 'string', default: 'reports', describe: 'Folder for the merged reports' },
      baseline: { type: 'string', describe: 'Judge the merged cells against this baseline (pass the one the shards used)' },
      json: { type: 'boolean', default: false, describe: 'Print the merged report JSON' },
      quiet: { type: 'boolean', default: false, describe: 'Print nothing but errors' },
    },
  },
  {
    name: 'compare',
    describe: 'The cells that differ between two reports (report.json files or their folders); exit 1 when B is worse than A',
    positionals: {
      a: { describe: 'The reference report (production, the upstream, before)' },
      b: { describe: 'The report to judge (staging, the gateway, after)' },
    },
    options: {
      json: { type: 'boolean', default: false, describe: 'Print the comparison as JSON' },
      html: { type: 'string', describe: "Also write an HTML page of the two runs side by side, differences first, each with both cells' evidence (from each folder's exchanges.har)" },
    },
    examples: [['chatprobe compare prod staging --html compare.html', 'the cells that differ, and a page of them side by side']],
  },
  {
    name: 'repro',
    describe: "The curl commands that reproduce a cell (its evidence, from exchanges.har, the key as $OPENAI_API_KEY), with what was expected and seen",
    positionals: {
      report: { describe: 'report.json, or the folder holding it and exchanges.har' },
      model: { describe: 'The model id, or (endpoint)' },
      probe: { describe: 'The probe id' },
    },
    options: {},
  },
  {
    name: 'judge',
    describe: "Judge a recorded run again, offline, from its record (record.jsonl.gz): the same reports, by this chatprobe's rules, and every cell judged otherwise than the run's report",
    positionals: { run: { describe: 'A report folder holding record.jsonl.gz (or the file itself)' } },
    options: {
      out: { type: 'string', describe: 'Folder for the reports (default: judged/ inside the run\'s folder)' },
      baseline: { type: 'string', describe: 'Judge the cells against this baseline' },
      'probe-file': { type: 'string', many: true, describe: 'The probe files the run was given (--probe-file): a record holds their calls, not the probes' },
      prices: { type: 'string', describe: "Weigh the recorded deductions against this price list instead of the run's (--prices)" },
      json: { type: 'boolean', default: false, describe: 'Print the report JSON on stdout instead of the matrix' },
      quiet: { type: 'boolean', default: false, describe: 'Print nothing but errors, what the record could not answer, and the cells judged otherwise' },
    },
    examples: [
      ['chatprobe judge reports', "yesterday's run in reports/, judged by today's rules, into reports/judged/"],
      ['chatprobe judge reports --prices prices.json', "the same run's deductions set beside another price list"],
    ],
  },
  {
    name: 'upstream',
    describe: "Run chatprobe's recording upstream, to point one channel of a gateway at (for `passthrough`)",
    options: {
      port,
      host: { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on (the gateway must reach it)' },
      models: { type: 'string', default: 'chatprobe-upstream', describe: 'Model ids it lists at GET /v1/models, comma-separated' },
    },
  },
  {
    name: 'passthrough',
    describe: 'Send requests through a gateway to chatprobe upstream and report, per field, what the gateway forwards, renames, changes, drops or adds, both ways',
    options: {
      ...PASSTHROUGH_SHARED,
      // The audit's text tells of its smoke call, which passthrough does not make.
      timeout: { ...PASSTHROUGH_SHARED.timeout!, describe: 'Per-request timeout, in seconds (also the longest silence inside a stream)' },
      models: { type: 'string', many: true, describe: 'The model name(s) the gateway routes to chatprobe upstream (required)' },
      'update-baseline': { type: 'boolean', describe: 'Write the baseline file (--baseline, default chatprobe.passthrough.baseline.json) from this run' },
      upstream: { type: 'string', required: true, describe: 'Where chatprobe upstream listens, as chatprobe reaches it (http://HOST:PORT; required)' },
      cases: { type: 'string', describe: 'Only these cases, comma-separated (ids as in the matrix, with or without "passthrough."; an unknown id lists them all)' },
    },
    examples: [['chatprobe passthrough --upstream http://h:8788 --models m', 'what the gateway at --base-url does to requests and answers']],
  },
  {
    name: 'probes',
    describe: 'List every probe: id, kind, cost, requirement',
    options: {
      json: { type: 'boolean', default: false, describe: 'Print JSON' },
      'probe-file': { type: 'string', many: true, describe: 'List the probes of these files too, checked as an audit loads them' },
    },
  },
];

export const USAGE = 'Audits an OpenAI-compatible chat-completion endpoint: what each model honours, ignores or rejects.';

export const ENVIRONMENT: [string, string][] = [
  ['OPENAI_BASE_URL', 'base URL when --base-url is not given'],
  ['OPENAI_API_KEY', 'the key (or the variable named by --api-key-env); sent only as "Authorization: Bearer"'],
  ['NO_COLOR', 'plain output'],
];

export const EXIT_CODES = 'Exit codes: 0 nothing failed, 1 a failure, 2 could not test (bad options, 401 on /models, no model, a report not written), 130 interrupted.';
