import { loadProfile } from '../reference/profiles.js';
import { startReferenceServer } from '../reference/server.js';
import { cannotTest, listenFailure, out, untilStopped } from './output.js';

export async function serveCommand(args: { profile: string; port: number; host: string; apiKeyEnv?: string | undefined }, env: NodeJS.ProcessEnv): Promise<number> {
  const profile = loadProfile(args.profile);
  if (args.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(args.apiKeyEnv)) {
    // Not echoed, as the audit does not: a key pasted where its variable's name belongs is the likeliest such value.
    throw new Error('--api-key-env: not an environment variable name (the value is not shown: it may be the key itself); name the variable that holds the key the server should accept');
  }
  const apiKey = args.apiKeyEnv ? env[args.apiKeyEnv] : undefined;
  if (args.apiKeyEnv && !apiKey) throw new Error(`--api-key-env ${args.apiKeyEnv}: the variable is ${env[args.apiKeyEnv] === undefined ? 'not set' : 'empty'}`);
  let server: Awaited<ReturnType<typeof startReferenceServer>>;
  try {
    server = await startReferenceServer({ profile, host: args.host, port: args.port, ...(apiKey ? { apiKey } : {}) });
  } catch (e) {
    return cannotTest(listenFailure(e, args.host, args.port));
  }
  // Listening from here, before the lines that tell a script to go on: a signal sent on reading them stops it cleanly.
  const stopped = untilStopped();
  out(`chatprobe reference server, profile "${profile.name}": ${profile.description}\n`);
  out(`base URL: ${server.url}\n`);
  out(`models: ${profile.models.filter((m) => m.listed).map((m) => m.id).join(', ')}\n`);
  out(`auth: ${apiKey ? `the key in $${args.apiKeyEnv}` : 'any bearer token'}\n`);
  out('press Ctrl-C to stop\n');
  await stopped;
  await server.close();
  return 0;
}
