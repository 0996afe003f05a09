#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { AuditFlags } from '../config/options.js';
import { PROFILE_NAMES } from '../reference/profiles.js';
import { VERSION } from '../version.js';
import { auditCommand, demoCommand, EXIT } from './audit.js';
import { pickFlags, yargsOptionsFrom } from './flags.js';
import { err } from './output.js';
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
      (y) => y.options(auditOptions).example('$0 --base-url https://host/v1', 'audit every listed model with $OPENAI_API_KEY'),
      async (args) => {
        code = await auditCommand(pickFlags(AuditFlags, args), process.env);
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
    err(`chatprobe: ${(e as Error)?.message ?? String(e)}\n`);
    process.exitCode = EXIT.cannotTest;
  },
);
