import { spawn } from 'node:child_process';
import { cliCommand, ROOT, type CliRun } from './cli.js';

export interface SignalRun extends CliRun {
  /** The signal the process itself died of, if it did not exit (Node's default for an unhandled signal). */
  killedBy: NodeJS.Signals | null;
}

/**
 * Runs the CLI and sends it `signal` once `until` resolves, or once its output (stdout, then stderr)
 * matches it; `again`: a second time once stderr matches that; `onStderr`: stderr so far, as it grows.
 * Resolves with its exit and output.
 */
export function signalCli(
  args: string[],
  env: Record<string, string>,
  until: Promise<void> | RegExp,
  signal: NodeJS.Signals,
  options: { again?: RegExp; cwd?: string; onStderr?: (stderr: string) => void } = {},
): Promise<SignalRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(...cliCommand(args), {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sent = 0;
    const check = () => {
      if (sent === 0 && until instanceof RegExp && until.test(stdout + stderr)) send();
      if (sent === 1 && options.again?.test(stderr)) send();
    };
    const send = () => {
      sent++;
      child.kill(signal);
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      check();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      check();
      options.onStderr?.(stderr);
    });
    if (!(until instanceof RegExp)) void until.then(() => sent === 0 && send());
    child.on('error', reject);
    child.on('close', (code, killedBy) => resolve({ code, killedBy, stdout, stderr }));
  });
}
