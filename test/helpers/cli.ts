import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The CLI as users run it: the bundle test/global-setup.ts builds from the sources before the tests
 * (dist/cli.mjs), started by the same node that runs the tests.
 */
export const CLI = `${ROOT}dist/cli.mjs`;

/** The command line that runs the CLI with `args`: the program and its arguments, for spawn(). */
export const cliCommand = (args: readonly string[]): [string, string[]] => [process.execPath, [CLI, ...args]];

/** Runs the built CLI, the way a user would, with a clean environment plus `env`. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CliRun> {
  return runCommand(...cliCommand(args), env, cwd);
}

/** Runs a command to its end with a clean environment (PATH, NO_COLOR) plus `env`; resolves with what it printed. */
export function runCommand(file: string, args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

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

/** Runs the built CLI and sends it SIGINT (Ctrl-C) once `until` resolves or its output matches it. */
export const interruptCli = (args: string[], env: Record<string, string>, until: Promise<void> | RegExp, onStderr?: (stderr: string) => void): Promise<CliRun> =>
  signalCli(args, env, until, 'SIGINT', onStderr ? { onStderr } : {});

export { ROOT };
