#!/usr/bin/env node
// The line is read once (command-line.ts), by the command table; --help and --version are answered from
// it alone, and a command's own code is imported when it runs (bench/run.ts measures the start-up against
// `node -e 0`).
import { VERSION } from '../version.js';
import { AUDIT_FLAGS, type CommandName } from './commands.js';
import { readCommandLine } from './command-line.js';
import { EXIT } from '../results/exit.js';
import { helpWidth, renderHelp } from './help.js';
import { pickFlags } from './flags.js';
import { Boundary } from '../boundary/boundary.js';
import type { Secret } from '../boundary/secrets.js';
import { err, useBoundary } from './output.js';
import { oneLine } from '../text.js';

type Values = Record<string, unknown>;

/** A comma-separated flag as a list (undefined when not given). */
const list = (v: unknown): string[] | undefined =>
  v === undefined ? undefined : String(v).split(',').map((s) => s.trim()).filter(Boolean);

/** Each command's code, imported when it runs, given the values read from the line. */
const RUN: Record<CommandName, (v: Values) => Promise<number>> = {
  audit: async (v) => (await import('./endpoints.js')).auditCommand(pickFlags(AUDIT_FLAGS, v), process.env, v.config as string | undefined),
  demo: async (v) => (await import('./audit.js')).demoCommand(String(v.profile), pickFlags(AUDIT_FLAGS, v), process.env),
  serve: async (v) =>
    (await import('./serve.js')).serveCommand({ profile: v.profile as string, port: v.port as number, host: v.host as string, apiKeyEnv: v.apiKeyEnv as string | undefined }, process.env),
  doctor: async (v) => (await import('./doctor.js')).doctorCommand(pickFlags(AUDIT_FLAGS, v), process.env, v.config as string | undefined),
  merge: async (v) =>
    (await import('./merge.js')).mergeCommand(v.dirs as string[], { out: v.out as string, json: v.json as boolean, quiet: v.quiet as boolean, baseline: v.baseline as string | undefined }, process.env),
  compare: async (v) => (await import('./compare.js')).compareCommand(String(v.a), String(v.b), { json: v.json as boolean, html: v.html as string | undefined }),
  repro: async (v) => (await import('./repro.js')).reproCommand(String(v.report), String(v.model), String(v.probe)),
  judge: async (v) =>
    (await import('./judge.js')).judgeCommand(
      String(v.run),
      { out: v.out as string | undefined, baseline: v.baseline as string | undefined, prices: v.prices as string | undefined, probeFiles: (v.probeFile as string[] | undefined) ?? [], json: v.json as boolean, quiet: v.quiet as boolean },
      process.env,
    ),
  probes: async (v) => (await import('./probes.js')).probesCommand(v.json as boolean, (v.probeFile as string[] | undefined) ?? []),
  upstream: async (v) => (await import('./upstream.js')).upstreamCommand({ port: v.port as number, host: v.host as string, models: list(v.models) ?? [] }),
  passthrough: async (v) =>
    (await import('./passthrough.js')).passthroughCommand(pickFlags(AUDIT_FLAGS, v), { upstream: String(v.upstream), cases: list(v.cases) }, process.env),
};

async function main(argv: string[]): Promise<number> {
  const line = readCommandLine(argv);
  // The default command's help is the top one.
  const own = line.named && !line.command.isDefault ? line.command : undefined;
  if (line.help) {
    process.stdout.write(renderHelp(own, helpWidth(process.stdout.columns)));
    return EXIT.ok;
  }
  if (line.version) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  // Until a command knows its own secrets (and guards its output with them), every line it prints is
  // cleaned of the ones known now: a key pasted where a path, a URL or a positional belongs must not be
  // printed back by an error about it.
  useBoundary(Boundary.of(startupSecrets(line.values.apiKeyEnv, process.env)));
  if (line.problem) {
    err(`chatprobe: ${line.problem}\nRun "chatprobe ${own ? `${own.name} ` : ''}--help" for usage.\n`);
    return EXIT.cannotTest;
  }
  return RUN[line.command.name](line.values);
}

/**
 * The secrets known before a command reads its options: $OPENAI_API_KEY, the variable `--api-key-env` names
 * on the line, and every variable whose name says it holds a key, a token, a secret or a password (a config
 * file may name one as the key's).
 */
function startupSecrets(apiKeyEnv: unknown, env: NodeJS.ProcessEnv): Secret[] {
  const names = new Set(['OPENAI_API_KEY']);
  for (const name of [apiKeyEnv].flat()) if (typeof name === 'string') names.add(name);
  for (const name of Object.keys(env)) if (/KEY|TOKEN|SECRET|PASSW/i.test(name)) names.add(name);
  return [...names].map((name) => ({ value: env[name], label: `$${name}` }));
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    err(`chatprobe: ${oneLine((e as Error)?.message ?? String(e))}\n`);
    process.exitCode = EXIT.cannotTest;
  },
);
