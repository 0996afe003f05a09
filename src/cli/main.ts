#!/usr/bin/env node
// --help and --version are answered from the command table alone; a command loads the argument parser,
// then its own code when it runs (bench/run.ts measures the start-up against `node -e 0`).
import { VERSION } from '../version.js';
import { sizeHeapForMemory } from './heap.js';
import { AUDIT_FLAGS, COMMANDS, type CommandName } from './commands.js';
import { EXIT } from './exit.js';
import { helpRequest, helpWidth, renderHelp } from './help.js';
import { flagProblem, pickFlags, usageMessage } from './flags.js';
import { Boundary } from '../boundary/boundary.js';
import type { Secret } from '../boundary/secrets.js';
import { err, useBoundary } from './output.js';
import { oneLine } from '../boundary/text.js';

type Args = Record<string, unknown>;

/** A comma-separated flag as a list (undefined when not given). */
const list = (v: unknown): string[] | undefined =>
  v === undefined ? undefined : String(v).split(',').map((s) => s.trim()).filter(Boolean);

/** Each command's code, imported when it runs. */
const RUN: Record<CommandName, (args: Args) => Promise<number>> = {
  audit: async (args) => (await import('./audit.js')).auditCommand(pickFlags(AUDIT_FLAGS, args), process.env, args.config as string | undefined),
  demo: async (args) => (await import('./audit.js')).demoCommand(String(args.profile), pickFlags(AUDIT_FLAGS, args), process.env),
  serve: async (args) =>
    (await import('./serve.js')).serveCommand(
      { profile: args.profile as string, port: args.port as number, host: args.host as string, apiKeyEnv: args.apiKeyEnv as string | undefined },
      process.env,
    ),
  doctor: async (args) => (await import('./doctor.js')).doctorCommand(pickFlags(AUDIT_FLAGS, args), process.env, args.config as string | undefined),
  merge: async (args) =>
    (await import('./merge.js')).mergeCommand(((args.dirs as unknown[] | undefined) ?? []).map(String), { out: args.out as string, json: args.json as boolean, quiet: args.quiet as boolean, baseline: args.baseline as string | undefined }, process.env),
  compare: async (args) => (await import('./compare.js')).compareCommand(String(args.a), String(args.b), { json: args.json as boolean }),
  repro: async (args) => (await import('./repro.js')).reproCommand(String(args.report), String(args.model), String(args.probe)),
  probes: async (args) => (await import('./probes.js')).probesCommand(args.json as boolean),
  upstream: async (args) => (await import('./upstream.js')).upstreamCommand({ port: args.port as number, host: args.host as string, models: list(args.models) ?? [] }),
  passthrough: async (args) =>
    (await import('./passthrough.js')).passthroughCommand(pickFlags(AUDIT_FLAGS, args), { upstream: String(args.upstream), cases: list(args.cases) }, process.env),
};

async function main(argv: string[]): Promise<number> {
  const asked = helpRequest(argv);
  if (asked.help) {
    process.stdout.write(renderHelp(asked.help === 'top' ? undefined : asked.help, helpWidth(process.stdout.columns)));
    return EXIT.ok;
  }
  if (asked.version) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  sizeHeapForMemory();
  // Until a command knows its own secrets (and guards its output with them), every line it prints is
  // cleaned of the ones known now: a key pasted where a path, a URL or a positional belongs must not be
  // printed back by an error about it.
  useBoundary(Boundary.of(startupSecrets(argv, process.env)));
  const { default: yargs } = await import('yargs');
  let code: number = EXIT.ok;
  let parser = yargs(argv)
    .scriptName('chatprobe')
    .strict()
    .version(false)
    .help(false);
  for (const spec of COMMANDS) {
    parser = parser.command(
      spec.isDefault ? [spec.command, '$0'] : spec.command,
      spec.describe,
      (y) => {
        for (const [name, o] of Object.entries(spec.positionals ?? {})) y.positional(name, o);
        return y.options(spec.options);
      },
      async (args) => {
        const problem = flagProblem(argv, spec.options, args);
        if (problem) {
          usageError(problem, spec.isDefault ? undefined : spec.name);
          code = EXIT.cannotTest;
          return;
        }
        code = await RUN[spec.name](args);
      },
    );
  }
  await parser
    .fail((msg, e) => {
      // A custom fail handler must throw, or yargs still runs the command on invalid input.
      if (e) throw e;
      usageError(usageMessage(msg, argv), COMMANDS.find((c) => !c.isDefault && c.name === argv[0])?.name);
      throw new UsageError(msg);
    })
    .parseAsync();
  return code;
}

class UsageError extends Error {}

/** A usage error on stderr (cleaned of the secrets known, as every line is), with the command's own --help. */
function usageError(message: string, command: string | undefined): void {
  err(`chatprobe: ${message}\nRun "chatprobe ${command ? `${command} ` : ''}--help" for usage.\n`);
}

/**
 * The secrets known before a command reads its options: $OPENAI_API_KEY, the variable `--api-key-env` names
 * on the line, and every variable whose name says it holds a key, a token, a secret or a password (a config
 * file may name one as the key's).
 */
function startupSecrets(argv: readonly string[], env: NodeJS.ProcessEnv): Secret[] {
  const names = new Set(['OPENAI_API_KEY']);
  argv.forEach((a, i) => {
    const m = /^--(?:api-key-env|apiKeyEnv)(?:=(.*))?$/.exec(a);
    if (m) names.add(m[1] ?? argv[i + 1] ?? '');
  });
  for (const name of Object.keys(env)) if (/KEY|TOKEN|SECRET|PASSW/i.test(name)) names.add(name);
  return [...names].map((name) => ({ value: env[name], label: `$${name}` }));
}

main(process.argv.slice(2)).then(
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
