import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A port free at the time of asking (the gateway takes its port as a flag, not 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

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
  const child: ChildProcess = spawn(
    process.execPath,
    ['--require', `${ROOT}test/fixtures/loopback.cjs`, `${ROOT}node_modules/@portkey-ai/gateway/build/start-server.js`, `--port=${port}`, '--headless'],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const seen = (d: Buffer) => {
      output += d.toString();
      if (output.includes('Ready for connections')) resolve();
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`the Portkey gateway exited (${code}) before it was ready:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    output: () => output,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
