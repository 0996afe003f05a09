#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { AuditFlags, DEFAULT_CONFIG } from '../config/options.js';
import { PROFILE_NAMES } from '../reference/profiles.js';
import { VERSION } from '../version.js';
import { auditCommand, demoCommand } from './audit.js';
import { compareCommand } from './compare.js';
import { doctorCommand } from './doctor.js';
import { EXIT } from './exit.js';
import { mergeCommand } from './merge.js';
import { pickFlags, yargsOptionsFrom } from './flags.js';
import { err } from './output.js';
import { oneLine } from '../boundary/text.js';
import { probesCommand } from './probes.js';
import { serveCommand } from './serve.js';

const EPILOG = `Environment:
  OPENAI_BASE_URL   base URL when --base-url is not given
  OPENAI_API_KEY    the key (or the variable named by --api-key-env); sent only as "Authorization: Bearer"
  NO_COLOR          plain output

Exit codes: 0 nothing failed, 1 a failure, 2 could not test (bad options, 401 on /models, no model), 130 interrupted.`;

async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const auditOptions = yargsOptionsFrom(AuditFlags);
  await yargs(argv)
    .scriptName('chatprobe')
    .usage('$0 [command] [options]\n\nAudits an OpenAI-compatible chat-completion endpoint: what each model honours, ignores or rejects.')
    .command(
      ['audit', '$0'],
      'Audit an endpoint (the default command)',
      (y) =>
        y
          .options(auditOptions)
          .option('config', { type: 'string', describe: `Config file with the same options as the flags (default: ./${DEFAULT_CONFIG} if present)` })
          .example('$0 --base-url https://host/v1', 'audit every listed model with $OPENAI_API_KEY')
          .example('$0 --baseline chatprobe.baseline.json', 'fail only on regressions against a baseline'),
      async (args) => {
        code = await auditCommand(pickFlags(AuditFlags, args), process.env, args.config);
      },
    )
    .command(
      'demo',
      'Start the bundled reference server, audit it and stop it (what `npm start` runs)',
      (y) =>
        y
          .option('profile', { type: 'string', default: 'default', describe: `Reference profile: ${PROFILE_NAMES.join(', ')}, or a .json path` })
          .options(yargsOptionsFrom(AuditFlags, ['baseUrl', 'apiKeyEnv', 'allowUnlisted'])),
      async (args) => {
        code = await demoCommand(String(args.profile), pickFlags(AuditFlags, args), process.env);
      },
    )
    .command(
      'serve',
      'Run the reference server and print its base URL',
      (y) =>
        y
          .option('profile', { type: 'string', default: 'default', describe: `Reference profile: ${PROFILE_NAMES.join(', ')}, or a .json path` })
          .option('port', { type: 'number', default: 0, describe: 'Port (0: a free one)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on' })
          .option('api-key-env', { type: 'string', describe: 'Accept only the key in this variable (default: any bearer token)' }),
      async (args) => {
        code = await serveCommand({ profile: args.profile, port: args.port, host: args.host, apiKeyEnv: args.apiKeyEnv }, process.env);
      },
    )
    .command(
      'doctor',
      "Check only what stops an audit, in the order operators check it: models list, model listed, token, group, quota, rate limit and upstream",
      (y) =>
        y
          .options(yargsOptionsFrom(AuditFlags, ['probes', 'out', 'strict', 'requireAuth', 'samples', 'baseline', 'updateBaseline', 'shard', 'dryRun', 'quiet']))
          .option('config', { type: 'string', describe: `Config file (default: ./${DEFAULT_CONFIG} if present)` }),
      async (args) => {
        code = await doctorCommand(pickFlags(AuditFlags, args), process.env, args.config);
      },
    )
    .command(
      'merge <dirs..>',
      'Merge shard report folders into the report.json, junit.xml and matrix.md of one run',
      (y) =>
        y
          .positional('dirs', { type: 'string', array: true, describe: 'Report folders written by `--shard i/n` runs' })
          .option('out', { type: 'string', default: 'reports', describe: 'Folder for the merged reports' })
          .option('baseline', { type: 'string', describe: 'Judge the merged cells against this baseline (pass the one the shards used)' })
          .option('json', { type: 'boolean', default: false, describe: 'Print the merged report JSON' })
          .option('quiet', { type: 'boolean', default: false, describe: 'Print nothing but errors' }),
      async (args) => {
        code = await mergeCommand((args.dirs ?? []).map(String), { out: args.out, json: args.json, quiet: args.quiet, baseline: args.baseline }, process.env);
      },
    )
    .command(
      'compare <a> <b>',
      'The cells that differ between two reports (report.json files or their folders); exit 1 when B is worse than A',
      (y) =>
        y
          .positional('a', { type: 'string', describe: 'The reference report (production, the upstream, before)' })
          .positional('b', { type: 'string', describe: 'The report to judge (staging, the gateway, after)' })
          .option('json', { type: 'boolean', default: false, describe: 'Print the comparison as JSON' }),
      async (args) => {
        code = await compareCommand(String(args.a), String(args.b), { json: args.json });
      },
    )
    .command(
      'probes',
      'List every probe: id, kind, cost, requirement',
      (y) => y.option('json', { type: 'boolean', default: false, describe: 'Print JSON' }),
      (args) => {
        code = probesCommand(args.json);
      },
    )
    .epilog(EPILOG)
    .strict()
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((msg, e) => {
      // A custom fail handler must throw, or yargs still runs the command on invalid input.
      if (e) throw e;
      err(`chatprobe: ${msg}\nRun "chatprobe --help" for usage.\n`);
      throw new UsageError(msg);
    })
    .parseAsync();
  return code;
}

class UsageError extends Error {}

main(hideBin(process.argv)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError) {
      process.exitCode = EXIT.cannotTest;
      return;
    }
    err(`chatprobe: ${oneLine((e as Error)?.message ?? String(e))}\n`);
    process.exitCode = EXIT.cannotTest;
  },
);
