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
