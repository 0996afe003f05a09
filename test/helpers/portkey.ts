import { fileURLToPath } from 'node:url';
import { freePort, startServerProcess } from './server-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Gateway {
  url: string;
  output(): string;
  close(): Promise<void>;
}

/**
 * The Portkey AI gateway (@portkey-ai/gateway, from the npm registry) on loopback: its server listens on
 * every interface, so test/fixtures/loopback.cjs binds it to 127.0.0.1. Resolves when it says it is ready.
 */
export async function startPortkey(): Promise<Gateway> {
  const port = await freePort();
  const server = await startServerProcess(
    process.execPath,
    ['--require', `${ROOT}test/fixtures/loopback.cjs`, `${ROOT}node_modules/@portkey-ai/gateway/build/start-server.js`, `--port=${port}`, '--headless'],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' } },
    (out) => out.includes('Ready for connections'),
    'the Portkey gateway',
  );
  return { url: `http://127.0.0.1:${port}/v1`, output: server.output, close: server.stop };
}

/**
 * chatprobe's --header arguments that make the gateway spread requests over several OpenAI-compatible
 * servers as one route (Portkey's config: strategy loadbalance, each target provider openai with its
 * custom_host; equal weights, so each request goes to a target drawn at random): a relay mixing channels
 * behind one model name. The servers must list the model under the same name. The targets' key is a dummy
 * the servers do not check (the caller's own key is not forwarded); chatprobe treats it as a secret and cuts
 * any 8 characters of it out of its files, so it shares no 8 characters with what the reports hold
 * (a key such as "sk-portkey-…" would cut "-portkey" out of Portkey's header names).
 */
export function loadBalanceHeaders(urls: string[], apiKey = 'sk-Qv7Jw2xLp9Zr4Tn8'): string[] {
  const config = {
    strategy: { mode: 'loadbalance' },
    targets: urls.map((url) => ({ provider: 'openai', api_key: apiKey, custom_host: url, weight: 1 })),
  };
  return ['--header', `x-portkey-config: ${JSON.stringify(config)}`];
}
