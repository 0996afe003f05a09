import { isAbsolute, relative, resolve } from 'node:path';
import { Boundary } from '../boundary/boundary.js';
import { MIN_SECRET_LENGTH, type Secret } from '../boundary/secrets.js';
import { oneLine } from '../text.js';
import { CannotTestError } from '../errors.js';
import { EXIT } from '../results/exit.js';
import type { HarWriter } from '../report/har.js';

/**
 * stdout and stderr, through the output boundary: secrets removed, stray control characters shown, no
 * workflow command smuggled in. They survive a closed pipe (`chatprobe --json | head`): EPIPE ends output
 * quietly instead of crashing the run before its reports are written.
 */

let stdoutClosed = false;
let boundary = new Boundary();

/**
 * A reader gone: a closed pipe (EPIPE), or a terminal that hung up (EIO: the SSH session or terminal
 * window closed, which also sends SIGHUP): the run goes on to write its reports, silently.
 */
const GONE = new Set(['EPIPE', 'EIO']);

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (GONE.has(err.code ?? '')) stdoutClosed = true;
  else throw err;
});
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (!GONE.has(err.code ?? '')) throw err;
});

/**
 * The signals that stop a command as Ctrl-C does: SIGHUP is a closed terminal or SSH session, which must
 * not lose the run (Node's default for it quits at once, without the partial report, and leaves the
 * exchanges record's temporary file behind).
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Calls `handler` at each stop signal; returns what takes it away again. */
export function onStopSignal(handler: () => void): () => void {
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
  };
}

/** The boundary every later line goes through: set once the secrets are known. */
export function useBoundary(b: Boundary): void {
  boundary = b;
}

export function out(text: string): void {
  if (!stdoutClosed) process.stdout.write(boundary.terminal(text));
}

export function err(text: string): void {
  process.stderr.write(boundary.terminal(text));
}

/** The terminal's width, or undefined when stdout is not a terminal (or one that does not say). */
export function terminalColumns(): number | undefined {
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
}

/** The one line a TTY redraws in place (progress): carriage return and erase, then the line, cleaned. */
export function progress(line: string): void {
  process.stderr.write(`\r\x1b[2K${boundary.terminal(line)}`);
}

/** A GitHub workflow command we built (an annotation), on stdout or stderr: redacted, nothing else changed. */
export function command(line: string, stream: 'out' | 'err'): void {
  if (!/^::(error|warning|notice)( [^\n]*)?::[^\n]*$/.test(line)) throw new Error(`not a workflow command line: ${line.slice(0, 40)}`);
  const text = `${boundary.redact(line)}\n`;
  if (stream === 'err') process.stderr.write(text);
  else if (!stdoutClosed) process.stdout.write(text);
}

/**
 * The boundary for a run's secrets, in force for all output from now on. A secret too short or too common
 * to search for is named (never shown) once on stderr, with what that means. `vocabulary`: the words of the
 * report files the command writes (report/vocabulary.ts), which no secret's fragment may cut apart.
 */
export function guardSecrets(secrets: Iterable<Secret>, vocabulary?: string): Boundary {
  const b = Boundary.of(secrets, { vocabulary });
  useBoundary(b);
  for (const { label, why } of b.refused) {
    const reason =
      why === 'short'
        ? `has fewer than ${MIN_SECRET_LENGTH} characters: too short to search server texts for without cutting words`
        : "is made of words chatprobe's own reports use: searching for it would cut those files apart";
    err(
      `warning: ${label} ${reason}, so it is removed only where it stands whole as a credential (after "Bearer ", as an api_key=, token= or "key": value); ` +
        'a server that echoes it elsewhere, or in pieces, is not redacted (chatprobe itself sends it only where it belongs and never prints it)\n',
    );
  }
  return b;
}

/** A CannotTestError said on stderr (with its hint) as exit 2, the code every command gives it; anything
 *  else is thrown on. */
