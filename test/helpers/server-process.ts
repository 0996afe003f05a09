import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port free at the time of asking, for servers that take their port as a flag, not 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** SIGTERM, resolved when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts a server process and resolves once what it printed satisfies `ready` (its own "listening" line:
 * no sleep), or rejects with its output if it exits first.
 */
export async function startServerProcess(
  file: string,
  args: string[],
  options: SpawnOptions,
  ready: (output: string) => boolean,
  name: string,
  /** Told of the process as soon as it exists (to stop it even if it never gets ready). */
  spawned?: (child: ChildProcess) => void,
): Promise<ServerProcess> {
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned?.(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const seen = (d: Buffer) => {
      output += d.toString();
      if (ready(output)) resolve();
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready:\n${output.slice(-2000)}`)));
  });
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