export function cannotTest(e: unknown): number {
  if (!(e instanceof CannotTestError)) throw e;
  err(`chatprobe: ${oneLine(e.message)}\n${e.advice ? `hint: ${oneLine(e.advice)}\n` : ''}`);
  return EXIT.cannotTest;
}

/**
 * For a second Ctrl-C's last line: while the run's exchanges record is not in place, no report is either
 * (they are put in place together), and the record is completed under its own name as the process quits.
 */
export const harSaved = (har: HarWriter | undefined): string => {
  const path = har?.ifInterrupted;
  return path ? `: no report written; the calls made so far (those cut short say so) are in ${displayPath(path)}` : '';
};

/**
 * Why a server command could not listen, in our words (listen()'s own, "listen EADDRINUSE: address already
 * in use", are Node's): the port taken or privileged, the host not this machine's.
 */
export function listenFailure(e: unknown, host: string, port: number): CannotTestError {
  const code = (e as NodeJS.ErrnoException)?.code;
  const free = 'pick another --port, or 0 for a free one';
  if (code === 'EADDRINUSE') return new CannotTestError(`port ${port} on ${host} is in use`, free);
  if (code === 'EACCES') return new CannotTestError(`not allowed to listen on port ${port}`, `ports below 1024 need privileges: ${free}`);
  if (code === 'EADDRNOTAVAIL') return new CannotTestError(`--host ${host} is not an address of this machine`, 'pass one of its interfaces, 127.0.0.1, or 0.0.0.0 for all of them');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new CannotTestError(`--host ${host}: no such host name`, 'pass an address of this machine, e.g. 127.0.0.1');
  return new CannotTestError(`cannot listen on ${host} port ${port}${code ? ` (${code})` : ''}`);
}

/** What became of the previous complete reports a partial run would have replaced (report/write.ts KEPT_FOLDER). */
export function keptText(written: { kept?: { dir: string; startedAt: string | undefined }; notKept?: string }): string {
  if (written.kept) {
    return `the previous complete reports${written.kept.startedAt ? ` (the run started ${written.kept.startedAt})` : ''} are kept in ${displayPath(written.kept.dir)}: this run's, beside them, are partial\n`;
  }
  return written.notKept ? `warning: the previous complete reports could not be kept (${written.notKept}): this run's partial ones replaced them\n` : '';
}

/** A path as the console shows it: relative to the working folder when it is below it, else absolute. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : resolve(path);
}

/** Resolves at the first stop signal (Ctrl-C, SIGTERM, SIGHUP): how a server command (serve, upstream) runs until stopped. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const release = onStopSignal(() => {
      release();
      resolve();
    });
  });
}

/** What the first stop signal does, said as it comes, when a run has a partial report to write. */
export const FINISHING = 'interrupted: finishing the partial report (press Ctrl-C again to quit at once)';

/**
 * The first stop signal (Ctrl-C, SIGTERM, SIGHUP) aborts the returned signal, so a run stops sending and
 * writes its partial report (exit 130); the second quits at once, saying where the calls went (`quitting`,
 * asked then). `stopping`, asked at the first, says what stopping means now (a run that has not begun has
 * no partial report to finish). `release` takes the handlers away when the run is done.
 */
export function interruptible(
  say: (text: string) => void,
  quitting?: () => string | undefined,
  stopping: () => string = () => FINISHING,
): { signal: AbortSignal; at(): number | undefined; release(): void } {
  const controller = new AbortController();
  let at: number | undefined;
  const onSignal = () => {
    if (controller.signal.aborted) {
      say(`\nquit at once${quitting?.() ?? ''}\n`);
      process.exit(EXIT.interrupted);
    }
    say(`\n${stopping()}\n`);
    at = performance.now();
    controller.abort();
  };
  const release = onStopSignal(onSignal);
  return {
    signal: controller.signal,
    /** When (performance.now()) the first signal came, if one did. */
    at: () => at,
    release,
  };
}
